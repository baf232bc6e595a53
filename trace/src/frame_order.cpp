#include "reel/trace/frame_order.h"

#include "reel/runtime/radix_sort.h"
#include "reel/runtime/sort_entry.h"

namespace reel::trace {

FrameOrder orderFrame(const FrameRecord& frame) {
  FrameOrder order;
  std::vector<SortEntry> entries;
  SortPrefixes prefixes;  // per key, as the renderer's merge (renderer.cpp)
  for (uint16_t b = 0; b < frame.buckets.size(); ++b) {
    const BucketRecord& bucket = frame.buckets[b];
    for (uint32_t k = 0; k < bucket.keyCount(); ++k) {
      entries.push_back(SortEntry{bucket.key(k), static_cast<uint32_t>(order.submission.size()), 0});
      order.submission.push_back(OrderedKey{b, k, order.packets});
      order.packets += bucket.chainLength(k);
      prefixes.push(sortPrefix(bucket.pass(k), bucket.order));
    }
  }
  // Buckets in a trace are in the renderer's order, so this is the render thread's merge order.
  std::vector<SortEntry> scratch;
  radixSort(entries, scratch, prefixes.bySequence());
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

}  // namespace reel::trace
