#include "memory_allocator.h"

#include <bit>

namespace reel::vk {

MemoryAllocator::MemoryAllocator(const DeviceFns& fns, const VkPhysicalDeviceMemoryProperties& properties,
                                 VkDeviceSize nonCoherentAtomSize)
    : fns_(fns), properties_(properties), atom_(nonCoherentAtomSize ? nonCoherentAtomSize : 1) {}

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

Result<Allocation> MemoryAllocator::allocate(const VkMemoryRequirements& requirements, MemoryDomain domain) {
  const uint32_t type = typeFor(domain, requirements.memoryTypeBits);
  if (type == UINT32_MAX) {
    return fail("no memory type for domain ", enumNames(domain)[static_cast<size_t>(domain)]);
  }
  const VkMemoryType& memoryType = properties_.memoryTypes[type];
  // The heap size is a hard limit (and asking past it is invalid usage, not just a failed allocation).
  const VkDeviceSize heap = properties_.memoryHeaps[memoryType.heapIndex].size;
  if (requirements.size > heap) {
    return fail("out of memory: ", requirements.size, " bytes asked of a ", heap, "-byte heap");
  }
  auto info = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  info.allocationSize = requirements.size;
  info.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkAllocateMemory(fns_.device, &info, nullptr, &memory); r != VK_SUCCESS) {
    return vkError("vkAllocateMemory", r);
  }
  Allocation allocation;
  allocation.memory = OwnedMemory(&fns_, memory);
  allocation.size = requirements.size;
  allocation.coherent = (memoryType.propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  if (memoryType.propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* mapped = nullptr;
    if (VkResult r = fns_.t.vkMapMemory(fns_.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped); r != VK_SUCCESS) {
      return vkError("vkMapMemory", r);
    }
    allocation.mapped = static_cast<std::byte*>(mapped);
  }
  return allocation;
}

VkMappedMemoryRange MemoryAllocator::range(const Allocation& allocation, VkDeviceSize offset,
                                           VkDeviceSize size) const {
  auto r = make<VkMappedMemoryRange>(VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE);
  r.memory = allocation.memory.get();
  r.offset = offset / atom_ * atom_;
  const VkDeviceSize end = (offset + size + atom_ - 1) / atom_ * atom_;
  r.size = end >= allocation.size ? VK_WHOLE_SIZE : end - r.offset;
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
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (VkResult r = fns.t.vkCreateBuffer(fns.device, &info, nullptr, &buffer); r != VK_SUCCESS) {
    return vkError("vkCreateBuffer", r);
  }
  BufferAllocation out;
  out.buffer = OwnedBuffer(&fns, buffer);
  VkMemoryRequirements requirements;
  fns.t.vkGetBufferMemoryRequirements(fns.device, buffer, &requirements);
  auto memory = allocator.allocate(requirements, domain);
  if (!memory) return memory.error();
  out.memory = std::move(*memory);
  if (VkResult r = fns.t.vkBindBufferMemory(fns.device, buffer, out.memory.memory.get(), 0);
      r != VK_SUCCESS) {
    return vkError("vkBindBufferMemory", r);
  }
  return out;
}

}  // namespace reel::vk
