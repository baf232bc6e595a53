#pragma once
// Figures of one frame for the Stats panel: packets and bytes per command type, and the state changes
// the sorted order implies. A state command (Bind*, Set*, PushConstants) changes state when its payload
// (and aux data, for push constants) differs from the last one of the same type and slot that frame;
// otherwise it is redundant, and the Vulkan device's bind caches keep it from reaching Vulkan. Counting
// the same frame in submission order shows what sorting bought: fewer changes when draws that share
// state end up next to each other. Material changes count draw keys whose material differs from the
// previous draw key's, for key types that have a "material" field.

#include <cstdint>
#include <string>
#include <vector>

#include "model/frame_table.h"
#include "reel/trace/header.h"

namespace reel::viewer {

struct TypeStats {
  uint16_t type = 0;  // command id in the trace
  std::string name;
  uint64_t count = 0;
  uint64_t payloadBytes = 0;
  uint64_t auxBytes = 0;
};

struct StateStats {
  uint16_t type = 0;
  std::string name;
  uint64_t packets = 0;
  uint64_t changesSorted = 0;      // in the order the render thread dispatched
  uint64_t changesSubmission = 0;  // had the frame run unsorted
};

struct FrameStats {
  uint64_t packets = 0;
  uint64_t keys = 0;
  uint64_t payloadBytes = 0;
  uint64_t auxBytes = 0;
  uint64_t sharedLinks = 0;        // links that reference a shared packet
  std::vector<TypeStats> types;    // types present, by count, largest first
  std::vector<StateStats> states;  // state command types present, by id
  uint64_t materialKeys = 0;       // keys with a material field
  uint64_t materialChangesSorted = 0;
  uint64_t materialChangesSubmission = 0;
};

FrameStats computeStats(const trace::FrameRecord& frame, const FrameTable& table,
                        const trace::TraceHeader& header);

}  // namespace reel::viewer
