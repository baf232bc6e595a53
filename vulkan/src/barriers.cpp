#include "barriers.h"

namespace reel::vk {
namespace {

bool covers(VkFlags64 have, VkFlags64 want) {
  return (want & ~have) == 0;
}

}  // namespace

bool isSettled(const SyncState& s, const Use& use, bool image) {
  if (image && s.layout != use.layout) return false;
  if (s.writeStages != 0) return false;  // a write not yet made available
  if (use.write) return s.readStages == 0;
  // Read after read: free when this stage and access already see the last write (or nothing was written).
  return !s.written || (covers(s.visibleStages, use.stages) && covers(s.visibleAccess, use.access));
}

bool isCurrent(const QueueTimes& times, const QueueSegment& segment, const Use& use) {
  const auto k = static_cast<size_t>(segment.kind);
  return !use.write && times.owner == segment.kind && times.access[k] == segment.serial;
}

namespace {
bool waitsFor(const QueueTimes& times, const QueueSegment& segment, bool changes) {
  const auto k = static_cast<size_t>(segment.kind);
  for (size_t o = 0; o < kQueueKinds; ++o) {
    if (o == k) continue;
    const uint64_t need = changes ? times.access[o] : times.write[o];
    if (need > segment.waited[o] && need > segment.needs[o]) return true;
  }
  return false;
}
}  // namespace

bool waitsForAnotherQueue(const Buffer& buffer, const QueueSegment& segment, const Use& use) {
  return waitsFor(buffer.queues, segment, changes(buffer.sync, use, false));
}

bool waitsForAnotherQueue(const Texture& texture, const QueueSegment& segment, const Use& use) {
  return waitsFor(texture.queues, segment, changes(texture.sync, use, true));
}

bool copyFitsGranularity(VkExtent3D granularity, uint32_t mipWidth, uint32_t mipHeight, uint32_t x,
                         uint32_t y, uint32_t width, uint32_t height) {
  auto fits = [](uint32_t offset, uint32_t extent, uint32_t size, uint32_t g) {
    if (g == 0) return offset == 0 && extent == size;
    return offset % g == 0 && (extent % g == 0 || offset + extent == size);
  };
  return fits(x, width, mipWidth, granularity.width) && fits(y, height, mipHeight, granularity.height);
}

VkPipelineStageFlags2 supportedStages(QueueKind kind) {
  constexpr VkPipelineStageFlags2 kAny = VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT |
                                         VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT |
                                         VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_2_HOST_BIT;
  // ALL_TRANSFER stands for the transfer stages the queue has.
  constexpr VkPipelineStageFlags2 kTransfer =
      VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT;
  switch (kind) {
    case QueueKind::Graphics:
      return ~VkPipelineStageFlags2{0};
    case QueueKind::Compute:
      return kAny | kTransfer | VK_PIPELINE_STAGE_2_CLEAR_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
             VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT;
    case QueueKind::Transfer:
      return kAny | kTransfer;
  }
  return 0;
}

VkAccessFlags2 supportedAccess(QueueKind kind) {
  constexpr VkAccessFlags2 kAny = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT |
                                  VK_ACCESS_2_HOST_READ_BIT | VK_ACCESS_2_HOST_WRITE_BIT |
                                  VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;
  switch (kind) {
    case QueueKind::Graphics:
      return ~VkAccessFlags2{0};
    case QueueKind::Compute:
      return kAny | VK_ACCESS_2_UNIFORM_READ_BIT | VK_ACCESS_2_SHADER_READ_BIT |
             VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_SAMPLED_READ_BIT |
             VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
             VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT;
    case QueueKind::Transfer:
      return kAny;
  }
  return 0;
}

void BarrierBatch::crossQueues(SyncState& s, QueueTimes& times, Use& use, bool image) {
  QueueSegment& segment = *segment_;
  const auto k = static_cast<size_t>(segment.kind);
  if (segment.kind != QueueKind::Graphics) {
    use.stages &= segment.stages;
    use.access &= segment.access;
    if (use.stages == 0) {
      // Only stages this queue lacks (a vertex buffer's scope): wait and make visible at any stage.
      use.stages = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
      use.access = use.write ? VK_ACCESS_2_MEMORY_WRITE_BIT : VK_ACCESS_2_MEMORY_READ_BIT;
    }
  }
  const bool changed = changes(s, use, image);
  for (size_t o = 0; o < kQueueKinds; ++o) {
    if (o == k) continue;
    const uint64_t need = changed ? times.access[o] : times.write[o];
    if (need > segment.waited[o] && need > segment.needs[o]) segment.needs[o] = need;
  }
  if (times.owner != segment.kind) {
    // The state describes another queue's stages: parked for that queue. This queue's own parked state
    // still holds when no other queue wrote since (their reads are waited for by the semaphore); else
    // what another queue did is waited for by the semaphore, but what this queue did before it is not
    // made visible by it: wait for everything, keep the layout.
    const auto owner = static_cast<size_t>(times.owner);
    times.parked[owner] = s;
    times.parkedValid[owner] = true;
    if (times.parkedValid[k]) {
      s = times.parked[k];
    } else {
      SyncState fresh;
      fresh.writeStages = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
      fresh.writeAccess = VK_ACCESS_2_MEMORY_WRITE_BIT;
      fresh.layout = s.layout;
      fresh.written = true;
      s = fresh;
    }
    times.owner = segment.kind;
  }
  times.access[k] = segment.serial;
  if (changed) noteWrite(times, segment);
}

void noteWrite(QueueTimes& times, const QueueSegment& segment) {
  times.write[static_cast<size_t>(segment.kind)] = segment.serial;
  for (bool& valid : times.parkedValid) valid = false;
}

bool BarrierBatch::apply(SyncState& s, const Use& use, bool image, VkPipelineStageFlags2& srcStages,
                         VkAccessFlags2& srcAccess) {
  const bool layoutChange = image && s.layout != use.layout;
  bool barrier = false;
  srcStages = 0;
  srcAccess = 0;
  if (layoutChange || s.writeStages != 0) {
    // RAW / WAW / transition: wait for the write (and, for a write or a transition, the reads since) and
    // make the write available.
    barrier = true;
    srcStages = s.writeStages | ((use.write || layoutChange) ? s.readStages : 0);
    srcAccess = s.writeAccess;
  } else if (use.write) {
    // WAR: an execution dependency is enough; nothing to make visible.
    if (s.readStages != 0) {
      barrier = true;
      srcStages = s.readStages;
    }
  } else if (s.written && !(covers(s.visibleStages, use.stages) && covers(s.visibleAccess, use.access))) {
    // The last write is available (an earlier barrier chained from it to readStages): chain from there and
    // make it visible to this reader too.
    barrier = true;
    srcStages = s.readStages;
  }

  if (use.write) {
    s.writeStages = use.stages;
    s.writeAccess = use.access & kWriteAccess;
    s.readStages = 0;
    s.visibleStages = 0;
    s.visibleAccess = 0;
  } else if (barrier) {
    s.writeStages = 0;
    s.writeAccess = 0;
    s.readStages |= use.stages;
    s.visibleStages |= use.stages;
    s.visibleAccess |= use.access;
  } else {
    s.readStages |= use.stages;
  }
  if (image) s.layout = use.layout;
  s.written |= use.write || layoutChange;
  if (barrier && srcStages == 0) srcStages = VK_PIPELINE_STAGE_2_NONE;
  return barrier;
}

void BarrierBatch::use(Buffer& buffer, const Use& use) {
  if (!segment_) return this->use(buffer.sync, buffer.get(), use);
  Use masked = use;
  crossQueues(buffer.sync, buffer.queues, masked, false);
  this->use(buffer.sync, buffer.get(), masked);
}

void BarrierBatch::use(Texture& texture, const Use& use, bool discard) {
  if (handedOver(texture)) {
    // Another texture used the memory since this one did, whatever for (a pass, an upload, a readback):
    // what this one held is gone, and the hand-over waits for everything before it on the queue.
    texture.alias->lastUser = texture.handle;
    texture.sync = handOverState();
    for (bool& valid : texture.queues.parkedValid) valid = false;
  }
  if (!segment_) return this->use(texture.sync, texture.image.get(), texture.aspect, use, discard);
  Use masked = use;
  crossQueues(texture.sync, texture.queues, masked, true);
  this->use(texture.sync, texture.image.get(), texture.aspect, masked, discard);
}

void BarrierBatch::use(SyncState& state, VkBuffer buffer, const Use& use) {
  VkPipelineStageFlags2 srcStages;
  VkAccessFlags2 srcAccess;
  if (!apply(state, use, false, srcStages, srcAccess)) return;
  auto b = make<VkBufferMemoryBarrier2>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2);
  b.srcStageMask = srcStages;
  b.srcAccessMask = srcAccess;
  b.dstStageMask = use.stages;
  b.dstAccessMask = use.access;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.buffer = buffer;
  b.offset = 0;
  b.size = VK_WHOLE_SIZE;
  buffers_.push_back(b);
}

