// Chunk compression (reel/schema/compression.h): the match table that CompressionSettings::kAutoHashLog
// chooses chunk by chunk.

#include "reel/schema/compression.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace reel::schema {
namespace {

using trace::CompressionSettings;

// 2 MiB of noise, then its 256-byte blocks again in another order: most of the chunk matches its first
// half, a frame's size back and at a new distance block by block, which only a large match table keeps
// in view.
std::vector<uint8_t> repeatedFrame() {
  constexpr size_t kHalf = 2u << 20, kBlock = 256;
  std::mt19937 rng(11);
  std::vector<uint8_t> bytes(2 * kHalf);
  for (size_t i = 0; i < kHalf; ++i) bytes[i] = static_cast<uint8_t>(rng());
  std::vector<size_t> order(kHalf / kBlock);
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t b = 0; b < order.size(); ++b)
    std::copy_n(bytes.begin() + order[b] * kBlock, kBlock, bytes.begin() + kHalf + b * kBlock);
  return bytes;
}

std::vector<uint8_t> compressed(int hashLog, const std::vector<uint8_t>& bytes, uint32_t frames) {
  CompressionSettings settings;
  settings.hashLog = hashLog;
  auto compressor = ChunkCompressor::create(settings);
  EXPECT_TRUE(compressor) << compressor.error().message;
  std::vector<uint8_t> out;
  auto ok = compressor->compressFrame(bytes.data(), bytes.size(), out, frames);
  EXPECT_TRUE(ok) << ok.error().message;
  return out;
}

TEST(ChunkCompression, AutoMatchTableIsTheLargeOneForLargeFramesAndTheLevelsOwnForSmallOnes) {
  const std::vector<uint8_t> bytes = repeatedFrame();
  const auto large = compressed(CompressionSettings::kLargeFrameHashLog, bytes, 1);
  const auto levels = compressed(0, bytes, 1);
  ASSERT_NE(large, levels) << "the two tables compress this chunk alike: the test cannot tell them apart";
  EXPECT_LT(large.size(), levels.size()) << "the large table finds the frame before";
  // One frame of 4 MiB: at least kLargeFrameBytes a frame.
  EXPECT_EQ(compressed(CompressionSettings::kAutoHashLog, bytes, 1), large);
  // The same bytes as 16 frames of 256 KiB.
  EXPECT_EQ(compressed(CompressionSettings::kAutoHashLog, bytes, 16), levels);
}

// A chunk of kLargeChunkBytes or more takes the large table whatever its frames average (the resources
// alive at a capture's start share the first chunk with small frames).
TEST(ChunkCompression, AutoMatchTableIsTheLargeOneForALargeChunkOfSmallFrames) {
  std::vector<uint8_t> bytes = repeatedFrame();
  while (bytes.size() < CompressionSettings::kLargeChunkBytes) {
    const std::vector<uint8_t> again = repeatedFrame();
    bytes.insert(bytes.end(), again.begin(), again.end());
  }
  const auto large = compressed(CompressionSettings::kLargeFrameHashLog, bytes, 1);
  ASSERT_NE(large, compressed(0, bytes, 1)) << "the two tables compress this chunk alike";
  EXPECT_EQ(compressed(CompressionSettings::kAutoHashLog, bytes, 64), large) << "64 frames of 128 KiB";
}

TEST(ChunkCompression, AutoMatchTableFollowsEachChunk) {
  // One compressor, as a compression thread keeps it: small, large, then small chunks again.
  const std::vector<uint8_t> bytes = repeatedFrame();
  CompressionSettings settings;
  auto compressor = ChunkCompressor::create(settings);
  ASSERT_TRUE(compressor);
  std::vector<uint8_t> small1, large, small2;
  ASSERT_TRUE(compressor->compressFrame(bytes.data(), bytes.size(), small1, 16));
  ASSERT_TRUE(compressor->compressFrame(bytes.data(), bytes.size(), large, 1));
  ASSERT_TRUE(compressor->compressFrame(bytes.data(), bytes.size(), small2, 16));
  EXPECT_EQ(small1, compressed(0, bytes, 16));
  EXPECT_EQ(large, compressed(CompressionSettings::kLargeFrameHashLog, bytes, 1));
  EXPECT_EQ(small2, small1);
}

}  // namespace
}  // namespace reel::schema
