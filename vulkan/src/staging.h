#pragma once
// A linear allocator over host-visible buffers, owned by a frame context and reset when the GPU has
// finished that frame (Granite's per-frame upload buffers). Uploads (initial contents, WriteBuffer,
// WriteTexture, large UpdateBuffer) are written here and copied on the GPU; readbacks are copied here by
// the GPU and read by the CPU once the frame's serial has signalled.
//
// Chunks are kept across frames; a chunk that a whole frame did not touch is freed at reset (so one large
// upload does not pin its memory forever), except the first.

#include <vector>

#include "memory_allocator.h"

namespace reel::vk {

class LinearArena {
 public:
  struct Slice {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    std::byte* data = nullptr;
    const Allocation* memory = nullptr;  // for flush / invalidate of non-coherent memory
  };

  LinearArena(const DeviceFns& fns, MemoryAllocator& allocator, MemoryDomain domain, VkBufferUsageFlags usage,
              VkDeviceSize chunkBytes);

  Result<Slice> allocate(VkDeviceSize size, VkDeviceSize alignment);
  void reset();
  VkDeviceSize capacity() const;

 private:
  struct Chunk {
    BufferAllocation buffer;
    VkDeviceSize size = 0;
    VkDeviceSize used = 0;
  };
  const DeviceFns& fns_;
  MemoryAllocator& allocator_;
  MemoryDomain domain_;
  VkBufferUsageFlags usage_;
  VkDeviceSize chunkBytes_;
  std::vector<Chunk> chunks_;
  size_t current_ = 0;
};

}  // namespace reel::vk
