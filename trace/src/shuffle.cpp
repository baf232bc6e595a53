#include "reel/schema/shuffle.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstring>

namespace reel::schema {

namespace {

#if defined(__SSE2__)
// The inverse of unshuffle8x16 below: bytes b..b+7 of elements i..i+15 (16 rows of 8 bytes, `size`
// apart) to planes b..b+7 (16 bytes each, `n` apart), in four rounds of byte unpacks. Each round pairs
// registers whose elements differ by 8, 4, 2 and 1: the last leaves each plane's 16 elements in order.
inline void shuffle16x8(const uint8_t* in, size_t size, uint8_t* out, size_t n) {
  __m128i a[16];
  for (int e = 0; e < 16; ++e) a[e] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + e * size));
  __m128i x[8], y[8], z[8];
  for (int k = 0; k < 8; ++k) x[k] = _mm_unpacklo_epi8(a[k], a[k + 8]);  // bytes 0..7 of k, k+8
  for (int k = 0; k < 4; ++k) {
    y[k] = _mm_unpacklo_epi8(x[k], x[k + 4]);      // bytes 0..3 of k, k+4, k+8, k+12
    y[k + 4] = _mm_unpackhi_epi8(x[k], x[k + 4]);  // bytes 4..7 of the same
  }
  for (int h = 0; h < 2; ++h) {
    for (int k = 0; k < 2; ++k) {
      const int s = 4 * h + k;
      z[s] = _mm_unpacklo_epi8(y[s], y[s + 2]);      // bytes 4h, 4h+1 of k, k+2, ..., k+14
      z[s + 2] = _mm_unpackhi_epi8(y[s], y[s + 2]);  // bytes 4h+2, 4h+3
    }
  }
  for (int p = 0; p < 8; p += 2) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + p * n), _mm_unpacklo_epi8(z[p], z[p + 1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (p + 1) * n), _mm_unpackhi_epi8(z[p], z[p + 1]));
  }
}

// The same for bytes b..b+3: 16 rows of 4 bytes to 4 planes.
inline void shuffle16x4(const uint8_t* in, size_t size, uint8_t* out, size_t n) {
  __m128i a[16];
  for (int e = 0; e < 16; ++e) {
    int32_t word;
    std::memcpy(&word, in + e * size, sizeof word);
    a[e] = _mm_cvtsi32_si128(word);
  }
  __m128i x[8], y[4], z[4];
  for (int k = 0; k < 8; ++k) x[k] = _mm_unpacklo_epi8(a[k], a[k + 8]);
  for (int k = 0; k < 4; ++k) y[k] = _mm_unpacklo_epi8(x[k], x[k + 4]);
  for (int k = 0; k < 2; ++k) {
    z[k] = _mm_unpacklo_epi8(y[k], y[k + 2]);      // bytes 0, 1
    z[k + 2] = _mm_unpackhi_epi8(y[k], y[k + 2]);  // bytes 2, 3
  }
  for (int p = 0; p < 4; p += 2) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + p * n), _mm_unpacklo_epi8(z[p], z[p + 1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (p + 1) * n), _mm_unpackhi_epi8(z[p], z[p + 1]));
  }
}
#endif

// shuffleRows for bytes [first, last) of each element only: planes first..last-1.
void shuffleByteRange(const uint8_t* in, size_t n, size_t size, size_t first, size_t last, uint8_t* out,
                      size_t stride) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    size_t b = first;
    for (; b + 8 <= last; b += 8) shuffle16x8(in + i * size + b, size, out + b * stride + i, stride);
    for (; b + 4 <= last; b += 4) shuffle16x4(in + i * size + b, size, out + b * stride + i, stride);
    for (; b < last; ++b) {
      for (size_t e = 0; e < 16; ++e) out[b * stride + i + e] = in[(i + e) * size + b];
    }
  }
#endif
  for (; i < n; ++i) {
    for (size_t b = first; b < last; ++b) out[b * stride + i] = in[i * size + b];
  }
}

}  // namespace

void shuffleRows(const uint8_t* in, size_t n, size_t size, uint8_t* out, size_t stride) {
  shuffleByteRange(in, n, size, 0, size, out, stride);
}

void shuffleMostlyZeroRows(const uint8_t* in, size_t n, size_t size, uint8_t* out, size_t stride) {
  // Which 8-byte lanes hold a byte other than zero in any of the n elements: the others' planes are
  // zero, written as such without transposing them. A predicted frame's residuals are zero in most
  // lanes (a stress sprite's 48 bytes of constants move in two of six).
  constexpr size_t kMaxLanes = 32;
  const size_t lanes = size / 8;
  if (lanes == 0 || lanes > kMaxLanes) return shuffleRows(in, n, size, out, stride);
  uint64_t any[kMaxLanes] = {};
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* row = in + i * size;
    for (size_t l = 0; l < lanes; ++l) {
      uint64_t word;
      std::memcpy(&word, row + 8 * l, sizeof word);
      any[l] |= word;
    }
  }
  for (size_t l = 0; l < lanes; ++l) {
    if (any[l] != 0) {
      shuffleByteRange(in, n, size, 8 * l, 8 * l + 8, out, stride);
      continue;
    }
    for (size_t b = 8 * l; b < 8 * l + 8; ++b) std::memset(out + b * stride, 0, n);
  }
  shuffleByteRange(in, n, size, 8 * lanes, size, out, stride);
}

void shuffleBytes(const uint8_t* in, size_t n, size_t size, uint8_t* out) {
  shuffleRows(in, n, size, out, n);
}

