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

// ---- several queues (queues.h) ----

// A graphics and a compute queue, each recording a segment; the graphics queue's values run ahead.
struct TwoQueues {
  QueueSegment graphics, compute;
  BarrierBatch onGraphics, onCompute;
  TwoQueues() {
    graphics.kind = QueueKind::Graphics;
    graphics.serial = 5;
    compute.kind = QueueKind::Compute;
    compute.serial = 3;
    compute.stages = supportedStages(QueueKind::Compute);
    compute.access = supportedAccess(QueueKind::Compute);
    onGraphics.setSegment(&graphics);
    onCompute.setSegment(&compute);
  }
  static constexpr size_t kG = 0, kC = 1;
};

constexpr Use kComputeRead{VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
                           false};

// A transfer queue copies image regions at its family's granularity: whole texels (1x1x1) anywhere, blocks
// at multiples of the block or up to the mip's edge, whole mips only at 0x0x0.
TEST(QueueBarriers, ATransferQueueCopiesOnlyRegionsItsGranularityAllows) {
  EXPECT_TRUE(copyFitsGranularity({1, 1, 1}, 100, 60, 3, 7, 5, 9));
  EXPECT_TRUE(copyFitsGranularity({16, 16, 1}, 100, 60, 16, 32, 32, 16));
  EXPECT_TRUE(copyFitsGranularity({16, 16, 1}, 100, 60, 96, 48, 4, 12)) << "up to the edge";
  EXPECT_FALSE(copyFitsGranularity({16, 16, 1}, 100, 60, 8, 0, 16, 16)) << "an offset off the block";
  EXPECT_FALSE(copyFitsGranularity({16, 16, 1}, 100, 60, 0, 0, 20, 16)) << "an extent off the block";
  EXPECT_TRUE(copyFitsGranularity({0, 0, 0}, 100, 60, 0, 0, 100, 60));
  EXPECT_FALSE(copyFitsGranularity({0, 0, 0}, 100, 60, 0, 0, 99, 60)) << "0: whole mips only";
}

