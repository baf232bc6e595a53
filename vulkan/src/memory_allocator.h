#pragma once
// Device memory by domain (Granite's memory domains): a buffer or image says where it wants to live, not
// which memory type it gets.
//   Device       - DEVICE_LOCAL, preferably not host visible (on a GPU with a shared heap, e.g. lavapipe or
//                  an integrated GPU, it is host visible too, and initial contents are copied in directly).
//   HostUpload   - HOST_VISIBLE, preferably coherent and uncached: staging and per-frame upload data.
//   HostReadback - HOST_VISIBLE, preferably cached: what the CPU reads back.
// Host-visible memory stays mapped for its whole life (mapping is not free, and one VkDeviceMemory can be
// mapped once at a time): a block is mapped once, and each allocation's `mapped` points into it.
//
// Sub-allocation: resources share VkDeviceMemory blocks, one list of blocks per memory type, so that a
// trace with thousands of resources never meets maxMemoryAllocationCount (4096 on many drivers). A block
// keeps its ranges in offset order (BlockSpace); a request takes the smallest free range that fits once
// aligned, and a freed range merges with its free neighbours. Buffers and optimal-tiling images in one
// block keep bufferImageGranularity apart (they may not share a "page" of that size). A block that empties
// is freed, except one spare per memory type, so that a resource created and destroyed every frame does not
// allocate every frame. Blocks grow from blockBytes / 8 to blockBytes as a memory type fills, so that a
// small app does not reserve 64 MiB for a few buffers.
//
// Dedicated allocations (one vkAllocateMemory, with VkMemoryDedicatedAllocateInfo) where the driver prefers
// or requires them (vkGet*MemoryRequirements2 with VkMemoryDedicatedRequirements, core in Vulkan 1.1), and
// for resources above dedicatedBytes, which would otherwise waste most of a block.
//
// Threading: one mutex. The render thread creates and destroys resources, but translation jobs (render
// workers) grow the frame's upload arena while the render thread may be recording, and readBuffer may run
// on the kick thread; allocation is rare next to recording, so a lock costs nothing measurable.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "reel/runtime/enums.h"
#include "reel/vulkan/vulkan_device.h"
#include "vk.h"

namespace reel::vk {

// Which side of bufferImageGranularity a range is on: buffers (and linear images) vs optimal images.
enum class Tiling : uint8_t { Linear, Optimal };

// The ranges of one block, in offset order, with no Vulkan in it (so that placement is unit-testable).
class BlockSpace {
 public:
  explicit BlockSpace(VkDeviceSize size, VkDeviceSize granularity = 1);

  // The offset of a new range of `size` bytes at `alignment` (a power of two), or UINT64_MAX when no free
  // range holds it: the smallest free range that fits wins.
  VkDeviceSize allocate(VkDeviceSize size, VkDeviceSize alignment, Tiling tiling);
  // Returns a range allocate() gave (REEL_ASSERT otherwise); merges it with free neighbours.
  void free(VkDeviceSize offset);

  VkDeviceSize size() const { return size_; }
  VkDeviceSize used() const { return used_; }  // bytes of live ranges (padding not counted)
  uint32_t ranges() const { return ranges_; }  // live ranges
  bool empty() const { return ranges_ == 0; }
  size_t freeRanges() const { return bySize_.size(); }

 private:
  struct Range {
    VkDeviceSize size = 0;
    bool free = true;
    Tiling tiling = Tiling::Linear;
  };
  using Ranges = std::map<VkDeviceSize, Range>;
  bool conflicts(Ranges::const_iterator neighbour, Tiling tiling) const;
  void addFree(VkDeviceSize offset, VkDeviceSize size);
  void removeFree(VkDeviceSize offset, VkDeviceSize size);

  VkDeviceSize size_;
  VkDeviceSize granularity_;
  Ranges byOffset_;                                   // covers [0, size_) without gaps
  std::multimap<VkDeviceSize, VkDeviceSize> bySize_;  // free ranges: size -> offset
  VkDeviceSize used_ = 0;
  uint32_t ranges_ = 0;
};

class MemoryAllocator;
struct MemoryBlock;

// A range of device memory (a block's, or a dedicated allocation whole); gives it back when destroyed.
// Destroy it only once the GPU is done with the resource bound to it (frame-context garbage does that).
class Allocation {
 public:
  Allocation() = default;
  Allocation(Allocation&& other) noexcept;
  Allocation& operator=(Allocation&& other) noexcept;
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation() { reset(); }
  void reset();

  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;      // in `memory`: what vkBind*Memory takes
  VkDeviceSize size = 0;        // as the resource asked
  std::byte* mapped = nullptr;  // this range's first byte; null unless host visible
  bool coherent = true;
  bool dedicated = false;