namespace {

#if defined(__SSE2__)
// Bytes b..b+7 of elements i..i+15: 8 planes of 16 bytes in, 16 rows of 8 bytes out (an 8x16 byte
// transpose in three rounds of unpacks). Reading 16 bytes of each plane at a time touches each cache
// line of a plane once per 4 tiles, where a byte at a time strides across `size` planes per element.
inline void unshuffle8x16(const uint8_t* in, size_t n, uint8_t* out, size_t size) {
  __m128i r[8];
  for (int p = 0; p < 8; ++p) r[p] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + p * n));
  __m128i t[8], u[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = _mm_unpacklo_epi8(r[2 * p], r[2 * p + 1]);      // elements 0..7, bytes 2p, 2p+1
    t[2 * p + 1] = _mm_unpackhi_epi8(r[2 * p], r[2 * p + 1]);  // elements 8..15
  }
  // u[0..3]: bytes 0..3 of elements 0-3, 4-7, 8-11, 12-15; u[4..7]: bytes 4..7 of the same.
  u[0] = _mm_unpacklo_epi16(t[0], t[2]);
  u[1] = _mm_unpackhi_epi16(t[0], t[2]);
  u[2] = _mm_unpacklo_epi16(t[1], t[3]);
  u[3] = _mm_unpackhi_epi16(t[1], t[3]);
  u[4] = _mm_unpacklo_epi16(t[4], t[6]);
  u[5] = _mm_unpackhi_epi16(t[4], t[6]);
  u[6] = _mm_unpacklo_epi16(t[5], t[7]);
  u[7] = _mm_unpackhi_epi16(t[5], t[7]);
  for (int q = 0; q < 4; ++q) {
    const __m128i lo = _mm_unpacklo_epi32(u[q], u[q + 4]);  // elements 4q, 4q+1: bytes 0..7 each
    const __m128i hi = _mm_unpackhi_epi32(u[q], u[q + 4]);  // elements 4q+2, 4q+3
    if (size == 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (4 * q) * 8), lo);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (4 * q + 2) * 8), hi);
    } else {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (4 * q) * size), lo);
      // The upper halves go through storel too: it is the unaligned 8-byte store (storeh_pd is not).
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (4 * q + 1) * size), _mm_srli_si128(lo, 8));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (4 * q + 2) * size), hi);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (4 * q + 3) * size), _mm_srli_si128(hi, 8));
    }
  }
}
#endif

}  // namespace

void unshuffleBytes(const uint8_t* in, size_t n, size_t size, uint8_t* out) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    size_t b = 0;
    for (; b + 8 <= size; b += 8) unshuffle8x16(in + b * n + i, n, out + i * size + b, size);
    for (; b < size; ++b) {
      for (size_t e = 0; e < 16; ++e) out[(i + e) * size + b] = in[b * n + i + e];
    }
  }
#endif
  for (; i < n; ++i) {
    for (size_t b = 0; b < size; ++b) out[i * size + b] = in[b * n + i];
  }
}

void ColumnGroups::clear() {
  group_.clear();
  index_.clear();
  groups_.clear();
  direct_.assign(kDirectKeys, 0);
  lookup_.clear();
  lastGroup_ = kNoGroup;
  total_ = 0;
}

uint32_t ColumnGroups::findOrAddGroup(uint64_t key, uint32_t size) {
  if (key < kDirectKeys) {
    if (direct_.empty()) direct_.assign(kDirectKeys, 0);
    uint32_t& slot = direct_[key];
    if (slot == 0) {
      groups_.push_back(Group{key, size, 0, 0});
      slot = static_cast<uint32_t>(groups_.size());
      if (!lookup_.empty()) lookup_.emplace(key, slot - 1);
    }
    return slot - 1;
  }
  // Other keys (an aux column's: command id and size): a bucket has a handful of groups, so a short
  // scan finds them faster than hashing; the map only takes over when there are many.
  uint32_t found = kNoGroup;
  if (groups_.size() <= kScanLimit) {
    for (uint32_t g = 0; g < groups_.size() && found == kNoGroup; ++g) {
      if (groups_[g].key == key) found = g;
    }
  } else {
    if (lookup_.empty()) {
      for (uint32_t g = 0; g < groups_.size(); ++g) lookup_.emplace(groups_[g].key, g);
    }
    if (auto it = lookup_.find(key); it != lookup_.end()) found = it->second;
  }
  if (found == kNoGroup) {
    found = static_cast<uint32_t>(groups_.size());
    groups_.push_back(Group{key, size, 0, 0});
    if (!lookup_.empty()) lookup_.emplace(key, found);
  }
  return found;
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
    if (group_[i] == kNoGroup) continue;
    const Group& g = groups_[group_[i]];
    moveElement<true>(column + g.offset + index_[i], g.count,
                      const_cast<uint8_t*>(bodyOrder + bodyOffsets[i]), g.size);
  }
}

void ColumnGroups::gatherGroups(const uint8_t* column, uint8_t* grouped) const {
  for (const Group& g : groups_) unshuffleBytes(column + g.offset, g.count, g.size, grouped + g.offset);
}

void ColumnGroups::shuffleGroups(const uint8_t* grouped, uint8_t* column) const {
  for (const Group& g : groups_) shuffleBytes(grouped + g.offset, g.count, g.size, column + g.offset);
}

void ColumnGroups::gather(const uint8_t* column, const uint32_t* bodyOffsets, uint8_t* bodyOrder) const {
  for (size_t i = 0; i < group_.size(); ++i) {
    if (group_[i] == kNoGroup) continue;
    const Group& g = groups_[group_[i]];
    moveElement<false>(const_cast<uint8_t*>(column + g.offset + index_[i]), g.count,
                       bodyOrder + bodyOffsets[i], g.size);
  }
}

}  // namespace reel::schema
