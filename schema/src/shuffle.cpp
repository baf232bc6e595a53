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

namespace {

// One element's bytes to or from its planes. The sizes packets and their aux data mostly have get a
// loop the compiler unrolls; the byte-wise loop is several times slower for them.
template <bool kScatter, uint32_t kSize>
void moveFixed(uint8_t* planes, uint64_t stride, uint8_t* element) {
  for (uint32_t b = 0; b < kSize; ++b) {
    if constexpr (kScatter) {
      planes[b * stride] = element[b];
    } else {
      element[b] = planes[b * stride];
    }
  }
}

template <bool kScatter>
void moveElement(uint8_t* planes, uint64_t stride, uint8_t* element, uint32_t size) {
  switch (size) {
    case 4:
      return moveFixed<kScatter, 4>(planes, stride, element);
    case 8:
      return moveFixed<kScatter, 8>(planes, stride, element);
    case 12:
      return moveFixed<kScatter, 12>(planes, stride, element);
    case 16:
      return moveFixed<kScatter, 16>(planes, stride, element);
    case 24:
      return moveFixed<kScatter, 24>(planes, stride, element);
    case 32:
      return moveFixed<kScatter, 32>(planes, stride, element);
    case 48:
      return moveFixed<kScatter, 48>(planes, stride, element);
    case 64:
      return moveFixed<kScatter, 64>(planes, stride, element);
    default:
      for (uint32_t b = 0; b < size; ++b) {
        if constexpr (kScatter) {
          planes[b * stride] = element[b];
        } else {
          element[b] = planes[b * stride];
        }
      }
  }
}

}  // namespace

void ColumnGroups::scatter(const uint8_t* bodyOrder, const uint32_t* bodyOffsets, uint8_t* column) const {
  for (size_t i = 0; i < group_.size(); ++i) {
    if (group_[i] == kNone) continue;
    const Group& g = groups_[group_[i]];
    moveElement<true>(column + g.offset + index_[i], g.count,
                      const_cast<uint8_t*>(bodyOrder + bodyOffsets[i]), g.size);
  }
}

void ColumnGroups::gather(const uint8_t* column, const uint32_t* bodyOffsets, uint8_t* bodyOrder) const {
  for (size_t i = 0; i < group_.size(); ++i) {
    if (group_[i] == kNone) continue;
    const Group& g = groups_[group_[i]];
    moveElement<false>(const_cast<uint8_t*>(column + g.offset + index_[i]), g.count,
                       bodyOrder + bodyOffsets[i], g.size);
  }
}

}  // namespace reel::schema
