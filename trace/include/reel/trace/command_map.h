#pragma once
// Which commands of a trace this build of reel replays, and as which CommandType: the one answer that
// the replay (FrameFeeder, and through it the viewer, bisect, trim and golden) and `reel verify` give.
//
// A trace command replays when this build has a command of the same name, with the same size and the
// same layout hash (name, size and field table hashed together). Its id may differ: a trace written by a
// build whose commands.inc listed the commands in another order replays, each packet as the command of
// its name. A command this build lacks, or has with another layout, does not replay: a frame that uses
// it fails with the reason; the trace's other commands still replay, and every command still prints
// (TraceHeader::formatPacket reads a packet with the trace's own field table).
//
// Usage (given const reel::trace::TraceHeader& header):
//   const auto commands = reel::trace::CommandMap::fromHeader(header);
//   for (uint16_t id = 0; id < commands.size(); ++id) {
//     auto type = commands.map(id);
//     if (!type) std::puts(type.error().message.c_str());  // "command Draw was captured with a layout ..."
//   }

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/result.h"
#include "reel/trace/header.h"

namespace reel::trace {

class CommandMap {
 public:
  // Why a trace command does not replay.
  enum class Mismatch : uint8_t {
    None,           // it replays
    UnknownName,    // this build has no command of its name
    SizeDiffers,    // this build's packet of that name has another size
    LayoutDiffers,  // same name and size, another field table (layout hash)
  };

  static CommandMap fromHeader(const TraceHeader& header);

  // The trace's command ids are 0 .. size() - 1.
  size_t size() const { return entries_.size(); }
  // This build's type for a trace command id; CommandType::Count when it does not replay or is not in
  // the trace's table. Cheap: what a replay asks for every packet.
  CommandType operator[](size_t traceId) const {
    return traceId < entries_.size() ? entries_[traceId].type : CommandType::Count;
  }
  Mismatch mismatch(size_t traceId) const;
  // What a trace command does, as this build's command of its name declares it; nothing when it does not
  // replay (a tool then treats it as a command it knows nothing about).
  std::optional<CommandSemantics> semantics(size_t traceId) const {
    const CommandType type = (*this)[traceId];
    if (type == CommandType::Count) return std::nullopt;
    return semanticsOf(type);
  }
  // This build's type, or why not, in one message that names the command: what every tool prints.
  Result<CommandType> map(size_t traceId) const;

 private:
  struct Entry {
    CommandType type = CommandType::Count;
    Mismatch mismatch = Mismatch::UnknownName;
    std::string name;
    uint32_t size = 0;     // the trace's
    uint32_t ourSize = 0;  // this build's, for SizeDiffers
  };
  std::vector<Entry> entries_;
};

}  // namespace reel::trace
