// Memory sub-allocation: placement in a block (alignment, bufferImageGranularity, reuse, merging), blocks
// on a real device (shared, freed when empty with one spare, dedicated allocations), and a renderer with
// 10,000 resources that stays far below the smallest maxMemoryAllocationCount Vulkan allows.

#include "memory_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "fixture.h"

namespace reel::test {
namespace {

using vk::BlockSpace;
using vk::Tiling;

constexpr VkDeviceSize kNone = UINT64_MAX;

TEST(BlockSpace, AlignsEachRangeAndKeepsThePaddingFree) {
  BlockSpace space(1 << 16);
  EXPECT_EQ(space.allocate(10, 1, Tiling::Linear), 0u);
  EXPECT_EQ(space.allocate(100, 256, Tiling::Linear), 256u);
  EXPECT_EQ(space.allocate(8, 64, Tiling::Linear), 64u);  // the padding before 256 serves a later range
  EXPECT_EQ(space.used(), 118u);
  EXPECT_EQ(space.ranges(), 3u);
}

TEST(BlockSpace, ReusesAFreedRangeAndMergesNeighbours) {
  BlockSpace space(4500);
  const VkDeviceSize a = space.allocate(1000, 1, Tiling::Linear);
  const VkDeviceSize b = space.allocate(1000, 1, Tiling::Linear);
  const VkDeviceSize c = space.allocate(1000, 1, Tiling::Linear);
  ASSERT_NE(c, kNone);
  EXPECT_EQ(space.allocate(1501, 1, Tiling::Linear), kNone);  // 1500 bytes left at the end
  space.free(b);
  EXPECT_EQ(space.allocate(1000, 1, Tiling::Linear), b);
  space.free(a);
  space.free(b);  // merges with a's range
  EXPECT_EQ(space.allocate(2000, 1, Tiling::Linear), a);
  space.free(a);
  space.free(c);
  EXPECT_TRUE(space.empty());
  EXPECT_EQ(space.freeRanges(), 1u);  // all merged back into one
  EXPECT_EQ(space.allocate(4500, 1, Tiling::Linear), 0u);
}

TEST(BlockSpace, TakesTheSmallestFreeRangeThatFits) {
  BlockSpace space(10000);
  std::vector<VkDeviceSize> at;
  for (VkDeviceSize size : {3000, 100, 500, 100, 1000, 100})
    at.push_back(space.allocate(size, 1, Tiling::Linear));
  space.free(at[0]);  // 3000 free at 0
  space.free(at[2]);  // 500 free
  space.free(at[4]);  // 1000 free
  EXPECT_EQ(space.allocate(400, 1, Tiling::Linear), at[2]);
  EXPECT_EQ(space.allocate(900, 1, Tiling::Linear), at[4]);
  EXPECT_EQ(space.allocate(2000, 1, Tiling::Linear), at[0]);
}

TEST(BlockSpace, KeepsBuffersAndImagesOnSeparateGranularityPages) {
  BlockSpace space(1 << 16, 4096);
  EXPECT_EQ(space.allocate(100, 16, Tiling::Optimal), 0u);
  EXPECT_EQ(space.allocate(100, 16, Tiling::Linear), 4096u);  // not on the image's page
  EXPECT_EQ(space.allocate(100, 16, Tiling::Optimal), 112u);  // images share theirs
  // 3884 bytes are free at 212, but all on the images' page: the buffer goes after the other buffer.
  EXPECT_EQ(space.allocate(100, 16, Tiling::Linear), 4208u);
}

// Random allocations and frees of both tilings; after each step, every live range is aligned, inside the
// block, overlaps none, and shares no granularity page with a range of the other tiling.
TEST(BlockSpace, RandomUseKeepsEveryRule) {
  constexpr VkDeviceSize kSize = 1 << 20, kGranularity = 1024;
  BlockSpace space(kSize, kGranularity);
  struct Live {
    VkDeviceSize offset, size;
    Tiling tiling;
  };
  std::vector<Live> live;
  std::mt19937 random(16);
  VkDeviceSize used = 0;
  for (int step = 0; step < 20000; ++step) {
    if (!live.empty() && (random() % 3 == 0 || live.size() > 300)) {
      const size_t i = random() % live.size();
      space.free(live[i].offset);
      used -= live[i].size;
      live.erase(live.begin() + static_cast<ptrdiff_t>(i));
    } else {
      const VkDeviceSize size = 1 + random() % 6000;
      const VkDeviceSize alignment = VkDeviceSize{1} << (random() % 9);
      const Tiling tiling = random() % 2 ? Tiling::Linear : Tiling::Optimal;
      const VkDeviceSize offset = space.allocate(size, alignment, tiling);
      if (offset == kNone) continue;
      ASSERT_EQ(offset % alignment, 0u);
      ASSERT_LE(offset + size, kSize);
      for (const Live& other : live) {
        ASSERT_TRUE(offset + size <= other.offset || other.offset + other.size <= offset) << "overlap";
        if (other.tiling != tiling) {
          const bool before = offset < other.offset;
          const VkDeviceSize first = before ? offset + size - 1 : other.offset + other.size - 1;
          const VkDeviceSize second = before ? other.offset : offset;
          ASSERT_LT(first / kGranularity, second / kGranularity) << "a buffer and an image share a page";
        }
      }
      live.push_back({offset, size, tiling});
      used += size;
    }
    ASSERT_EQ(space.used(), used);
    ASSERT_EQ(space.ranges(), live.size());
  }
  for (const Live& l : live) space.free(l.offset);
  EXPECT_EQ(space.freeRanges(), 1u);
}

// ---------------------------------------------------------------------------------------------------------
// On lavapipe, through an allocator of its own over the device's functions.

class MemoryAllocatorTest : public VulkanTest {
 protected:
  std::unique_ptr<vk::MemoryAllocator> makeAllocator(vk::MemoryAllocatorOptions options = {}) {
    const vk::Context& c = device().context();
    return std::make_unique<vk::MemoryAllocator>(c.fns(), c.memory(), c.properties().limits, options);
  }
  const vk::DeviceFns& fns() { return device().context().fns(); }
  vk::BufferAllocation buffer(vk::MemoryAllocator& allocator, VkDeviceSize size,
                              MemoryDomain domain = MemoryDomain::Device) {
    auto b = vk::createBuffer(fns(), allocator, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, domain);
    EXPECT_TRUE(b.ok()) << b.error().message;
    return b.ok() ? std::move(*b) : vk::BufferAllocation{};
  }
};

TEST_F(MemoryAllocatorTest, SmallBuffersShareOneBlockWithoutOverlapping) {
  auto allocator = makeAllocator();
  std::vector<vk::BufferAllocation> buffers;
  for (int i = 0; i < 200; ++i) buffers.push_back(buffer(*allocator, 1000 + 7 * i));
  const VulkanMemoryStats s = allocator->stats();
  EXPECT_EQ(s.allocations, 1u);
  EXPECT_EQ(s.blocks, 1u);
  EXPECT_EQ(s.resources, 200u);
  EXPECT_EQ(s.bytesAllocated - s.bytesInUse, s.wasteBytes);
  std::vector<std::pair<VkDeviceSize, VkDeviceSize>> ranges;
  for (const auto& b : buffers) {
    EXPECT_EQ(b.memory.memory, buffers[0].memory.memory);
    EXPECT_FALSE(b.memory.dedicated);
    ranges.emplace_back(b.memory.offset, b.memory.offset + b.memory.size);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].second, ranges[i].first);
}

TEST_F(MemoryAllocatorTest, HostVisibleRangesMapIntoTheirBlock) {
  auto allocator = makeAllocator();
  auto a = buffer(*allocator, 256, MemoryDomain::HostUpload);
  auto b = buffer(*allocator, 256, MemoryDomain::HostUpload);
  ASSERT_TRUE(a.memory.mapped && b.memory.mapped);
  ASSERT_EQ(a.memory.memory, b.memory.memory);
  EXPECT_EQ(b.memory.mapped - a.memory.mapped,
            static_cast<ptrdiff_t>(b.memory.offset) - static_cast<ptrdiff_t>(a.memory.offset));
  std::memset(a.memory.mapped, 0x11, 256);
  std::memset(b.memory.mapped, 0x22, 256);
  allocator->flush(b.memory, 0, 256);
  EXPECT_EQ(a.memory.mapped[255], std::byte{0x11});
}

TEST_F(MemoryAllocatorTest, EmptyBlocksAreFreedButOneSpare) {
  auto allocator = makeAllocator({.blockBytes = 1 << 20});
  std::vector<vk::BufferAllocation> buffers;
  for (int i = 0; i < 40; ++i) buffers.push_back(buffer(*allocator, 100 << 10));  // 4 MB over 1 MB blocks
  const VulkanMemoryStats full = allocator->stats();
  EXPECT_GE(full.blocks, 4u);
  EXPECT_EQ(full.dedicated, 0u);
  buffers.clear();
  const VulkanMemoryStats empty = allocator->stats();
  EXPECT_EQ(empty.allocations, 1u);
  EXPECT_EQ(empty.blocks, 1u);
  EXPECT_EQ(empty.resources, 0u);
  EXPECT_EQ(empty.bytesInUse, 0u);
  EXPECT_EQ(empty.peakAllocations, full.allocations);
  // The spare serves the next request: nothing new is allocated.
  auto again = buffer(*allocator, 100 << 10);
  EXPECT_EQ(allocator->stats().allocations, 1u);
}

TEST_F(MemoryAllocatorTest, LargeResourcesAreDedicatedAndFreedAtOnce) {
  auto allocator = makeAllocator({.blockBytes = 1 << 20});  // dedicated above 512 KiB
  auto small = buffer(*allocator, 4096);
  {
    auto large = buffer(*allocator, 600 << 10);
    EXPECT_TRUE(large.memory.dedicated);
    EXPECT_EQ(large.memory.offset, 0u);
    EXPECT_NE(large.memory.memory, small.memory.memory);
    const VulkanMemoryStats s = allocator->stats();
    EXPECT_EQ(s.dedicated, 1u);
    EXPECT_EQ(s.allocations, 2u);
  }
  const VulkanMemoryStats s = allocator->stats();
  EXPECT_EQ(s.dedicated, 0u);
  EXPECT_EQ(s.allocations, 1u);  // a dedicated allocation is never kept as a spare
}

TEST_F(MemoryAllocatorTest, ImagesTakeTheDedicatedPathWithTheirHandle) {
  auto allocator = makeAllocator({.blockBytes = 1 << 20});
  auto info = vk::make<VkImageCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO);
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.extent = {1024, 1024, 1};  // 4 MiB: above the threshold
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  VkImage image = VK_NULL_HANDLE;
  ASSERT_EQ(fns().t.vkCreateImage(fns().device, &info, nullptr, &image), VK_SUCCESS);
  vk::OwnedImage owned(&fns(), image);
  {
    auto memory = allocator->allocateFor(image, MemoryDomain::Device);  // validation checks the chained info
    ASSERT_TRUE(memory.ok()) << memory.error().message;
    EXPECT_TRUE(memory->dedicated);
    EXPECT_EQ(allocator->stats().dedicated, 1u);
    owned.reset();  // the image goes before its memory
  }
  EXPECT_EQ(allocator->stats().allocations, 0u);

