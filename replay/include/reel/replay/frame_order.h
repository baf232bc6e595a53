#pragma once
// A recorded frame's packets one by one, in either of the two orders of trace::orderFrame (submission
// and sorted): positions in sorted order are what FrameOptions::stopAfterPackets counts.

#include <cstdint>
#include <vector>

#include "reel/trace/frame_order.h"
#include "reel/trace/records.h"

namespace reel::replay {

// The two orders come from the trace library (trace::orderFrame); the replay adds packet positions.
using trace::FrameOrder;
using trace::OrderedKey;
using trace::orderFrame;

// A packet of a frame by where it is: FrameRecord::buckets[bucket].packet(key, link).
struct PacketRef {
  uint16_t bucket;
  uint32_t key;
  uint32_t link;
};
// Every packet of the frame in `order` (sorted or submission), one entry per position.
std::vector<PacketRef> packetsInOrder(const trace::FrameRecord& frame, const std::vector<OrderedKey>& order);

}  // namespace reel::replay
