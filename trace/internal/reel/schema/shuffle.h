#pragma once
// Byte-shuffled columns (trace.fbs, table Bucket): the writer and the reader share this code, so that
// both group and order the bytes the same way.
//
//   ColumnGroups payload;
//   for each body: payload.add(type, commandSize);     // the column's group key and bytes per body
//   payload.finish();
//   payload.scatter(bodyOrderBytes, bodyOffsets, column);   // writer: body order -> grouped, shuffled
//   payload.gather(column, bodyOffsets, bodyOrderBytes);    // reader: and back

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "reel/schema/column.h"

namespace reel::schema {

// Plane b (n bytes) of `out` gets byte b of each of the n elements of `size` bytes in `in`.
void shuffleBytes(const uint8_t* in, size_t n, size_t size, uint8_t* out);
// The same for n elements of a longer column: plane b starts at out + b * stride.
void shuffleRows(const uint8_t* in, size_t n, size_t size, uint8_t* out, size_t stride);
// shuffleRows for elements that are zero in most of their 8-byte lanes (residuals): the same bytes.
void shuffleMostlyZeroRows(const uint8_t* in, size_t n, size_t size, uint8_t* out, size_t stride);

// shuffleBytes of n elements of `size` bytes (residuals: shuffleMostlyZeroRows) made a block of
// kShuffleBlockElements at a time:
// fill(offset, bytes, block) writes the elements' bytes [offset, offset + bytes), counted from `first`
// (the elements' place in a longer grouped column), to `block`, which is then shuffled into the planes
// at `out` (n bytes apart). What a block holds stays in the core's cache between the two steps.
inline constexpr uint32_t kShuffleBlockElements = 256;
template <typename Fill>
void shuffleBlocksFrom(Fill&& fill, uint64_t first, size_t n, uint32_t size, uint8_t* block, uint8_t* out) {
  for (size_t at = 0; at < n; at += kShuffleBlockElements) {
    const size_t count = std::min<size_t>(kShuffleBlockElements, n - at);
    fill(first + at * size, count * size, block);
    shuffleMostlyZeroRows(block, count, size, out + at, n);
  }
}
void unshuffleBytes(const uint8_t* in, size_t n, size_t size, uint8_t* out);

class ColumnGroups {
 public:
  void clear();
  // An aux column's group key: the body's command id and the size of its aux data (the writer and the
  // reader group aux bytes by both).
  static uint64_t auxGroupKey(uint16_t type, uint32_t auxSize) { return uint64_t{type} << 32 | auxSize; }
  // The next body: its group key and its bytes in this column (0: none; it joins no group). Bodies of
  // one key must have the same size.
  void add(uint64_t key, uint32_t size) {
    addBodies(1, [&](size_t) { return std::pair<uint64_t, uint32_t>{key, size}; });
  }
  // add() for `n` bodies at once, keyAndSize(i) giving body i's (key, size): the per-body arrays sized
  // once, not grown a body at a time (a frame of 400k packets calls this for two columns).
  template <typename KeyAndSize>
  void addBodies(size_t n, KeyAndSize&& keyAndSize) {
    const size_t first = group_.size();
    group_.resize(first + n);
    index_.resize(first + n);
    uint32_t* const groups = group_.data() + first;
    uint32_t* const indexes = index_.data() + first;
    for (size_t i = 0; i < n; ++i) {
      const auto [key, size] = keyAndSize(i);
      const uint32_t group = size != 0 ? groupOf(key, size) : kNoGroup;
      groups[i] = group;
      indexes[i] = group != kNoGroup ? groups_[group].count++ : 0;
    }
  }
  // add() without remembering which group the body joined, for a caller that places each body's bytes
  // itself as it counts it (the writer's gatherer): no per-body arrays, so elementOffset() does not
  // apply. The body's group, or kNoGroup where size is 0.
  uint32_t countBody(uint64_t key, uint32_t size) {
    if (size == 0) return kNoGroup;
    const uint32_t group = groupOf(key, size);
    ++groups_[group].count;
    return group;
  }
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  // Lays the groups out: in order of their first body, each n elements of its size.
  void finish();
  size_t groupCount() const { return groups_.size(); }
  // Where group g's elements start in the column, and their bytes (after finish()).
  uint64_t groupOffset(uint32_t g) const { return groups_[g].offset; }
  uint64_t groupBytes(uint32_t g) const { return uint64_t{groups_[g].size} * groups_[g].count; }
  uint64_t totalBytes() const { return total_; }
  size_t bodyCount() const { return group_.size(); }