void BarrierBatch::use(SyncState& state, VkImage image, VkImageAspectFlags aspect, const Use& use,
                       bool discard) {
  const VkImageLayout oldLayout = state.layout;
  VkPipelineStageFlags2 srcStages;
  VkAccessFlags2 srcAccess;
  if (!apply(state, use, true, srcStages, srcAccess)) return;
  auto b = make<VkImageMemoryBarrier2>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2);
  b.srcStageMask = srcStages;
  b.srcAccessMask = srcAccess;
  b.dstStageMask = use.stages;
  b.dstAccessMask = use.access;
  b.oldLayout = discard ? VK_IMAGE_LAYOUT_UNDEFINED : oldLayout;
  b.newLayout = use.layout;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {aspect, 0, VK_REMAINING_MIP_LEVELS, 0, 1};
  images_.push_back(b);
}

void BarrierBatch::record(const DeviceFns& fns, VkCommandBuffer cmd) {
  if (empty()) return;
  auto info = make<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
  info.bufferMemoryBarrierCount = static_cast<uint32_t>(buffers_.size());
  info.pBufferMemoryBarriers = buffers_.data();
  info.imageMemoryBarrierCount = static_cast<uint32_t>(images_.size());
  info.pImageMemoryBarriers = images_.data();
  fns.t.vkCmdPipelineBarrier2(cmd, &info);
  recorded_ += buffers_.size() + images_.size();
  clear();
}

void BarrierBatch::clear() {
  buffers_.clear();
  images_.clear();
}

}  // namespace reel::vk
