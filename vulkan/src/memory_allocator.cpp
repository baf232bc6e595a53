#include "memory_allocator.h"

#include <algorithm>
#include <bit>

#include "reel/runtime/assert.h"

namespace reel::vk {

namespace {
VkDeviceSize alignUp(VkDeviceSize value, VkDeviceSize alignment) {
  return (value + alignment - 1) / alignment * alignment;
}
VkDeviceSize alignDown(VkDeviceSize value, VkDeviceSize alignment) {
  return value / alignment * alignment;
}
}  // namespace

// ---------------------------------------------------------------------------------------------------------
// BlockSpace

BlockSpace::BlockSpace(VkDeviceSize size, VkDeviceSize granularity)
    : size_(size), granularity_(std::max<VkDeviceSize>(granularity, 1)) {
  addFree(0, size);
}

bool BlockSpace::conflicts(Ranges::const_iterator neighbour, Tiling tiling) const {
  return granularity_ > 1 && neighbour != byOffset_.end() && !neighbour->second.free &&
         neighbour->second.tiling != tiling;
}

void BlockSpace::addFree(VkDeviceSize offset, VkDeviceSize size) {
  byOffset_[offset] = Range{size, true, Tiling::Linear};
  bySize_.emplace(size, offset);
}

void BlockSpace::removeFree(VkDeviceSize offset, VkDeviceSize size) {
  auto [first, last] = bySize_.equal_range(size);
  for (auto it = first; it != last; ++it) {
    if (it->second == offset) {
      bySize_.erase(it);
      return;
    }
  }
  REEL_ASSERT(false, "a free range missing from the size index");
}

VkDeviceSize BlockSpace::allocate(VkDeviceSize size, VkDeviceSize alignment, Tiling tiling) {
  REEL_ASSERT(size > 0 && std::has_single_bit(alignment),
              "a range of 0 bytes or a non-power-of-two alignment");
  for (auto candidate = bySize_.lower_bound(size); candidate != bySize_.end(); ++candidate) {
    const VkDeviceSize freeStart = candidate->second, freeEnd = freeStart + candidate->first;
    const auto it = byOffset_.find(freeStart);
    VkDeviceSize start = alignUp(freeStart, alignment);
    // A neighbour of the other tiling may not share a granularity page with this range: the previous one
    // ends at freeStart, the next one starts at freeEnd (free ranges never touch: they merge).
    if (it != byOffset_.begin() && conflicts(std::prev(it), tiling)) {
      start = alignUp(start, granularity_);
    }
    VkDeviceSize limit = freeEnd;
    if (conflicts(std::next(it), tiling)) limit = alignDown(freeEnd, granularity_);
    if (start >= limit || limit - start < size) continue;

    removeFree(freeStart, candidate->first);
    byOffset_.erase(it);
    if (start > freeStart) addFree(freeStart, start - freeStart);
    byOffset_[start] = Range{size, false, tiling};
    if (start + size < freeEnd) addFree(start + size, freeEnd - (start + size));
    used_ += size;
    ++ranges_;
    return start;
  }
  return UINT64_MAX;
}

void BlockSpace::free(VkDeviceSize offset) {
  auto it = byOffset_.find(offset);
  REEL_ASSERT(it != byOffset_.end() && !it->second.free, "freeing a range the block did not give out");
  used_ -= it->second.size;
  --ranges_;
  VkDeviceSize start = offset, end = offset + it->second.size;
  // Padding before and after a live range is free space of its own: merging takes it back too.
  if (it != byOffset_.begin()) {
    auto previous = std::prev(it);
    if (previous->second.free) {
      start = previous->first;
      removeFree(previous->first, previous->second.size);
      byOffset_.erase(previous);
    }
  }
  auto next = std::next(it);
  if (next != byOffset_.end() && next->second.free) {
    end = next->first + next->second.size;
    removeFree(next->first, next->second.size);
    byOffset_.erase(next);
  }
  byOffset_.erase(offset);
  addFree(start, end - start);
}

// ---------------------------------------------------------------------------------------------------------
// Allocation

struct MemoryBlock {
  OwnedMemory memory;
  uint32_t type = 0;
  std::byte* mapped = nullptr;
  bool coherent = true;
  bool dedicated = false;
  BlockSpace space;  // a dedicated allocation's space holds its one range
  MemoryBlock(VkDeviceSize size, VkDeviceSize granularity) : space(size, granularity) {}
};

Allocation::Allocation(Allocation&& other) noexcept {
  *this = std::move(other);
}

Allocation& Allocation::operator=(Allocation&& other) noexcept {
  if (this != &other) {
    reset();
    memory = std::exchange(other.memory, VK_NULL_HANDLE);
    offset = other.offset;
    size = other.size;
    mapped = std::exchange(other.mapped, nullptr);
    coherent = other.coherent;
    dedicated = other.dedicated;
    owner_ = std::exchange(other.owner_, nullptr);
    block_ = std::exchange(other.block_, nullptr);
  }
  return *this;
}

void Allocation::reset() {
  if (owner_) owner_->release(block_, offset);
  owner_ = nullptr;
  block_ = nullptr;
  memory = VK_NULL_HANDLE;
  mapped = nullptr;
}

// ---------------------------------------------------------------------------------------------------------
// MemoryAllocator

MemoryAllocator::MemoryAllocator(const DeviceFns& fns, const VkPhysicalDeviceMemoryProperties& properties,
                                 const VkPhysicalDeviceLimits& limits, MemoryAllocatorOptions options)
    : fns_(fns),
      properties_(properties),
      atom_(limits.nonCoherentAtomSize ? limits.nonCoherentAtomSize : 1),
      options_(options) {
  options_.bufferImageGranularity = std::max(options_.bufferImageGranularity, limits.bufferImageGranularity);
}

MemoryAllocator::~MemoryAllocator() {
  REEL_ASSERT(stats_.resources == 0, "device memory still allocated when its allocator is destroyed");
}

uint32_t MemoryAllocator::typeFor(MemoryDomain domain, uint32_t allowedTypes) const {
  VkMemoryPropertyFlags required = 0, preferred = 0, avoided = 0;
  switch (domain) {
    case MemoryDomain::Device:
      preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      avoided = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;  // keep the (small) BAR window for what needs it
      break;
    case MemoryDomain::HostUpload:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      avoided = VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryDomain::HostReadback:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      break;
  }
  // Protected and lazily allocated memory is never what a domain means.
  const VkMemoryPropertyFlags excluded =
      VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
  uint32_t best = UINT32_MAX;
  int bestScore = -1000;
  for (uint32_t i = 0; i < properties_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = properties_.memoryTypes[i].propertyFlags;
    if (!(allowedTypes & (1u << i)) || (flags & required) != required || (flags & excluded)) continue;
    const int score = 2 * std::popcount(flags & preferred) - std::popcount(flags & avoided);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

VkDeviceSize MemoryAllocator::blockBytesFor(uint32_t type) const {
  const VkDeviceSize heap = properties_.memoryHeaps[properties_.memoryTypes[type].heapIndex].size;
  // A small heap (a BAR window of 256 MiB) would be half gone in a few blocks of the usual size.
  return heap <= (1ull << 30) ? std::min(options_.blockBytes, alignUp(heap / 8, 4096)) : options_.blockBytes;
}

VkDeviceSize MemoryAllocator::dedicatedBytesFor(uint32_t type) const {
  return options_.dedicatedBytes ? options_.dedicatedBytes : blockBytesFor(type) / 2;
}

Result<MemoryBlock*> MemoryAllocator::newBlock(uint32_t type, VkDeviceSize bytes, bool dedicated,
                                               VkBuffer dedicatedBuffer, VkImage dedicatedImage) {
  const VkMemoryType& memoryType = properties_.memoryTypes[type];
  auto info = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  info.allocationSize = bytes;
  info.memoryTypeIndex = type;
  auto dedicatedInfo = make<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
  dedicatedInfo.buffer = dedicatedBuffer;
  dedicatedInfo.image = dedicatedImage;
  if (dedicatedBuffer != VK_NULL_HANDLE || dedicatedImage != VK_NULL_HANDLE) info.pNext = &dedicatedInfo;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkAllocateMemory(fns_.device, &info, nullptr, &memory); r != VK_SUCCESS) {
    return vkError("vkAllocateMemory", r);
  }
  auto block = std::make_unique<MemoryBlock>(bytes, options_.bufferImageGranularity);
  block->memory = OwnedMemory(&fns_, memory);
  block->type = type;
  block->dedicated = dedicated;
  block->coherent = (memoryType.propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  if (memoryType.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* mapped = nullptr;
    if (VkResult r = fns_.t.vkMapMemory(fns_.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped); r != VK_SUCCESS) {
      return vkError("vkMapMemory", r);
    }
    block->mapped = static_cast<std::byte*>(mapped);
  }
  ++stats_.allocations;
  stats_.peakAllocations = std::max(stats_.peakAllocations, stats_.allocations);
  stats_.bytesAllocated += bytes;
  MemoryBlock* raw = block.get();
  if (dedicated) {
    ++stats_.dedicated;
  } else {
    ++stats_.blocks;
  }
  (dedicated ? dedicated_ : blocks_[type]).push_back(std::move(block));
  return raw;
}

Result<Allocation> MemoryAllocator::allocate(const Request& request) {
  const VkMemoryRequirements& req = request.requirements;
  const uint32_t type = typeFor(request.domain, req.memoryTypeBits);
  if (type == UINT32_MAX) {
    return fail("no memory type for domain ", enumNames(request.domain)[static_cast<size_t>(request.domain)]);
  }
  // The heap size is a hard limit (and asking past it is invalid usage, not just a failed allocation).
  const VkDeviceSize heap = properties_.memoryHeaps[properties_.memoryTypes[type].heapIndex].size;
  if (req.size > heap) {
    return fail("out of memory: ", req.size, " bytes asked of a ", heap, "-byte heap");
  }
  const bool hostVisible =
      (properties_.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
  const bool coherent =
      (properties_.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  // Non-coherent ranges start on an atom, so that flushing or invalidating one (rounded out to atoms)
  // never touches a neighbour's bytes.
  VkDeviceSize alignment = std::max<VkDeviceSize>(req.alignment, 1);
  if (hostVisible && !coherent) alignment = std::max(alignment, atom_);

  std::lock_guard lock(mutex_);
  Allocation out;
  out.size = req.size;
  out.coherent = coherent;
  if (request.dedicated || req.size > dedicatedBytesFor(type)) {
    auto block = newBlock(type, req.size, true, request.dedicatedBuffer, request.dedicatedImage);
    if (!block) return block.error();
    (*block)->space.allocate(req.size, 1, request.tiling);
    out.block_ = *block;
    out.offset = 0;
    out.dedicated = true;
  } else {
    MemoryBlock* chosen = nullptr;
    VkDeviceSize offset = UINT64_MAX;
    for (auto& block : blocks_[type]) {
      offset = block->space.allocate(req.size, alignment, request.tiling);
      if (offset != UINT64_MAX) {
        chosen = block.get();
        break;
      }
    }
    if (!chosen) {
      // Each new block doubles the last, from an eighth of the largest (blocks that emptied were freed, so
      // a type that shrinks starts small again).
      const VkDeviceSize largest = blockBytesFor(type);
      const size_t count = blocks_[type].size();
      VkDeviceSize bytes = count >= 3 ? largest : std::max<VkDeviceSize>(largest >> (3 - count), 1u << 20);
      bytes = std::min(std::max(bytes, alignUp(req.size, alignment)), heap);
      auto block = newBlock(type, bytes, false, VK_NULL_HANDLE, VK_NULL_HANDLE);
      if (!block) return block.error();
      chosen = *block;
      offset = chosen->space.allocate(req.size, alignment, request.tiling);
      REEL_ASSERT(offset != UINT64_MAX, "a new block does not hold the range it was made for");
    }
    out.block_ = chosen;
    out.offset = offset;
  }
  out.owner_ = this;
  out.memory = out.block_->memory.get();
  if (out.block_->mapped) out.mapped = out.block_->mapped + out.offset;
  ++stats_.resources;
  stats_.bytesInUse += req.size;
  return out;
}

void MemoryAllocator::release(MemoryBlock* block, VkDeviceSize offset) {
  std::lock_guard lock(mutex_);
  const VkDeviceSize before = block->space.used();
  block->space.free(offset);
  --stats_.resources;
  stats_.bytesInUse -= before - block->space.used();
  if (!block->space.empty()) return;
  if (block->dedicated) {
    freeBlock(block);
    return;
  }
  // Keep one empty block per type as a spare: a resource made and dropped every frame then allocates
  // nothing. A second empty block goes.
  const auto& list = blocks_[block->type];
  const bool otherSpare = std::any_of(list.begin(), list.end(),
                                      [&](const auto& b) { return b.get() != block && b->space.empty(); });
  if (otherSpare) freeBlock(block);
}

void MemoryAllocator::freeBlock(MemoryBlock* block) {
  auto& list = block->dedicated ? dedicated_ : blocks_[block->type];
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& b) { return b.get() == block; });
  REEL_ASSERT(it != list.end(), "freeing a block the allocator does not hold");
  --stats_.allocations;
  --(block->dedicated ? stats_.dedicated : stats_.blocks);
  stats_.bytesAllocated -= block->space.size();
  list.erase(it);  // vkFreeMemory unmaps it too
}

MemoryAllocatorStats MemoryAllocator::stats() const {
  std::lock_guard lock(mutex_);
  MemoryAllocatorStats s = stats_;
  s.wasteBytes = s.bytesAllocated - s.bytesInUse;
  return s;
}

// What vkGet*MemoryRequirements2 said of a buffer or an image, as a request: its size, alignment and
// memory types, and whether the driver wants the resource in an allocation of its own.
MemoryAllocator::Request MemoryAllocator::requestFrom(const VkMemoryRequirements2& requirements,
                                                      const VkMemoryDedicatedRequirements& dedicated,
                                                      MemoryDomain domain, Tiling tiling) {
  Request request;
  request.requirements = requirements.memoryRequirements;
  request.domain = domain;
  request.tiling = tiling;
  request.dedicated = dedicated.prefersDedicatedAllocation || dedicated.requiresDedicatedAllocation;
  return request;
}

Result<Allocation> MemoryAllocator::allocateFor(VkBuffer buffer, MemoryDomain domain) {
  auto info = make<VkBufferMemoryRequirementsInfo2>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2);
  info.buffer = buffer;
  auto dedicated = make<VkMemoryDedicatedRequirements>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS);
  auto requirements = make<VkMemoryRequirements2>(VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated);
  fns_.t.vkGetBufferMemoryRequirements2(fns_.device, &info, &requirements);
  Request request = requestFrom(requirements, dedicated, domain, Tiling::Linear);
  request.dedicatedBuffer = buffer;
  auto memory = allocate(request);
  if (!memory) return memory.error();
  if (VkResult r = fns_.t.vkBindBufferMemory(fns_.device, buffer, memory->memory, memory->offset);
      r != VK_SUCCESS) {
    return vkError("vkBindBufferMemory", r);
  }
  return memory;
}

Result<Allocation> MemoryAllocator::allocateFor(VkImage image, MemoryDomain domain) {
  auto info = make<VkImageMemoryRequirementsInfo2>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2);
  info.image = image;
  auto dedicated = make<VkMemoryDedicatedRequirements>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS);
  auto requirements = make<VkMemoryRequirements2>(VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated);
  fns_.t.vkGetImageMemoryRequirements2(fns_.device, &info, &requirements);
  // reel creates optimal-tiling images only.
  Request request = requestFrom(requirements, dedicated, domain, Tiling::Optimal);
  request.dedicatedImage = image;
  auto memory = allocate(request);
  if (!memory) return memory.error();
  if (VkResult r = fns_.t.vkBindImageMemory(fns_.device, image, memory->memory, memory->offset);
      r != VK_SUCCESS) {
    return vkError("vkBindImageMemory", r);
  }
  return memory;
}

