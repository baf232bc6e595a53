#pragma once
// A frame context (Granite): everything one frame's work owns until the GPU has finished it. The device
// keeps framesInFlight of them and uses frame f's context at f % framesInFlight. Before a context is
// reused, the device waits for its serial on the timeline semaphore (which is normally long signalled);
// then its garbage (resources destroyed while it recorded) is freed, its readbacks are delivered, its
// command pool is reset and its staging arenas start over. Nothing is recycled earlier, so no object is
// destroyed while the GPU may still use it, and no vkDeviceWaitIdle is needed on the way.
//
// GPU time: with timings on, each context times the frame it records with a pair of timestamps around
// every command buffer it submits (a frame that is flushed midway has several). A pair is read back once
// its submission is known finished (the mid-frame flush waits for it; otherwise the context's reuse or
// waitIdle), so reading never stalls the GPU, and the frame's time arrives framesInFlight frames after
// its CPU times.

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "queues.h"
#include "reel/runtime/readback.h"
#include "staging.h"

namespace reel::vk {

struct PendingReadback {
  ReadbackImage image;  // pixels still empty
  LinearArena::Slice slice;
  VkDeviceSize bytes = 0;
  ReadbackCallback callback;
};

using OwnedQueryPool = Owned<VkQueryPool, &VolkDeviceTable::vkDestroyQueryPool>;

// Sums the GPU time of one frame's command buffers from timestamp queries (two per command buffer,
// reused: a pair is read before the next command buffer resets it).
class GpuTimer {
 public:
  // `validBits`: the queue family's timestampValidBits (0: no timestamps; the timer stays off);
  // `period`: nanoseconds per tick (VkPhysicalDeviceLimits::timestampPeriod).
  Result<void> init(const DeviceFns& fns, uint32_t validBits, float period);
  bool enabled() const { return pool_.get() != VK_NULL_HANDLE; }

  // A new frame: forget the last one's sum.
  void startFrame(uint64_t frame);
  // At the start and at the end of each command buffer of the frame.
  void beginCommandBuffer(VkCommandBuffer cmd);
  void endCommandBuffer(VkCommandBuffer cmd);
  // Once the command buffer's submission has finished: adds its pair to the frame's sum.
  void collect();
  // The frame's sum once its last command buffer finished (collects it first), then forgets the frame;
  // nullopt time when a pair never completed (a failed submission) or could not be read.
  struct FrameTime {
    uint64_t frame = 0;
    std::optional<std::chrono::nanoseconds> gpu;
    uint32_t commandBuffers = 0;
  };
  std::optional<FrameTime> takeFrame();

 private:
  const DeviceFns* fns_ = nullptr;
  OwnedQueryPool pool_;
  uint64_t mask_ = 0;  // the bits a timestamp holds: differences wrap within them
  double period_ = 1.0;
  std::optional<uint64_t> frame_;  // the frame being timed or waiting to be taken
  uint64_t ticks_ = 0;
  uint32_t pairs_ = 0;
  bool open_ = false;   // a begin written, no end yet
  bool ended_ = false;  // a pair written, not collected yet
  bool broken_ = false;
};

class FrameContext {
 public:
  // `families`: the queue family of each queue kind the device opened (UINT32_MAX: none).
  FrameContext(const DeviceFns& fns, MemoryAllocator& allocator, const uint32_t (&families)[kQueueKinds]);

  Result<void> init();
  // A primary command buffer from this context's pool for that queue, begun for one submission.
  Result<VkCommandBuffer> beginCommandBuffer(QueueKind queue = QueueKind::Graphics);
  // Wide translation: a command pool for each job, for the queue it records for (render thread, before
  // the jobs start), then a primary command buffer from job `job`'s pool (on that job's thread: each pool
  // has one user).
  Result<void> prepareJobPools(std::span<const QueueKind> jobs);
  Result<VkCommandBuffer> beginJobCommandBuffer(uint32_t job, QueueKind queue);
  // Frees and delivers what the finished GPU work held; `allocator` invalidates readback memory.
  void recycle(const MemoryAllocator& allocator);

  uint64_t serial = 0;  // timeline value of this context's last submission (0: never submitted)
  std::vector<std::unique_ptr<Retired>> garbage;
  LinearArena upload;
  LinearArena readback;
  std::vector<PendingReadback> readbacks;
  OwnedSemaphore acquired;  // windowed: signalled when the swapchain image of this frame is acquired
  GpuTimer gpuTimer;        // frame contexts, with timings on, when the queue writes timestamps

 private:
  const DeviceFns& fns_;
  uint32_t families_[kQueueKinds];
  struct Pool {
    OwnedCommandPool pool;
    std::vector<VkCommandBuffer> commandBuffers;
    size_t used = 0;
  };
  Result<void> makePool(Pool& pool, QueueKind queue = QueueKind::Graphics);
  Result<VkCommandBuffer> begin(Pool& pool);

  Pool main_;
  Pool others_[kQueueKinds - 1];  // compute, transfer: made at their first command buffer
  // Per job, per queue kind (graphics, compute): made when a job first records for that queue.
  std::vector<std::array<std::unique_ptr<Pool>, 2>> jobPools_;
};

}  // namespace reel::vk