 private:
  friend class MemoryAllocator;
  MemoryAllocator* owner_ = nullptr;
  MemoryBlock* block_ = nullptr;
};

struct MemoryAllocatorOptions {
  VkDeviceSize blockBytes = 64ull << 20;  // the largest block; smaller for heaps under 1 GiB (heap / 8)
  VkDeviceSize dedicatedBytes = 0;        // above this, dedicated; 0: blockBytes / 2
  VkDeviceSize bufferImageGranularity = 1;
};

using MemoryAllocatorStats = VulkanMemoryStats;

class MemoryAllocator {
 public:
  MemoryAllocator(const DeviceFns& fns, const VkPhysicalDeviceMemoryProperties& properties,
                  const VkPhysicalDeviceLimits& limits, MemoryAllocatorOptions options = {});
  ~MemoryAllocator();  // every Allocation must be gone (REEL_ASSERT)
  MemoryAllocator(const MemoryAllocator&) = delete;
  MemoryAllocator& operator=(const MemoryAllocator&) = delete;

  // Queries what the buffer or image needs (and whether the driver wants it dedicated), allocates and
  // binds. Fails (never throws) when no type fits or the heap cannot hold it: an out-of-memory result is an
  // error the device reports.
  Result<Allocation> allocateFor(VkBuffer buffer, MemoryDomain domain);
  Result<Allocation> allocateFor(VkImage image, MemoryDomain domain);

  // The queue families that use the resources made through this allocator (several: they are created
  // VK_SHARING_MODE_CONCURRENT, queues.h). One family by default: exclusive.
  void shareWith(std::vector<uint32_t> families) { families_ = std::move(families); }
  // Fills a create info's sharing mode and family list (VkBufferCreateInfo, VkImageCreateInfo).
  template <typename CreateInfo>
  void setSharing(CreateInfo& info) const {
    const bool concurrent = families_.size() > 1;
    info.sharingMode = concurrent ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE;
    info.queueFamilyIndexCount = concurrent ? static_cast<uint32_t>(families_.size()) : 0;
    info.pQueueFamilyIndices = concurrent ? families_.data() : nullptr;
  }

  // The lower level: memory for `requirements`, unbound. `dedicatedBuffer` / `dedicatedImage` name the
  // resource when the allocation is to be dedicated to it (forced when `dedicated`).
  struct Request {
    VkMemoryRequirements requirements{};
    MemoryDomain domain = MemoryDomain::Device;
    Tiling tiling = Tiling::Linear;
    bool dedicated = false;  // the driver prefers or requires it
    VkBuffer dedicatedBuffer = VK_NULL_HANDLE;
    VkImage dedicatedImage = VK_NULL_HANDLE;
  };
  Result<Allocation> allocate(const Request& request);
  static Request requestFrom(const VkMemoryRequirements2& requirements,
                             const VkMemoryDedicatedRequirements& dedicated, MemoryDomain domain,
                             Tiling tiling);

  // For non-coherent memory: make CPU writes visible to the device / device writes visible to the CPU.
  // `offset` is within the allocation.
  void flush(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const;
  void invalidate(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const;

  uint32_t typeFor(MemoryDomain domain, uint32_t allowedTypes) const;  // UINT32_MAX when none fits
  MemoryAllocatorStats stats() const;
  VkDeviceSize blockBytesFor(uint32_t type) const;  // the largest block of that type's heap
  VkDeviceSize dedicatedBytesFor(uint32_t type) const;

 private:
  std::vector<uint32_t> families_;
  friend class Allocation;
  void release(MemoryBlock* block, VkDeviceSize offset);
  // With mutex_ held.
  Result<MemoryBlock*> newBlock(uint32_t type, VkDeviceSize bytes, bool dedicated, VkBuffer dedicatedBuffer,
                                VkImage dedicatedImage);
  void freeBlock(MemoryBlock* block);  // with mutex_ held
  VkMappedMemoryRange range(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const;

  const DeviceFns& fns_;
  VkPhysicalDeviceMemoryProperties properties_;
  VkDeviceSize atom_;
  MemoryAllocatorOptions options_;

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<MemoryBlock>> blocks_[VK_MAX_MEMORY_TYPES];  // shared blocks per type
  std::vector<std::unique_ptr<MemoryBlock>> dedicated_;
  MemoryAllocatorStats stats_;
};

// A VkBuffer with its memory (sub-allocated or dedicated, bound). The buffer is destroyed before its range
// goes back to the block (members destroy in reverse order).
struct BufferAllocation {
  Allocation memory;
  OwnedBuffer buffer;
};
Result<BufferAllocation> createBuffer(const DeviceFns& fns, MemoryAllocator& allocator, VkDeviceSize size,
                                      VkBufferUsageFlags usage, MemoryDomain domain);

}  // namespace reel::vk
