#pragma once
// A trace's header, decoded: the format version, the app and device it was captured on, and the tables
// that make its packets and keys readable by any later reel: the command table (name, size, field table
// per command id) and the key layout of every bucket type. Field tables come back as the runtime's own
// FieldInfo / KeyFieldLayout, so formatFields() and formatKeyWithLayout() print an old trace's packets
// and keys as that trace laid them out.

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/device.h"
#include "reel/runtime/draw_key.h"
#include "reel/runtime/fields.h"

namespace reel::trace {

struct CommandDesc {
  uint16_t id = 0;
  std::string_view name;
  CommandQueue queue = CommandQueue::Sorted;
  uint32_t size = 0;  // bytes of the packet: every payload of this command is exactly this long
  uint64_t layoutHash = 0;
  std::span<const FieldInfo> fields;
};

struct KeyLayoutDesc {
  std::string_view keyType;
  std::span<const KeyFieldLayout> fields;
};

class TraceHeader {
 public:
  TraceHeader();
  TraceHeader(TraceHeader&&) noexcept;
  TraceHeader& operator=(TraceHeader&&) noexcept;
  ~TraceHeader();

  uint16_t formatMajor = 0;
  uint16_t formatMinor = 0;
  std::string reelVersion;
  std::string appName;
  std::vector<std::string> appArgs;
  DeviceInfo device;
  int64_t captureTimeNs = 0;  // Unix time, nanoseconds
  uint64_t firstFrame = 0;
  bool tagsEnabled = false;
  std::vector<CommandDesc> commands;  // indexed by command id
  std::vector<KeyLayoutDesc> keyLayouts;
  std::vector<std::string> resourceKinds;

  const CommandDesc* command(uint16_t id) const { return id < commands.size() ? &commands[id] : nullptr; }
  const KeyLayoutDesc* keyLayout(std::string_view keyType) const;
  // Whether packets of this command id have exactly the layout this build of reel uses under the same
  // id, so that they can be used as they are (PacketRecord::as). Whether a command replays, whatever its
  // id, is CommandMap's answer (command_map.h).
  bool matchesRuntime(uint16_t id) const;

  // "Draw vertexCount=3 firstVertex=0", with the trace's own field table ("?" for a field past the end).
  std::string formatPacket(uint16_t type, std::span<const std::byte> payload) const;
  // "viewport=0 layer=1 ...", with the trace's own key layout (the bits in hex for an unknown key type).
  std::string formatKey(std::string_view keyType, uint64_t bits) const;

  // ---- for the decoder: storage that the spans above point into (stable across moves) ----
  struct Storage {
    std::deque<std::string> strings;
    std::deque<std::vector<FieldInfo>> fieldTables;
    std::deque<std::vector<const char*>> enumTables;
    std::deque<std::vector<KeyFieldLayout>> keyTables;
  };
  Storage& storage() { return *storage_; }

 private:
  std::unique_ptr<Storage> storage_;
};

}  // namespace reel::trace