  // A request the driver marks dedicated is one whatever its size.
  vk::MemoryAllocator::Request request;
  request.requirements = {256, 256, ~0u};
  request.dedicated = true;
  auto forced = allocator->allocate(request);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_TRUE(forced->dedicated);
  EXPECT_EQ(allocator->stats().blocks, 0u);
}

// Render workers grow the upload arena while the render thread creates and destroys resources: the
// allocator's blocks and counters stay consistent under threads that allocate and free at once.
TEST_F(MemoryAllocatorTest, ThreadsAllocateAndFreeAtOnce) {
  auto allocator = makeAllocator({.blockBytes = 1 << 20});
  constexpr int kThreads = 4, kRounds = 20000;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<vk::Allocation> held;
      vk::MemoryAllocator::Request request;
      for (int i = 0; i < kRounds; ++i) {
        request.requirements = {VkDeviceSize(256 + 64 * ((i + t) % 16)), 256, ~0u};
        request.domain = i % 2 ? MemoryDomain::HostUpload : MemoryDomain::Device;
        request.tiling = i % 3 ? vk::Tiling::Linear : vk::Tiling::Optimal;
        auto memory = allocator->allocate(request);
        if (!memory.ok()) {
          ++failures;
          continue;
        }
        held.push_back(std::move(*memory));
        if (i % 3 == 2) held.erase(held.begin());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  const VulkanMemoryStats s = allocator->stats();
  EXPECT_EQ(s.resources, 0u);
  EXPECT_EQ(s.bytesInUse, 0u);
  EXPECT_LE(s.allocations, 2u);  // at most one spare per memory type used
}

// ---------------------------------------------------------------------------------------------------------
// The device: 10,000 resources through the renderer.

TEST_F(VulkanTest, TenThousandResourcesStayFarBelowTheAllocationLimit) {
  // 4096 is the least maxMemoryAllocationCount Vulkan allows; one allocation per resource would pass it.
  constexpr uint32_t kBuffers = 6000, kTextures = 4000, kMinimumLimit = 4096;
  std::vector<BufferHandle> buffers;
  std::vector<TextureHandle> textures;
  for (uint32_t i = 0; i < kBuffers; ++i) {
    const uint32_t words[4] = {i, i * 3, ~i, 0x5eed};
    buffers.push_back(resources().createBuffer({.size = 16 + (i % 7) * 16, .usage = buffer_usage::kStorage},
                                               std::as_bytes(std::span(words))));
  }
  for (uint32_t i = 0; i < kTextures; ++i) {
    const uint32_t texels[4] = {i, i + 1, i + 2, i + 3};
    textures.push_back(resources().createTexture({.width = 2,
                                                  .height = 2,
                                                  .mipLevels = 1,
                                                  .format = Format::RGBA8Unorm,
                                                  .usage = texture_usage::kSampled},
                                                 std::as_bytes(std::span(texels))));
  }
  frame();
  const VulkanMemoryStats s = device().stats().memory;
  EXPECT_GE(s.resources, kBuffers + kTextures);
  EXPECT_LT(s.peakAllocations, kMinimumLimit / 64) << s.allocations << " allocations";
  EXPECT_LT(s.peakAllocations, device().context().properties().limits.maxMemoryAllocationCount);
  EXPECT_EQ(s.bytesAllocated - s.bytesInUse, s.wasteBytes);

  // Each resource reads back what it was given: ranges are bound where they were placed.
  for (uint32_t i : {0u, 1u, 2999u, 5999u}) {
    auto bytes = readBuffer(buffers[i]);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    uint32_t words[4];
    std::memcpy(words, bytes->data(), 16);
    EXPECT_EQ(words[0], i);
    EXPECT_EQ(words[2], ~i);
  }
  for (uint32_t i : {0u, 1777u, 3999u}) {
    auto texels = readTexture(textures[i]);
    ASSERT_TRUE(texels.ok()) << texels.error().message;
    EXPECT_EQ(pixel(*texels, 2, 1, 1), i + 3);
  }

  for (BufferHandle b : buffers) resources().destroy(b);
  for (TextureHandle t : textures) resources().destroy(t);
  frame();
  frame();
  frame();  // the frame contexts that held them have been reused
  const VulkanMemoryStats after = device().stats().memory;
  EXPECT_LT(after.resources, 16u) << "staging arenas only";
  EXPECT_LE(after.blocks, s.blocks);
  EXPECT_LT(after.allocations, 16u);
}

}  // namespace
}  // namespace reel::test
