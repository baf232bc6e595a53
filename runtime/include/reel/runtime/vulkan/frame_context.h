#pragma once
// A frame context (Granite): everything one frame's work owns until the GPU has finished it. The device
// keeps framesInFlight of them and uses frame f's context at f % framesInFlight. Before a context is
// reused, the device waits for its serial on the timeline semaphore (which is normally long signalled);
// then its garbage (resources destroyed while it recorded) is freed, its readbacks are delivered, its
// command pool is reset and its staging arenas start over. Nothing is recycled earlier, so no object is
// destroyed while the GPU may still use it, and no vkDeviceWaitIdle is needed on the way.

#include <memory>
#include <vector>

#include "reel/runtime/vulkan/readback.h"
#include "reel/runtime/vulkan/staging.h"

namespace reel::vk {

struct PendingReadback {
  ReadbackImage image;  // pixels still empty
  LinearArena::Slice slice;
  VkDeviceSize bytes = 0;
  ReadbackCallback callback;
};

class FrameContext {
 public:
  FrameContext(const DeviceFns& fns, MemoryAllocator& allocator, uint32_t queueFamily);

  Result<void> init();
  // A primary command buffer from this context's pool, begun for one submission.
  Result<VkCommandBuffer> beginCommandBuffer();
  // Frees and delivers what the finished GPU work held; `allocator` invalidates readback memory.
  void recycle(const MemoryAllocator& allocator);

  uint64_t serial = 0;  // timeline value of this context's last submission (0: never submitted)
  std::vector<std::unique_ptr<Retired>> garbage;
  LinearArena upload;
  LinearArena readback;
  std::vector<PendingReadback> readbacks;
  OwnedSemaphore acquired;  // windowed: signalled when the swapchain image of this frame is acquired

 private:
  const DeviceFns& fns_;
  uint32_t queueFamily_;
  OwnedCommandPool pool_;
  std::vector<VkCommandBuffer> commandBuffers_;
  size_t used_ = 0;
};

}  // namespace reel::vk
