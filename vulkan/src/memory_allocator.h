#pragma once
// Device memory by domain (Granite's memory domains): a buffer or image says where it wants to live, not
// which memory type it gets.
//   Device       - DEVICE_LOCAL, preferably not host visible (on a GPU with a shared heap, e.g. lavapipe or
//                  an integrated GPU, it is host visible too, and initial contents are copied in directly).
//   HostUpload   - HOST_VISIBLE, preferably coherent and uncached: staging and per-frame upload data.
//   HostReadback - HOST_VISIBLE, preferably cached: what the CPU reads back.
// Host-visible memory stays mapped for its whole life (mapping is not free, and one VkDeviceMemory can be
// mapped once at a time).
//
// Every allocation is its own vkAllocateMemory: reel creates few, large resources, and per-frame data goes
// through linear arenas (staging.h) that are allocated once and reused. A sub-allocator would pay off with
// thousands of small resources; maxMemoryAllocationCount (>= 4096) is the limit this design accepts.

#include <cstdint>

#include "reel/runtime/enums.h"
#include "vk.h"

namespace reel::vk {

struct Allocation {
  OwnedMemory memory;
  std::byte* mapped = nullptr;  // null unless host visible
  VkDeviceSize size = 0;
  bool coherent = true;
};

class MemoryAllocator {
 public:
  MemoryAllocator(const DeviceFns& fns, const VkPhysicalDeviceMemoryProperties& properties,
                  VkDeviceSize nonCoherentAtomSize);

  // Fails (never throws) when no type fits or the heap cannot hold it: an out-of-memory result is an error
  // the device reports.
  Result<Allocation> allocate(const VkMemoryRequirements& requirements, MemoryDomain domain);

  // For non-coherent memory: make CPU writes visible to the device / device writes visible to the CPU.
  void flush(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const;
  void invalidate(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const;

  uint32_t typeFor(MemoryDomain domain, uint32_t allowedTypes) const;  // UINT32_MAX when none fits

 private:
  VkMappedMemoryRange range(const Allocation& allocation, VkDeviceSize offset, VkDeviceSize size) const;

  const DeviceFns& fns_;
  VkPhysicalDeviceMemoryProperties properties_;
  VkDeviceSize atom_;
};

// A VkBuffer with its own memory.
struct BufferAllocation {
  OwnedBuffer buffer;
  Allocation memory;
};
Result<BufferAllocation> createBuffer(const DeviceFns& fns, MemoryAllocator& allocator, VkDeviceSize size,
                                      VkBufferUsageFlags usage, MemoryDomain domain);

}  // namespace reel::vk
