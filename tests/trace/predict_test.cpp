// Residual columns (trace.fbs Bucket.predictors, reel/schema/predict.h): every residual restores the
// exact bytes, whatever they are, and a steadily moving value costs few bits.

#include "reel/schema/predict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>
#include <vector>

namespace reel::schema {
namespace {

std::vector<uint8_t> randomBytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

TEST(Predict, EveryResidualRestoresTheExactBytes) {
  std::mt19937 rng(7);
  for (const uint32_t word : {4u, 8u}) {
    for (const Predictor p : {Predictor::Delta, Predictor::Linear}) {
      for (const size_t bytes : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{7}, size_t{8}, size_t{9},
                                 size_t{63}, size_t{4096 + 5}}) {
        SCOPED_TRACE("word " + std::to_string(word) + ", predictor " + std::to_string(int(p)) + ", " +
                     std::to_string(bytes) + " bytes");
        const auto x = randomBytes(rng, bytes), a = randomBytes(rng, bytes), b = randomBytes(rng, bytes);
        std::vector<uint8_t> r(bytes);
        residuals(p, x.data(), a.data(), b.data(), bytes, word, r.data());
        restore(p, r.data(), a.data(), b.data(), bytes, word);
        EXPECT_EQ(r, x);
      }
    }
  }
}

// Floats that move steadily (an animation) leave residuals of few significant bits; unchanged words
// leave zeros.
TEST(Predict, SteadyMotionLeavesSmallResidualsAndStillnessZeros) {
  constexpr size_t kFloats = 256;
  std::vector<float> f0(kFloats), f1(kFloats), f2(kFloats);
  for (size_t i = 0; i < kFloats; ++i) {
    const float base = 1.0f + float(i) * 0.01f;
    f0[i] = base + 0.0010f * float(i % 5 + 1);
    f1[i] = base + 0.0011f * float(i % 5 + 1);
    f2[i] = base + 0.0012f * float(i % 5 + 1);
  }
  const auto* x = reinterpret_cast<const uint8_t*>(f2.data());
  const auto* a = reinterpret_cast<const uint8_t*>(f1.data());
  const auto* b = reinterpret_cast<const uint8_t*>(f0.data());
  const size_t bytes = kFloats * sizeof(float);
  std::vector<uint8_t> delta(bytes), linear(bytes), still(bytes);
  residuals(Predictor::Delta, x, a, b, bytes, 4, delta.data());
  residuals(Predictor::Linear, x, a, b, bytes, 4, linear.data());
  residuals(Predictor::Delta, a, a, b, bytes, 4, still.data());
  auto bits = [](const std::vector<uint8_t>& r) {
    uint64_t n = 0;
    for (size_t i = 0; i < r.size(); i += 4) {
      uint32_t w;
      std::memcpy(&w, r.data() + i, 4);
      n += std::bit_width(w);
    }
    return n;
  };
  EXPECT_EQ(bits(still), 0u);
  EXPECT_LT(bits(linear), bits(delta));
  EXPECT_LT(bits(linear), kFloats * 10) << "under 10 significant bits a float";
  EXPECT_EQ(choosePredictor(x, a, b, bytes, 4), Predictor::Linear);
  EXPECT_EQ(choosePredictor(x, a, nullptr, bytes, 4), Predictor::Delta) << "one frame before: delta only";
}

TEST(Predict, ColumnsPackTheirPredictorsInTwoBitsEach) {
  uint8_t p = 0;
  p = withPredictor(p, PredictedColumn::Payload, Predictor::Linear);
  p = withPredictor(p, PredictedColumn::Aux, Predictor::Delta);
  EXPECT_EQ(p, 0x18);  // trace.fbs: keys bits 0-1, payload 2-3, aux 4-5
  EXPECT_EQ(predictorOf(p, PredictedColumn::Keys), Predictor::Plain);
  EXPECT_EQ(predictorOf(p, PredictedColumn::Payload), Predictor::Linear);
  EXPECT_EQ(predictorOf(p, PredictedColumn::Aux), Predictor::Delta);
}

// A residual column kept as its segments (format 1.7): the first segment and every segment with a byte
// other than zero are stored, in order, and put back they make the column exactly, at every length
// around the segment and mask-word boundaries.
TEST(Predict, ResidualSegmentsKeepTheFirstAndTheNonZeroAndRestoreTheColumn) {
  std::mt19937 rng(11);
  for (const size_t bytes : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{64 * 64},
                             size_t{64 * 64 + 1}, size_t{64 * 64 * 3 - 7}, size_t{100000}}) {
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    // Zero but for a few bytes, some of them in the last (possibly short) segment.
    std::vector<uint8_t> column(bytes, 0);
    for (int i = 0; i < 20; ++i) column[rng() % bytes] = static_cast<uint8_t>(1 + rng() % 255);
    column[bytes - 1] = 7;
    std::vector<uint64_t> mask(residualMaskWords(bytes));
    const size_t packedBytes = markResidualSegments(column.data(), bytes, mask.data());
    size_t expected = 0;
    for (size_t s = 0; s < residualSegments(bytes); ++s) {
      const size_t begin = s * kResidualSegmentBytes, end = std::min(bytes, begin + kResidualSegmentBytes);
      const bool nonZero =
          std::any_of(column.begin() + begin, column.begin() + end, [](uint8_t b) { return b; });
      const bool marked = mask[s / 64] >> (s % 64) & 1;
      EXPECT_EQ(marked, s == 0 || nonZero) << "segment " << s;
      if (marked) expected += end - begin;
    }
    EXPECT_EQ(packedBytes, expected);
    EXPECT_LT(packedBytes, std::max<size_t>(bytes, 64 * 22)) << "only what is not zero, and the first";
    std::vector<uint8_t> packed(packedBytes);
    packResidualSegments(column.data(), bytes, mask.data(), packed.data());
    std::vector<uint8_t> back(bytes, 0xAA);
    ASSERT_TRUE(unpackResidualSegments(mask, packed, bytes, back.data()));
    EXPECT_EQ(back, column);
  }
}

