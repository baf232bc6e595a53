#include "staging.h"

#include <algorithm>

namespace reel::vk {

LinearArena::LinearArena(const DeviceFns& fns, MemoryAllocator& allocator, MemoryDomain domain,
                         VkBufferUsageFlags usage, VkDeviceSize chunkBytes)
    : fns_(fns), allocator_(allocator), domain_(domain), usage_(usage), chunkBytes_(chunkBytes) {}

Result<LinearArena::Slice> LinearArena::allocate(VkDeviceSize size, VkDeviceSize alignment) {
  alignment = std::max<VkDeviceSize>(alignment, 16);
  for (; current_ < chunks_.size(); ++current_) {
    Chunk& chunk = chunks_[current_];
    const VkDeviceSize offset = (chunk.used + alignment - 1) / alignment * alignment;
    if (offset + size <= chunk.size) {
      chunk.used = offset + size;
      return Slice{chunk.buffer.buffer.get(), offset, chunk.buffer.memory.mapped + offset,
                   &chunk.buffer.memory};
    }
  }
  const VkDeviceSize bytes = std::max(chunkBytes_, (size + 0xffff) & ~VkDeviceSize{0xffff});
  auto buffer = createBuffer(fns_, allocator_, bytes, usage_, domain_);
  if (!buffer) return buffer.error();
  if (!buffer->memory.mapped) return fail("staging memory is not host visible");
  chunks_.push_back(Chunk{std::move(*buffer), bytes, size});
  current_ = chunks_.size() - 1;
  Chunk& chunk = chunks_.back();
  return Slice{chunk.buffer.buffer.get(), 0, chunk.buffer.memory.mapped, &chunk.buffer.memory};
}

void LinearArena::reset() {
  // Chunks this frame did not touch go; the first stays so that a steady state allocates nothing.
  std::vector<Chunk> kept;
  for (size_t i = 0; i < chunks_.size(); ++i) {
    if (i == 0 || chunks_[i].used > 0) kept.push_back(std::move(chunks_[i]));
  }
  chunks_ = std::move(kept);
  for (Chunk& chunk : chunks_) chunk.used = 0;
  current_ = 0;
}

VkDeviceSize LinearArena::capacity() const {
  VkDeviceSize total = 0;
  for (const Chunk& chunk : chunks_) total += chunk.size;
  return total;
}

}  // namespace reel::vk