TEST(QueueBarriers, AReadOnAnotherQueueWaitsForTheWriteAndStartsFromEverything) {
  TwoQueues q;
  Buffer buffer;
  q.onGraphics.use(buffer, kTransferWrite);
  EXPECT_EQ(buffer.queues.write[TwoQueues::kG], 5u);
  q.onCompute.use(buffer, kComputeRead);
  EXPECT_EQ(q.compute.needs[TwoQueues::kG], 5u) << "the compute segment waits for the graphics write";
  ASSERT_EQ(q.onCompute.queuedBuffers().size(), 1u);
  const VkBufferMemoryBarrier2& b = q.onCompute.queuedBuffers()[0];
  EXPECT_EQ(b.srcStageMask, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
  EXPECT_EQ(b.srcAccessMask, VK_ACCESS_2_MEMORY_WRITE_BIT);
  EXPECT_EQ(b.dstStageMask, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
  EXPECT_EQ(buffer.queues.owner, QueueKind::Compute);
  EXPECT_EQ(q.graphics.needs[TwoQueues::kC], 0u) << "graphics waits for nothing";
}

// The question a pass's prologue asks before it settles its reads (whether to split the segment there):
// the same answer use() would give, without noting anything.
TEST(QueueBarriers, AskingWhetherAUseWaitsForAnotherQueueNotesNothing) {
  TwoQueues q;
  Buffer buffer;
  q.onGraphics.use(buffer, kTransferWrite);
  EXPECT_TRUE(waitsForAnotherQueue(buffer, q.compute, kComputeRead)) << "a read of the graphics write";
  EXPECT_EQ(q.compute.needs[TwoQueues::kG], 0u) << "asked, not noted";
  q.onCompute.use(buffer, kComputeRead);
  EXPECT_FALSE(waitsForAnotherQueue(buffer, q.compute, kComputeRead)) << "the segment needs it already";
  q.compute.waited[TwoQueues::kG] = 5;
  q.compute.needs[TwoQueues::kG] = 0;
  EXPECT_FALSE(waitsForAnotherQueue(buffer, q.compute, kComputeRead)) << "waited for already";
  EXPECT_FALSE(waitsForAnotherQueue(buffer, q.graphics, kComputeRead)) << "its own queue's write";
  EXPECT_TRUE(waitsForAnotherQueue(buffer, q.graphics, kTransferWrite)) << "a write after the compute read";
}

TEST(QueueBarriers, AValueAlreadyWaitedForIsNotWaitedForAgain) {
  TwoQueues q;
  Buffer buffer;
  q.onGraphics.use(buffer, kTransferWrite);
  q.compute.waited[TwoQueues::kG] = 5;
  q.onCompute.use(buffer, kComputeRead);
  EXPECT_EQ(q.compute.needs[TwoQueues::kG], 0u);
}

TEST(QueueBarriers, AWriteAfterAnotherQueuesReadWaitsForTheRead) {
  TwoQueues q;
  Buffer buffer;
  q.onCompute.use(buffer, kComputeRead);
  EXPECT_EQ(q.compute.needs[TwoQueues::kG], 0u) << "never written: nothing to wait for";
  q.onGraphics.use(buffer, kTransferWrite);
  EXPECT_EQ(q.graphics.needs[TwoQueues::kC], 3u) << "write after read across queues";
}

TEST(QueueBarriers, ReadsOnBothQueuesWaitForNothing) {
  TwoQueues q;
  Buffer buffer;
  q.onGraphics.use(buffer, kFragmentUniform);
  q.onCompute.use(buffer, kComputeRead);
  q.onGraphics.use(buffer, kVertexRead);
  EXPECT_EQ(q.graphics.needs[TwoQueues::kC], 0u);
  EXPECT_EQ(q.compute.needs[TwoQueues::kG], 0u);
}

TEST(QueueBarriers, StagesTheComputeQueueLacksAreLeftOut) {
  TwoQueues q;
  Texture texture;
  q.onGraphics.use(texture, kColorWrite);
  const Use boundEverywhere{VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, false,
                            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  q.onCompute.use(texture, boundEverywhere);
  ASSERT_EQ(q.onCompute.queuedImages().size(), 1u);
  const VkImageMemoryBarrier2& b = q.onCompute.queuedImages()[0];
  EXPECT_EQ(b.dstStageMask, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
  EXPECT_EQ(b.srcStageMask, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT) << "chained after the semaphore wait";
  EXPECT_EQ(b.oldLayout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL) << "the contents are kept";
  EXPECT_EQ(b.newLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  EXPECT_EQ(q.compute.needs[TwoQueues::kG], 5u);
  EXPECT_EQ(texture.queues.write[TwoQueues::kC], 3u) << "a layout change counts as a write";
}

TEST(QueueBarriers, BackOnTheFirstQueueItsOwnWriteIsMadeVisibleAgain) {
  TwoQueues q;
  Buffer buffer;
  q.onGraphics.use(buffer, kComputeWrite);
  q.onCompute.use(buffer, kComputeRead);
  q.onGraphics.clear();
  q.graphics.serial = 6;
  q.onGraphics.use(buffer, kVertexRead);
  EXPECT_FALSE(q.onGraphics.empty()) << "the semaphore made the write visible to compute, not to graphics";
  EXPECT_EQ(q.graphics.needs[TwoQueues::kC], 0u) << "compute only read it";
}

TEST(QueueBarriers, BackOnAQueueAfterTheOtherOnlyReadItsOwnStateStillHolds) {
  TwoQueues q;
  Buffer buffer;
  q.onGraphics.use(buffer, kComputeWrite);
  q.onGraphics.use(buffer, kVertexRead);  // the write made visible to vertex input
  q.onCompute.use(buffer, kComputeRead);
  q.onGraphics.clear();
  q.graphics.serial = 6;
  q.onGraphics.use(buffer, kVertexRead);
  EXPECT_TRUE(q.onGraphics.empty()) << "compute only read it: graphics goes on from its parked state";
  q.onGraphics.use(buffer, kTransferWrite);
  EXPECT_EQ(q.graphics.needs[TwoQueues::kC], 3u) << "the write waits for compute's read";
  q.onCompute.clear();
  q.compute.serial = 4;
  q.onCompute.use(buffer, kComputeRead);
  ASSERT_EQ(q.onCompute.queuedBuffers().size(), 1u) << "graphics wrote since: compute's parked state is gone";
  EXPECT_EQ(q.onCompute.queuedBuffers()[0].srcStageMask, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
}

TEST(QueueBarriers, AResourceIsCurrentOnlyForReadsInTheSegmentThatLastUsedIt) {
  TwoQueues q;
  Buffer buffer;
  q.onGraphics.use(buffer, kVertexRead);
  EXPECT_TRUE(isCurrent(buffer.queues, q.graphics, kVertexRead));
  EXPECT_FALSE(isCurrent(buffer.queues, q.graphics, kTransferWrite)) << "writes always go through use()";
  EXPECT_FALSE(isCurrent(buffer.queues, q.compute, kComputeRead));
  q.graphics.serial = 7;  // a later segment: its first use must be noted
  EXPECT_FALSE(isCurrent(buffer.queues, q.graphics, kVertexRead));
}

// ---- transient textures sharing memory (AliasMemory) ----

TEST(AliasBarriers, EachHandOverOfSharedMemoryStartsFromUndefinedAndWaitsForEverything) {
  BarrierBatch batch;
  auto memory = std::make_shared<AliasMemory>();
  Texture a, b;
  a.handle = 1;
  b.handle = 2;
  a.alias = b.alias = memory;
  batch.use(a, kColorWrite);
  batch.clear();
  batch.use(a, kSampled);
  ASSERT_EQ(batch.queuedImages().size(), 1u);
  EXPECT_EQ(batch.queuedImages()[0].srcStageMask, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT)
      << "a's own write: an ordinary barrier";
  batch.clear();
  batch.use(b, kTransferWrite);  // b takes the memory over (an upload, say)
  ASSERT_EQ(batch.queuedImages().size(), 1u);
  EXPECT_EQ(batch.queuedImages()[0].srcStageMask, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
  EXPECT_EQ(batch.queuedImages()[0].oldLayout, VK_IMAGE_LAYOUT_UNDEFINED) << "what b held is gone";
  batch.clear();
  batch.use(a, kSampled);  // a again, after b wrote the memory: its own state no longer holds
  ASSERT_EQ(batch.queuedImages().size(), 1u) << "a read of the same layout still needs the hand-over";
  EXPECT_EQ(batch.queuedImages()[0].srcStageMask, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
  EXPECT_EQ(batch.queuedImages()[0].oldLayout, VK_IMAGE_LAYOUT_UNDEFINED);
  EXPECT_FALSE(handedOver(a));
  EXPECT_TRUE(handedOver(b));
}

}  // namespace
}  // namespace reel::vk