// A column all zero (the encoder's shortcut for a column repeating the frame before's) is marked as
// markResidualSegments marks it, without being read: the same mask words (stale bits cleared) and the
// same packed size, at lengths around the segment and mask-word boundaries.
TEST(Predict, AZeroColumnIsMarkedAsScanningItMarksIt) {
  for (const size_t bytes : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{64 * 64},
                             size_t{64 * 64 + 1}, size_t{64 * 64 * 3 - 7}}) {
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    const std::vector<uint8_t> zeros(bytes, 0);
    std::vector<uint64_t> scanned(residualMaskWords(bytes)), known(residualMaskWords(bytes), ~uint64_t{0});
    const size_t scannedBytes = markResidualSegments(zeros.data(), bytes, scanned.data());
    EXPECT_EQ(markZeroResidualSegments(bytes, known.data()), scannedBytes);
    EXPECT_EQ(known, scanned);
  }
}

// A mask and packed bytes that do not describe the column are refused, not read past.
TEST(Predict, ResidualSegmentsThatDoNotFitTheColumnAreRefused) {
  const size_t bytes = 64 * 70 + 10;  // 71 segments: two mask words, the last segment 10 bytes
  std::vector<uint8_t> column(bytes, 0);
  column[64 * 5] = 1;
  column[bytes - 1] = 2;
  std::vector<uint64_t> mask(residualMaskWords(bytes));
  ASSERT_EQ(mask.size(), 2u);
  std::vector<uint8_t> packed(markResidualSegments(column.data(), bytes, mask.data()));
  ASSERT_EQ(packed.size(), 64u + 64u + 10u);
  packResidualSegments(column.data(), bytes, mask.data(), packed.data());
  std::vector<uint8_t> out(bytes);
  ASSERT_TRUE(unpackResidualSegments(mask, packed, bytes, out.data()));

  std::vector<uint8_t> shorter(packed.begin(), packed.end() - 1), longer(packed);
  longer.push_back(0);
  EXPECT_FALSE(unpackResidualSegments(mask, shorter, bytes, out.data())) << "packed bytes short of the marks";
  EXPECT_FALSE(unpackResidualSegments(mask, longer, bytes, out.data())) << "packed bytes beyond the marks";
  const std::vector<uint64_t> oneWord{mask[0]};
  EXPECT_FALSE(unpackResidualSegments(oneWord, packed, bytes, out.data())) << "a mask of another length";
  std::vector<uint64_t> pastTheEnd = mask;
  pastTheEnd[1] |= uint64_t{1} << 7;  // segment 71: past the last
  EXPECT_FALSE(unpackResidualSegments(pastTheEnd, packed, bytes, out.data()))
      << "a bit past the last segment";
  EXPECT_FALSE(unpackResidualSegments({}, {}, bytes, out.data())) << "no mask for a column of bytes";
  EXPECT_TRUE(unpackResidualSegments({}, {}, 0, out.data())) << "an empty column has an empty mask";
}

}  // namespace
}  // namespace reel::schema
