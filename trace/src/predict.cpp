#include "reel/schema/predict.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

namespace reel::schema {
namespace {

// Words are little-endian on disk; loading them as native words is that on the machines reel builds for.
static_assert(std::endian::native == std::endian::little);

template <typename W>
W load(const uint8_t* p) {
  W w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
template <typename W>
void store(uint8_t* p, W w) {
  std::memcpy(p, &w, sizeof w);
}

template <typename W>
W zigzag(W r) {
  using S = std::make_signed_t<W>;
  return static_cast<W>(r << 1) ^ static_cast<W>(static_cast<S>(r) >> (sizeof(W) * 8 - 1));
}
template <typename W>
W unzigzag(W z) {
  return static_cast<W>(z >> 1) ^ static_cast<W>(W{0} - (z & 1));
}

template <typename W, Predictor P>
W predicted(const uint8_t* a, const uint8_t* b, size_t at) {
  if constexpr (P == Predictor::Linear) {
    return static_cast<W>(W{2} * load<W>(a + at) - load<W>(b + at));
  } else {
    return load<W>(a + at);
  }
}

template <typename W, Predictor P>
void residualsOf(const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes, uint8_t* out) {
  const size_t words = bytes / sizeof(W) * sizeof(W);
  for (size_t i = 0; i < words; i += sizeof(W)) {
    store<W>(out + i, zigzag<W>(static_cast<W>(load<W>(x + i) - predicted<W, P>(a, b, i))));
  }
  for (size_t i = words; i < bytes; ++i) out[i] = x[i] ^ a[i];
}

template <typename W, Predictor P>
void restoreOf(uint8_t* io, const uint8_t* a, const uint8_t* b, size_t bytes) {
  const size_t words = bytes / sizeof(W) * sizeof(W);
  for (size_t i = 0; i < words; i += sizeof(W)) {
    store<W>(io + i, static_cast<W>(unzigzag<W>(load<W>(io + i)) + predicted<W, P>(a, b, i)));
  }
  for (size_t i = words; i < bytes; ++i) io[i] ^= a[i];
}

template <typename W>
void dispatchResiduals(Predictor p, const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes,
                       uint8_t* out) {
  if (p == Predictor::Linear) return residualsOf<W, Predictor::Linear>(x, a, b, bytes, out);
  residualsOf<W, Predictor::Delta>(x, a, b, bytes, out);
}
template <typename W>
void dispatchRestore(Predictor p, uint8_t* io, const uint8_t* a, const uint8_t* b, size_t bytes) {
  if (p == Predictor::Linear) return restoreOf<W, Predictor::Linear>(io, a, b, bytes);
  restoreOf<W, Predictor::Delta>(io, a, b, bytes);
}

// A stride that meets every word position of packets whose sizes are multiples of 4, 8, 12 or 16 bytes
// (and other small multiples of a word): no common factor with any count of words up to 16.
size_t sampleStride(size_t atLeast) {
  size_t stride = atLeast | 1;
  auto sharesFactor = [](size_t s) {
    for (const size_t p : {3, 5, 7, 11, 13}) {
      if (s % p == 0) return true;
    }
    return false;
  };
  while (sharesFactor(stride)) stride += 2;
  return stride;
}

template <typename W>
Predictor choose(const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes) {
  // Some 4,096 words of the column tell the two predictors apart: every 17th of a small column, evenly
  // spread over a large one. Each sample of a large column is a cache line of each of the three columns
  // that the residuals read again later, so the lines of the samples ahead are fetched meanwhile.
  constexpr size_t kSamples = 4096;
  constexpr size_t kAhead = 8;
  uint64_t delta = 0, linear = 0;
  const size_t words = bytes / sizeof(W);
  const size_t stride = sampleStride(std::max<size_t>(17, words / kSamples));
  for (size_t w = 0; w < words; w += stride) {
    const size_t i = w * sizeof(W);
    if (const size_t ahead = i + kAhead * stride * sizeof(W); ahead < bytes) {
      __builtin_prefetch(x + ahead);
      __builtin_prefetch(a + ahead);
      __builtin_prefetch(b + ahead);
    }
    delta +=
        std::bit_width(zigzag<W>(static_cast<W>(load<W>(x + i) - predicted<W, Predictor::Delta>(a, b, i))));
    linear +=
        std::bit_width(zigzag<W>(static_cast<W>(load<W>(x + i) - predicted<W, Predictor::Linear>(a, b, i))));
  }
  return linear < delta ? Predictor::Linear : Predictor::Delta;
}

}  // namespace

void residuals(Predictor p, const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes, uint32_t word,
               uint8_t* out) {
  if (word == 8) return dispatchResiduals<uint64_t>(p, x, a, b, bytes, out);
  dispatchResiduals<uint32_t>(p, x, a, b, bytes, out);
}

void restore(Predictor p, uint8_t* inOut, const uint8_t* a, const uint8_t* b, size_t bytes, uint32_t word) {
  if (word == 8) return dispatchRestore<uint64_t>(p, inOut, a, b, bytes);
  dispatchRestore<uint32_t>(p, inOut, a, b, bytes);
}

namespace {

// The bytes of segment `s` of a column of `bytes` bytes (every segment but the last is whole).
size_t segmentBytes(size_t s, size_t bytes) {
  return std::min(kResidualSegmentBytes, bytes - s * kResidualSegmentBytes);
}

bool segmentIsZero(const uint8_t* p, size_t n) {
  if (n == kResidualSegmentBytes) {
    // Eight words ORed together: the compiler makes it a few vector loads and one test.
    uint64_t any = 0;
    for (size_t i = 0; i < kResidualSegmentBytes; i += 8) any |= load<uint64_t>(p + i);
    return any == 0;
  }
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

}  // namespace

size_t markResidualSegments(const uint8_t* column, size_t bytes, uint64_t* mask) {
  const size_t segments = residualSegments(bytes);
  size_t packed = 0;
  for (size_t w = 0; w < residualMaskWords(bytes); ++w) {
    uint64_t word = 0;
    const size_t end = std::min(segments, (w + 1) * 64);
    for (size_t s = w * 64; s < end; ++s) {
      const size_t n = segmentBytes(s, bytes);
      if (s > 0 && segmentIsZero(column + s * kResidualSegmentBytes, n)) continue;
      word |= uint64_t{1} << (s % 64);
      packed += n;
    }
    mask[w] = word;
  }
  return packed;
}

size_t markZeroResidualSegments(size_t bytes, uint64_t* mask) {
  std::fill(mask, mask + residualMaskWords(bytes), uint64_t{0});
  if (bytes == 0) return 0;
  mask[0] = 1;
  return segmentBytes(0, bytes);
}

void packResidualSegments(const uint8_t* column, size_t bytes, const uint64_t* mask, uint8_t* packed) {
  for (size_t w = 0; w < residualMaskWords(bytes); ++w) {
    for (uint64_t word = mask[w]; word != 0; word &= word - 1) {
      const size_t s = w * 64 + static_cast<size_t>(std::countr_zero(word));
      const size_t n = segmentBytes(s, bytes);
      std::memcpy(packed, column + s * kResidualSegmentBytes, n);
      packed += n;
    }
  }
}

bool unpackResidualSegments(std::span<const uint64_t> mask, std::span<const uint8_t> packed, size_t bytes,
                            uint8_t* column) {
  const size_t segments = residualSegments(bytes);
  if (mask.size() != residualMaskWords(bytes)) return false;
  if (segments % 64 != 0 && mask.size() > 0 && (mask.back() >> (segments % 64)) != 0) return false;
  size_t at = 0, s = 0;
  for (size_t w = 0; w < mask.size(); ++w) {
    const size_t end = std::min(segments, (w + 1) * 64);
    for (; s < end; ++s) {
      const size_t n = segmentBytes(s, bytes);
      uint8_t* to = column + s * kResidualSegmentBytes;
      if ((mask[w] >> (s % 64) & 1) == 0) {
        std::memset(to, 0, n);
        continue;
      }
      if (packed.size() - at < n) return false;
      std::memcpy(to, packed.data() + at, n);
      at += n;
    }
  }
  return at == packed.size();
}

Predictor choosePredictor(const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes, uint32_t word) {
  if (!b) return Predictor::Delta;
  return word == 8 ? choose<uint64_t>(x, a, b, bytes) : choose<uint32_t>(x, a, b, bytes);
}

}  // namespace reel::schema
