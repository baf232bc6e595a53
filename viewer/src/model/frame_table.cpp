#include "model/frame_table.h"

#include <algorithm>
#include <numeric>

#include "reel/runtime/radix_sort.h"

namespace reel::viewer {

FrameTable FrameTable::build(const trace::FrameRecord& frame) {
  FrameTable t;
  // The renderer merges buckets in creation order, which is BucketRecord::index; the record lists them
  // in that order already, but a sort keeps the rebuild right should a writer list them otherwise.
  std::vector<uint32_t> bucketOrder(frame.buckets.size());
  std::iota(bucketOrder.begin(), bucketOrder.end(), 0u);
  std::stable_sort(bucketOrder.begin(), bucketOrder.end(),
                   [&](uint32_t a, uint32_t b) { return frame.buckets[a].index < frame.buckets[b].index; });

  size_t keys = 0, links = 0;
  for (const trace::BucketRecord& b : frame.buckets) {
    keys += b.keyCount();
    links += b.linkCount();
  }
  t.keyCount_ = keys;
  t.rows_.reserve(links);
  std::vector<SortEntry> entries;
  entries.reserve(keys);
  std::vector<uint32_t> keyFirstRow;
  keyFirstRow.reserve(keys + 1);
  for (const uint32_t b : bucketOrder) {
    const trace::BucketRecord& bucket = frame.buckets[b];
    for (size_t k = 0; k < bucket.keyCount(); ++k) {
      entries.push_back(SortEntry{bucket.key(k), static_cast<uint32_t>(keyFirstRow.size()), 0});
      keyFirstRow.push_back(static_cast<uint32_t>(t.rows_.size()));
      for (size_t l = 0, n = bucket.chainLength(k); l < n; ++l) {
        t.rows_.push_back(Row{b, static_cast<uint32_t>(k), static_cast<uint32_t>(l)});
      }
    }
  }
  keyFirstRow.push_back(static_cast<uint32_t>(t.rows_.size()));

  std::vector<SortEntry> scratch;
  t.sortPasses_ = radixSort(entries, scratch);
  t.sortedOrderHash_ = hashSortedOrder(entries);

  t.sorted_.reserve(t.rows_.size());
  for (const SortEntry& e : entries) {
    for (uint32_t r = keyFirstRow[e.sequence]; r < keyFirstRow[e.sequence + 1]; ++r) t.sorted_.push_back(r);
  }
  t.sortedPosition_.resize(t.sorted_.size());
  for (uint32_t p = 0; p < t.sorted_.size(); ++p) t.sortedPosition_[t.sorted_[p]] = p;
  return t;
}

}  // namespace reel::viewer
