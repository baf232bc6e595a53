#include "reel/trace/command_map.h"

namespace reel::trace {

CommandMap CommandMap::fromHeader(const TraceHeader& header) {
  CommandMap map;
  map.entries_.resize(header.commands.size());
  for (const CommandDesc& command : header.commands) {
    Entry& e = map.entries_[command.id];  // the decoder checked that entry i has id i
    e.name = std::string(command.name);
    e.size = command.size;
    const CommandInfo* ours = findCommand(command.name);
    if (!ours) {
      e.mismatch = Mismatch::UnknownName;
    } else if (ours->size != command.size) {
      e.mismatch = Mismatch::SizeDiffers;
      e.ourSize = ours->size;
    } else if (ours->layoutHash != command.layoutHash) {
      e.mismatch = Mismatch::LayoutDiffers;
    } else {
      e.mismatch = Mismatch::None;
      e.type = ours->type;
    }
  }
  return map;
}

CommandMap::Mismatch CommandMap::mismatch(size_t traceId) const {
  return traceId < entries_.size() ? entries_[traceId].mismatch : Mismatch::UnknownName;
}

Result<CommandType> CommandMap::map(size_t traceId) const {
  if (traceId >= entries_.size())
    return fail("command id ", traceId, " is not in the header's command table");
  const Entry& e = entries_[traceId];
  switch (e.mismatch) {
    case Mismatch::None:
      return e.type;
    case Mismatch::UnknownName:
      return fail("command ", e.name, " is not a command of this build of reel");
    case Mismatch::SizeDiffers:
      return fail("command ", e.name, " was captured ", e.size, " bytes long; this build of reel has it ",
                  e.ourSize, " bytes long");
    case Mismatch::LayoutDiffers:
      break;
  }
  return fail("command ", e.name, " was captured with a layout this build of reel does not have");
}

}  // namespace reel::trace
