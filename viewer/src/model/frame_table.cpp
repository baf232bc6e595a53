#include "model/frame_table.h"

#include "reel/trace/frame_order.h"

namespace reel::viewer {

FrameTable FrameTable::build(const trace::FrameRecord& frame) {
  FrameTable t;
  const trace::FrameOrder order = trace::orderFrame(frame);
  t.keyCount_ = order.submission.size();
  t.sortedOrderHash_ = order.sortedOrderHash;
  t.rows_.reserve(order.packets);
  // Row ids are submission positions: each key's first row is its submission firstPacket.
  std::vector<std::vector<uint32_t>> firstRow(frame.buckets.size());
  for (const trace::OrderedKey& k : order.submission) {
    firstRow[k.bucket].push_back(static_cast<uint32_t>(k.firstPacket));
    for (size_t l = 0, n = frame.buckets[k.bucket].chainLength(k.key); l < n; ++l)
      t.rows_.push_back(Row{k.bucket, k.key, static_cast<uint32_t>(l)});
  }
  t.sorted_.reserve(t.rows_.size());
  for (const trace::OrderedKey& k : order.sorted) {
    const uint32_t first = firstRow[k.bucket][k.key];
    for (size_t l = 0, n = frame.buckets[k.bucket].chainLength(k.key); l < n; ++l)
      t.sorted_.push_back(first + static_cast<uint32_t>(l));
  }
  t.sortedPosition_.resize(t.sorted_.size());
  for (uint32_t p = 0; p < t.sorted_.size(); ++p) t.sortedPosition_[t.sorted_[p]] = p;
  return t;
}

}  // namespace reel::viewer