  // bodyOffsets[i]: where body i's bytes start from `bodyOrder` (the buffer they are in; the writer
  // passes the arena the packets were recorded into).
  void scatter(const uint8_t* bodyOrder, const uint32_t* bodyOffsets, uint8_t* column) const;
  void gather(const uint8_t* column, const uint32_t* bodyOffsets, uint8_t* bodyOrder) const;

  // The reader's cheaper way back: each group unshuffled in place, into `grouped` (totalBytes()), its
  // elements one after another in body order; elementOffset(i) is where body i's bytes landed (0 for a
  // body of no group). A bulk transpose per group instead of a strided gather per body.
  void gatherGroups(const uint8_t* column, uint8_t* grouped) const;
  // Its inverse: `grouped` as gatherGroups leaves it, shuffled group by group into `column`.
  void shuffleGroups(const uint8_t* grouped, uint8_t* column) const;
  // shuffleGroups from bytes made a block at a time: fill(offset, bytes, block) writes the grouped
  // column's bytes [offset, offset + bytes) to `block`, which shuffleGroupsFrom then shuffles into
  // `column` (shuffleBlocksFrom, group by group). A predicted column's residuals so go from the frames
  // they are computed from into the message through a block that stays in the core's cache, instead of
  // through a column of their own. Blocks start at multiples of `word` bytes and end at one or at the
  // column's end, so that word-wise residuals come out as for the whole column; false (nothing written)
  // where the groups' layout does not allow that. `block` holds kShuffleBlockElements elements of the
  // largest group.
  template <typename Fill>
  bool shuffleGroupsFrom(Fill&& fill, uint32_t word, uint8_t* block, uint8_t* column) const {
    for (const Group& g : groups_) {
      if (g.offset % word != 0) return false;
    }
    for (const Group& g : groups_)
      shuffleBlocksFrom(fill, g.offset, g.count, g.size, block, column + g.offset);
    return true;
  }
  uint32_t largestElement() const {
    uint32_t largest = 0;
    for (const Group& g : groups_) largest = std::max(largest, g.size);
    return largest;
  }
  uint64_t elementOffset(size_t body) const {
    if (group_[body] == kNoGroup) return 0;
    const Group& g = groups_[group_[body]];
    return g.offset + uint64_t{index_[body]} * g.size;
  }

 private:
  struct Group {
    uint64_t key = 0;
    uint32_t size = 0;
    uint32_t count = 0;
    uint64_t offset = 0;
  };
  // The group of a body of `key` (size != 0): the last body's or a small key's at once, else looked up.
  uint32_t groupOf(uint64_t key, uint32_t size) {
    if (key < kDirectKeys && !direct_.empty() && direct_[key] != 0) return direct_[key] - 1;
    if (lastGroup_ != kNoGroup && key == lastKey_) return lastGroup_;
    lastKey_ = key;
    lastGroup_ = findOrAddGroup(key, size);
    return lastGroup_;
  }
  uint32_t findOrAddGroup(uint64_t key, uint32_t size);

  static constexpr size_t kScanLimit = 16;
  // Keys below this (a payload column's keys are command ids) find their group by index.
  static constexpr uint64_t kDirectKeys = 256;
  Column<uint32_t> group_;  // per body: its group, or kNoGroup
  Column<uint32_t> index_;  // per body: its position in the group
  std::vector<Group> groups_;
  std::vector<uint32_t> direct_;  // kDirectKeys entries: group + 1 of a small key, 0 for none yet
  std::unordered_map<uint64_t, uint32_t> lookup_;  // filled once there are more than kScanLimit groups
  uint64_t lastKey_ = 0;
  uint32_t lastGroup_ = kNoGroup;
  uint64_t total_ = 0;
};

}  // namespace reel::schema
