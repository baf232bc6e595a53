#include "reel/replay/frame_order.h"

#include "reel/runtime/radix_sort.h"

namespace reel::replay {

FrameOrder orderFrame(const trace::FrameRecord& frame) {
  FrameOrder order;
  std::vector<SortEntry> entries;
  for (uint16_t b = 0; b < frame.buckets.size(); ++b) {
    const trace::BucketRecord& bucket = frame.buckets[b];
    for (uint32_t k = 0; k < bucket.keyCount(); ++k) {
      entries.push_back(SortEntry{bucket.key(k), static_cast<uint32_t>(order.submission.size()), 0});
      order.submission.push_back(OrderedKey{b, k, order.packets});
      order.packets += bucket.chainLength(k);
    }
  }
  // Buckets in a trace are in the renderer's order, so this is the render thread's merge order.
  std::vector<SortEntry> scratch;
  radixSort(entries, scratch);
  uint64_t position = 0;
  order.sorted.reserve(entries.size());
  for (const SortEntry& e : entries) {
    OrderedKey key = order.submission[e.sequence];
    key.firstPacket = position;
    position += frame.buckets[key.bucket].chainLength(key.key);
    order.sorted.push_back(key);
  }
  order.sortedOrderHash = hashSortedOrder(entries);
  return order;
}

std::vector<PacketRef> packetsInOrder(const trace::FrameRecord& frame, const std::vector<OrderedKey>& order) {
  std::vector<PacketRef> packets;
  for (const OrderedKey& k : order) {
    const size_t links = frame.buckets[k.bucket].chainLength(k.key);
    for (size_t l = 0; l < links; ++l)
      packets.push_back(PacketRef{k.bucket, k.key, static_cast<uint32_t>(l)});
  }
  return packets;
}

}  // namespace reel::replay
