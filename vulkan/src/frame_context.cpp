#include "frame_context.h"

#include <algorithm>
#include <iterator>

#include "reel/runtime/assert.h"

namespace reel::vk {

FrameContext::FrameContext(const DeviceFns& fns, MemoryAllocator& allocator,
                           const uint32_t (&families)[kQueueKinds])
    // Storage too: a merged draw's per-instance constants are read from here (translate.cpp).
    : upload(fns, allocator, MemoryDomain::HostUpload,
             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 1u << 20),
      readback(fns, allocator, MemoryDomain::HostReadback, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1u << 20),
      fns_(fns) {
  std::copy(std::begin(families), std::end(families), families_);
}

Result<void> FrameContext::init() {
  return makePool(main_);
}

Result<void> FrameContext::makePool(Pool& target, QueueKind queue) {
  auto info = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  // Transient: every command buffer is recorded once and the whole pool is reset with the context.
  info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  info.queueFamilyIndex = families_[static_cast<size_t>(queue)];
  VkCommandPool pool = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkCreateCommandPool(fns_.device, &info, nullptr, &pool); r != VK_SUCCESS) {
    return vkError("vkCreateCommandPool", r);
  }
  target.pool = OwnedCommandPool(&fns_, pool);
  return {};
}

Result<VkCommandBuffer> FrameContext::beginCommandBuffer(QueueKind queue) {
  if (queue == QueueKind::Graphics) return begin(main_);
  Pool& pool = others_[static_cast<size_t>(queue) - 1];
  if (!pool.pool.get()) {
    if (auto made = makePool(pool, queue); !made) return made.error();
  }
  return begin(pool);
}

Result<void> FrameContext::prepareJobPools(std::span<const QueueKind> jobs) {
  if (jobPools_.size() < jobs.size()) jobPools_.resize(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    REEL_ASSERT(jobs[j] != QueueKind::Transfer, "prepareJobPools: jobs record for graphics or compute");
    std::unique_ptr<Pool>& pool = jobPools_[j][static_cast<size_t>(jobs[j])];
    if (pool) continue;
    auto made = std::make_unique<Pool>();
    if (auto ok = makePool(*made, jobs[j]); !ok) return ok;
    pool = std::move(made);
  }
  return {};
}

Result<VkCommandBuffer> FrameContext::beginJobCommandBuffer(uint32_t job, QueueKind queue) {
  return begin(*jobPools_.at(job)[static_cast<size_t>(queue)]);
}

Result<VkCommandBuffer> FrameContext::begin(Pool& p) {
  if (p.used == p.commandBuffers.size()) {
    auto info = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    info.commandPool = p.pool.get();
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    if (VkResult r = fns_.t.vkAllocateCommandBuffers(fns_.device, &info, &cmd); r != VK_SUCCESS) {
      return vkError("vkAllocateCommandBuffers", r);
    }
    p.commandBuffers.push_back(cmd);
  }
  VkCommandBuffer cmd = p.commandBuffers[p.used++];
  auto begin = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = fns_.t.vkBeginCommandBuffer(cmd, &begin); r != VK_SUCCESS) {
    return vkError("vkBeginCommandBuffer", r);
  }
  return cmd;
}

// ---------------------------------------------------------------------------------------------------------
// GPU timer

Result<void> GpuTimer::init(const DeviceFns& fns, uint32_t validBits, float period) {
  if (validBits == 0) return {};
  auto info = make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 2;
  VkQueryPool pool = VK_NULL_HANDLE;
  if (VkResult r = fns.t.vkCreateQueryPool(fns.device, &info, nullptr, &pool); r != VK_SUCCESS) {
    return vkError("vkCreateQueryPool", r);
  }
  fns_ = &fns;
  pool_ = OwnedQueryPool(&fns, pool);
  mask_ = validBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << validBits) - 1;
  period_ = period;
  return {};
}

void GpuTimer::startFrame(uint64_t frame) {
  // Off (a queue without timestamps): no frame is timed, so takeFrame() delivers nothing.
  if (!enabled()) return;
  frame_ = frame;
  ticks_ = 0;
  pairs_ = 0;
  open_ = ended_ = broken_ = false;
}

void GpuTimer::beginCommandBuffer(VkCommandBuffer cmd) {
  if (!enabled() || !frame_) return;
  if (ended_) collect();  // not expected: the previous pair is read when its submission finishes
  // The pair is reset in the command buffer that writes it: no host reset (hostQueryReset) is needed.
  fns_->t.vkCmdResetQueryPool(cmd, pool_.get(), 0, 2);
  // ALL_COMMANDS for both: the start waits for earlier submissions on the queue, so that a frame that
  // overlaps the previous one is not charged for its tail.
  fns_->t.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_.get(), 0);
  open_ = true;
}

void GpuTimer::endCommandBuffer(VkCommandBuffer cmd) {
  if (!open_) return;
  fns_->t.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_.get(), 1);
  open_ = false;
  ended_ = true;
}

void GpuTimer::collect() {
  if (!ended_) return;
  ended_ = false;
  uint64_t stamps[2] = {};
  // No WAIT bit: the submission is known finished, so the results are there; anything else is a failure
  // to report as "no time", not a reason to block.
  const VkResult r = fns_->t.vkGetQueryPoolResults(fns_->device, pool_.get(), 0, 2, sizeof stamps, stamps,
                                                   sizeof stamps[0], VK_QUERY_RESULT_64_BIT);
  if (r != VK_SUCCESS) {
    broken_ = true;
    return;
  }
  ticks_ += (stamps[1] - stamps[0]) & mask_;
  ++pairs_;
}

std::optional<GpuTimer::FrameTime> GpuTimer::takeFrame() {
  if (!frame_) return std::nullopt;
  collect();
  FrameTime time;
  time.frame = *frame_;
  time.commandBuffers = pairs_;
  if (!broken_ && !open_ && pairs_ > 0) {
    time.gpu = std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(ticks_) * period_ + 0.5));
  }
  frame_.reset();
  open_ = false;
  return time;
}

void FrameContext::recycle(const MemoryAllocator& allocator) {
  for (PendingReadback& r : readbacks) {
    allocator.invalidate(*r.slice.memory, r.slice.offset, r.bytes);
    r.image.pixels.assign(r.slice.data, r.slice.data + r.bytes);
    r.callback(std::move(r.image));
  }
  readbacks.clear();
  garbage.clear();
  auto reset = [&](Pool& p) {
    if (p.pool) fns_.t.vkResetCommandPool(fns_.device, p.pool.get(), 0);
    p.used = 0;
  };
  reset(main_);
  for (Pool& p : others_) reset(p);
  for (auto& job : jobPools_) {
    for (auto& p : job) {
      if (p) reset(*p);
    }
  }
  upload.reset();
  readback.reset();
}

}  // namespace reel::vk
