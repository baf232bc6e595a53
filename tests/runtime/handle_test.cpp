#include "reel/runtime/handle.h"

#include <gtest/gtest.h>

#include <set>

#include "reel/runtime/detail/resource_table.h"

namespace reel {
namespace {

TEST(Handle, PacksIndexAndGeneration) {
  const auto h = BufferHandle::make(0xABCDE, 0x123);
  EXPECT_EQ(h.index(), 0xABCDEu);
  EXPECT_EQ(h.generation(), 0x123u);
  EXPECT_TRUE(BufferHandle{}.isNull());
  static_assert(sizeof(BufferHandle) == 4);
}

TEST(HandlePool, DetectsStaleAndForeignHandles) {
  HandlePool<ResourceKind::Texture> pool;
  pool.allocate();  // slot 0: its generation-0 handle would be the null handle
  const TextureHandle a = pool.allocate();
  EXPECT_EQ(pool.state(a), HandleState::Live);
  EXPECT_EQ(pool.state(TextureHandle{}), HandleState::Null);
  EXPECT_EQ(pool.state(TextureHandle::make(500, 1)), HandleState::Foreign);  // never allocated
  EXPECT_EQ(pool.state(TextureHandle::make(a.index(), 0)), HandleState::Foreign);
  EXPECT_TRUE(pool.release(a));
  EXPECT_EQ(pool.state(a), HandleState::Stale);
  EXPECT_FALSE(pool.release(a)) << "double free must be refused";
  const TextureHandle b = pool.allocate();
  EXPECT_EQ(b.index(), a.index()) << "the freed slot is recycled";
  EXPECT_NE(b.generation(), a.generation());
  EXPECT_EQ(pool.state(a), HandleState::Stale) << "the old handle stays stale after its slot is reused";
  EXPECT_EQ(pool.state(b), HandleState::Live);
}

TEST(HandlePool, RecyclesFirstInFirstOutAndSkipsGenerationZero) {
  HandlePool<ResourceKind::Buffer> pool;
  std::vector<BufferHandle> handles;
  for (int i = 0; i < 4; ++i) handles.push_back(pool.allocate());
  for (auto h : handles) ASSERT_TRUE(pool.release(h));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(pool.allocate().index(), handles[i].index());

  HandlePool<ResourceKind::Buffer> one(1);
  BufferHandle h = one.allocate();
  std::set<uint32_t> generations;
  for (uint32_t i = 0; i < (1u << 12) + 10; ++i) {
    ASSERT_NE(h.generation(), 0u);
    generations.insert(h.generation());
    ASSERT_TRUE(one.release(h));
    h = one.allocate();
  }
  EXPECT_EQ(generations.size(), (1u << 12) - 1) << "generations cycle through every non-zero value";
}

TEST(HandlePool, RetiredSlotIsNotReusedBeforeRecycle) {
  HandlePool<ResourceKind::Pipeline> pool;
  const PipelineHandle a = pool.allocate();
  ASSERT_TRUE(pool.retire(a));
  EXPECT_EQ(pool.state(a), HandleState::Stale);
  const PipelineHandle b = pool.allocate();
  EXPECT_NE(b.index(), a.index());
  pool.recycle(a);
  pool.release(b);
  EXPECT_EQ(pool.allocate().index(), a.index());
}

TEST(HandlePool, ExhaustionReturnsNull) {
  HandlePool<ResourceKind::Sampler> pool(2);
  EXPECT_FALSE(pool.allocate().isNull());
  EXPECT_FALSE(pool.allocate().isNull());
  EXPECT_TRUE(pool.allocate().isNull());
  EXPECT_EQ(pool.liveCount(), 2u);
}

TEST(ResourceTable, FindsOnlyTheGenerationItHolds) {
  ResourceTable<ResourceKind::Buffer, int> table;
  const auto h = BufferHandle::make(3, 1);
  EXPECT_TRUE(table.insert(h, 7));
  EXPECT_FALSE(table.insert(h, 8)) << "a live slot cannot be created twice";
  ASSERT_NE(table.find(h), nullptr);
  EXPECT_EQ(*table.find(h), 7);
  EXPECT_EQ(table.find(BufferHandle::make(3, 2)), nullptr);
  EXPECT_EQ(table.find(BufferHandle::make(99, 1)), nullptr);
  EXPECT_EQ(table.take(h).value_or(-1), 7);
  EXPECT_EQ(table.find(h), nullptr);
  EXPECT_EQ(table.liveCount(), 0u);
}

}  // namespace
}  // namespace reel

namespace reel {
namespace {

TEST(HandlePool, AdoptMakesAChosenHandleLive) {
  HandlePool<ResourceKind::Buffer> pool;
  const auto chosen = BufferHandle::make(7, 3);
  EXPECT_TRUE(pool.adopt(chosen));
  EXPECT_EQ(pool.state(chosen), HandleState::Live);
  EXPECT_FALSE(pool.adopt(chosen)) << "a live slot cannot be adopted again";
  EXPECT_FALSE(pool.adopt(BufferHandle::make(7, 4)));
  EXPECT_FALSE(pool.adopt(BufferHandle{}));
  // The slots below the adopted one are free for ordinary allocation; the adopted one is not.
  std::set<uint32_t> indices;
  for (int i = 0; i < 7; ++i) indices.insert(pool.allocate().index());
  EXPECT_EQ(indices, (std::set<uint32_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(pool.allocate().index(), 8u);
  EXPECT_TRUE(pool.release(chosen));
  EXPECT_EQ(pool.state(chosen), HandleState::Stale);
}

}  // namespace
}  // namespace reel

namespace reel {
namespace {

TEST(FormatHandle, KindSlotAndGenerationOneWayEverywhere) {
  EXPECT_EQ(formatHandle(TextureHandle::make(3, 1)), "texture#3.1");
  EXPECT_EQ(formatHandle(RenderTargetHandle::make(kHandleIndexMask, 4095)), "render_target#1048575.4095");
  EXPECT_EQ(formatHandle(BufferHandle{}), "null");
  EXPECT_EQ(formatHandle(ResourceKind::Sampler, SamplerHandle::make(7, 2).value), "sampler#7.2");
}

}  // namespace
}  // namespace reel
