#include "reel/schema/shuffle.h"

namespace reel::schema {

void shuffleBytes(const uint8_t* in, size_t n, size_t size, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < size; ++b) out[b * n + i] = in[i * size + b];
  }
}

void unshuffleBytes(const uint8_t* in, size_t n, size_t size, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < size; ++b) out[i * size + b] = in[b * n + i];
  }
}

void ColumnGroups::clear() {
  group_.clear();
  index_.clear();
  groups_.clear();
  lookup_.clear();
  lastGroup_ = kNone;
  total_ = 0;
}

void ColumnGroups::add(uint64_t key, uint32_t size) {
  if (size == 0) {
    group_.push_back(kNone);
    index_.push_back(0);
    return;
  }
  // A bucket has a handful of groups, visited in turns (pipeline, texture, constants, draw): a short
  // scan finds them faster than hashing; the map only takes over when there are many.
  if (lastGroup_ == kNone || key != lastKey_) {
    uint32_t found = kNone;
    if (groups_.size() <= kScanLimit) {
      for (uint32_t g = 0; g < groups_.size(); ++g) {
        if (groups_[g].key == key) found = g;
      }
    } else {
      if (lookup_.empty()) {
        for (uint32_t g = 0; g < groups_.size(); ++g) lookup_.emplace(groups_[g].key, g);
      }
      if (auto it = lookup_.find(key); it != lookup_.end()) found = it->second;
    }
    if (found == kNone) {
      found = static_cast<uint32_t>(groups_.size());
      groups_.push_back(Group{key, size, 0, 0});
      if (!lookup_.empty()) lookup_.emplace(key, found);
    }
    lastKey_ = key;
    lastGroup_ = found;
  }
  Group& g = groups_[lastGroup_];
  group_.push_back(lastGroup_);
  index_.push_back(g.count++);
}

void ColumnGroups::finish() {
  total_ = 0;
  for (Group& g : groups_) {
    g.offset = total_;
    total_ += uint64_t{g.size} * g.count;
  }
}

void ColumnGroups::scatter(const uint8_t* bodyOrder, const uint32_t* bodyOffsets, uint8_t* column) const {
  for (size_t i = 0; i < group_.size(); ++i) {
    if (group_[i] == kNone) continue;
    const Group& g = groups_[group_[i]];
    const uint8_t* from = bodyOrder + bodyOffsets[i];
    uint8_t* to = column + g.offset + index_[i];
    for (uint32_t b = 0; b < g.size; ++b) to[uint64_t{b} * g.count] = from[b];
  }
}

void ColumnGroups::gather(const uint8_t* column, const uint32_t* bodyOffsets, uint8_t* bodyOrder) const {
  for (size_t i = 0; i < group_.size(); ++i) {
    if (group_[i] == kNone) continue;
    const Group& g = groups_[group_[i]];
    const uint8_t* from = column + g.offset + index_[i];
    uint8_t* to = bodyOrder + bodyOffsets[i];
    for (uint32_t b = 0; b < g.size; ++b) to[b] = from[uint64_t{b} * g.count];
  }
}

}  // namespace reel::schema
