// BarrierBatch's hazard rules, without a GPU: which uses need a barrier, and what state they leave.
#include "barriers.h"

#include <gtest/gtest.h>

namespace reel::vk {
namespace {

constexpr Use kVertexRead{VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT,
                          VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT, false};
constexpr Use kFragmentUniform{VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_UNIFORM_READ_BIT, false};
constexpr Use kTransferWrite{VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, true,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
constexpr Use kComputeWrite{VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                            true};
constexpr Use kSampled{VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, false,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
constexpr Use kColorWrite{VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                          VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, true,
                          VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};

// Whether `use` queued a barrier (the batch is cleared before each use).
bool needsBarrier(BarrierBatch& batch, Buffer& buffer, const Use& use) {
  batch.clear();
  batch.use(buffer, use);
  return !batch.empty();
}
bool needsBarrier(BarrierBatch& batch, Texture& texture, const Use& use) {
  batch.clear();
  batch.use(texture, use);
  return !batch.empty();
}

TEST(Barriers, ReadsOfANeverWrittenBufferNeedNothing) {
  BarrierBatch batch;
  Buffer buffer;
  EXPECT_FALSE(needsBarrier(batch, buffer, kVertexRead));
  EXPECT_FALSE(needsBarrier(batch, buffer, kFragmentUniform));
  EXPECT_TRUE(needsBarrier(batch, buffer, kTransferWrite)) << "write after read: the reads must finish first";
}

TEST(Barriers, ReadAfterWriteThenFreeUntilANewStageReads) {
  BarrierBatch batch;
  Buffer buffer;
  EXPECT_FALSE(needsBarrier(batch, buffer, kComputeWrite)) << "first use of a fresh buffer";
  EXPECT_TRUE(needsBarrier(batch, buffer, kVertexRead)) << "read after write";
  EXPECT_FALSE(needsBarrier(batch, buffer, kVertexRead)) << "the write is visible to this stage now";
  EXPECT_TRUE(needsBarrier(batch, buffer, kFragmentUniform))
      << "visible to vertex input only, not to fragment";
  EXPECT_FALSE(needsBarrier(batch, buffer, kFragmentUniform));
  EXPECT_TRUE(needsBarrier(batch, buffer, kComputeWrite)) << "write after read";
  EXPECT_TRUE(needsBarrier(batch, buffer, kComputeWrite)) << "write after write";
}

TEST(Barriers, SettlingMakesEveryBoundReadFree) {
  BarrierBatch batch;
  Buffer buffer;
  const Use all{VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT, false};
  (void)needsBarrier(batch, buffer, kTransferWrite);
  EXPECT_FALSE(isSettled(buffer.sync, all, false));
  EXPECT_TRUE(needsBarrier(batch, buffer, all));
  EXPECT_TRUE(isSettled(buffer.sync, all, false));
  EXPECT_TRUE(isSettled(buffer.sync, kVertexRead, false));
  EXPECT_TRUE(isSettled(buffer.sync, kFragmentUniform, false));
  EXPECT_FALSE(isSettled(buffer.sync, kTransferWrite, false));
}

TEST(Barriers, ImageLayoutsFollowTheUses) {
  BarrierBatch batch;
  Texture texture;
  EXPECT_TRUE(needsBarrier(batch, texture, kTransferWrite)) << "UNDEFINED -> TRANSFER_DST";
  EXPECT_EQ(texture.sync.layout, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  EXPECT_TRUE(needsBarrier(batch, texture, kSampled));
  EXPECT_EQ(texture.sync.layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  EXPECT_FALSE(needsBarrier(batch, texture, kSampled));
  EXPECT_TRUE(needsBarrier(batch, texture, kColorWrite)) << "sampled -> attachment";
  EXPECT_TRUE(needsBarrier(batch, texture, kColorWrite)) << "attachment write after write (a later pass)";
  EXPECT_EQ(texture.sync.layout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
}

TEST(Barriers, ADiscardingTransitionStartsFromUndefined) {
  BarrierBatch batch;
  Texture texture;
  texture.image = OwnedImage();
  batch.use(texture, kSampled);
  batch.clear();
  batch.use(texture, kColorWrite, /*discard=*/true);
  EXPECT_FALSE(batch.empty());
  EXPECT_EQ(texture.sync.layout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
}

}  // namespace
}  // namespace reel::vk
