#pragma once
// One frame of a trace as rows: every packet (chain link) of every bucket, in submission order and in
// the sorted order the render thread dispatched them in, as the trace library rebuilds it
// (trace::orderFrame: passes and bucket orders included). Its hash is the render thread's
// sortedOrderHash, so a trace's recorded hash checks the rebuild.
//
// Positions: a row's id is its submission position; sortedOrder()[p] is the row dispatched p-th, which
// is the row a replay with FrameOptions::stopAfterPackets = p + 1 ends on.
//
// Kept small for a million rows: 12 bytes per row plus two 4-byte permutations.

#include <cstdint>
#include <span>
#include <vector>

#include "reel/trace/records.h"

namespace reel::viewer {

struct Row {
  uint32_t bucket = 0;  // index into FrameRecord::buckets
  uint32_t key = 0;     // key index within the bucket
  uint32_t link = 0;    // position in the key's chain
};

class FrameTable {
 public:
  FrameTable() = default;
  static FrameTable build(const trace::FrameRecord& frame);

  size_t size() const { return rows_.size(); }
  size_t keyCount() const { return keyCount_; }
  const Row& row(uint32_t id) const { return rows_[id]; }
  std::span<const Row> rows() const { return rows_; }

  // sorted position -> row id
  std::span<const uint32_t> sortedOrder() const { return sorted_; }
  uint32_t sortedPosition(uint32_t id) const { return sortedPosition_[id]; }
  // The order a table shows: sorted, or submission (the identity).
  uint32_t rowAt(bool sorted, uint32_t position) const { return sorted ? sorted_[position] : position; }
  uint32_t positionOf(bool sorted, uint32_t id) const { return sorted ? sortedPosition_[id] : id; }

  // FNV-1a of the merged key sequence numbers in sorted order (reel::hashSortedOrder).
  uint64_t sortedOrderHash() const { return sortedOrderHash_; }

 private:
  std::vector<Row> rows_;
  std::vector<uint32_t> sorted_;
  std::vector<uint32_t> sortedPosition_;
  size_t keyCount_ = 0;
  uint64_t sortedOrderHash_ = 0;
};

// The packet a row names.
inline trace::PacketRecord packetOf(const trace::FrameRecord& frame, const Row& row) {
  return frame.buckets[row.bucket].packet(row.key, row.link);
}
inline uint64_t keyOf(const trace::FrameRecord& frame, const Row& row) {
  return frame.buckets[row.bucket].key(row.key);
}

}  // namespace reel::viewer