VkMappedMemoryRange MemoryAllocator::range(const Allocation& allocation, VkDeviceSize offset,
                                           VkDeviceSize size) const {
  auto r = make<VkMappedMemoryRange>(VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE);
  r.memory = allocation.memory;
  const VkDeviceSize begin = allocation.offset + offset;
  r.offset = alignDown(begin, atom_);
  const VkDeviceSize end = alignUp(begin + size, atom_);
  // Past the block's end, the rounded size would be invalid: VK_WHOLE_SIZE covers the tail.
  r.size = end >= allocation.block_->space.size() ? VK_WHOLE_SIZE : end - r.offset;
  return r;
}

void MemoryAllocator::flush(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const {
  if (allocation.coherent || !allocation.mapped || size == 0) return;
  const VkMappedMemoryRange r = range(allocation, offset, size);
  fns_.t.vkFlushMappedMemoryRanges(fns_.device, 1, &r);
}

void MemoryAllocator::invalidate(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const {
  if (allocation.coherent || !allocation.mapped || size == 0) return;
  const VkMappedMemoryRange r = range(allocation, offset, size);
  fns_.t.vkInvalidateMappedMemoryRanges(fns_.device, 1, &r);
}

Result<BufferAllocation> createBuffer(const DeviceFns& fns, MemoryAllocator& allocator, VkDeviceSize size,
                                      VkBufferUsageFlags usage, MemoryDomain domain) {
  auto info = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = size;
  info.usage = usage;
  allocator.setSharing(info);
  VkBuffer buffer = VK_NULL_HANDLE;
  if (VkResult r = fns.t.vkCreateBuffer(fns.device, &info, nullptr, &buffer); r != VK_SUCCESS) {
    return vkError("vkCreateBuffer", r);
  }
  BufferAllocation out;
  out.buffer = OwnedBuffer(&fns, buffer);
  auto memory = allocator.allocateFor(buffer, domain);
  if (!memory) return memory.error();
  out.memory = std::move(*memory);
  return out;
}

}  // namespace reel::vk
