#pragma once
// A recorded frame's packets in the two orders tools show: submission order (bucket by bucket, each
// bucket's keys as recorded, each key's chain) and sorted order (the stable radix sort of every key,
// as the render thread ran it). `reel dump --sorted`, bisect and the viewer list packets this way, and
// positions in sorted order are what FrameOptions::stopAfterPackets counts.

#include <cstdint>
#include <vector>

#include "reel/runtime/sort_entry.h"
#include "reel/trace/records.h"

namespace reel::replay {

struct OrderedKey {
  uint16_t bucket;    // index into FrameRecord::buckets
  uint32_t key;       // index into that bucket's keys
  uint64_t firstPacket;  // position of the key's first packet in this order (chains count packet by packet)
};

struct FrameOrder {
  std::vector<OrderedKey> submission;
  std::vector<OrderedKey> sorted;
  uint64_t packets = 0;
  uint64_t sortedOrderHash = 0;  // as FrameView::sortedOrderHash: equals the recorded hash when the sort is unchanged
};

FrameOrder orderFrame(const trace::FrameRecord& frame);

// A packet of a frame by where it is: FrameRecord::buckets[bucket].packet(key, link).
struct PacketRef {
  uint16_t bucket;
  uint32_t key;
  uint32_t link;
};
// Every packet of the frame in `order` (sorted or submission), one entry per position.
std::vector<PacketRef> packetsInOrder(const trace::FrameRecord& frame, const std::vector<OrderedKey>& order);

}  // namespace reel::replay
