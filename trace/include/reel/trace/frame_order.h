#pragma once
// A recorded frame's packets in the two orders tools show: submission order (bucket by bucket, each
// bucket's keys as recorded, each key's chain) and sorted order (the stable radix sort of every key,
// as the render thread ran it). `reel dump --sorted`, bisect, the golden suite and the viewer list
// packets this way, and positions in sorted order are what a replay's stop-after-packets counts. It
// needs the trace alone: no device, no replay.

#include <cstdint>
#include <vector>

#include "reel/trace/records.h"

namespace reel::trace {

struct OrderedKey {
  uint16_t bucket;       // index into FrameRecord::buckets
  uint32_t key;          // index into that bucket's keys
  uint64_t firstPacket;  // position of the key's first packet in this order (chains count packet by packet)
};

struct FrameOrder {
  std::vector<OrderedKey> submission;
  std::vector<OrderedKey> sorted;
  uint64_t packets = 0;
  uint64_t sortedOrderHash =
      0;  // as FrameView::sortedOrderHash: equals the recorded hash when the sort is unchanged
};

FrameOrder orderFrame(const FrameRecord& frame);

}  // namespace reel::trace
