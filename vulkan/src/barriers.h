#pragma once
// Barriers derived from how each resource is used, never written by hand at call sites.
//
// Every buffer and texture carries a SyncState: its last write (stages + accesses, until a barrier makes
// it available), the stages that read it since, what that write has been made visible to, and (images)
// its layout. A command describes each use as a Use (stages, accesses, write or not, layout); use()
// compares it with the state, queues the barrier the hazard needs, if any, and updates the state:
//   - layout change              -> image barrier from (last write | reads since) with the transition
//   - read or write after write  -> barrier from the write, making it visible to the new use
//   - write after read           -> execution dependency from the reads
//   - read after read            -> nothing, unless the reader's stage or access was never made visible
// Barriers queue up in a BarrierBatch and go to Vulkan as one vkCmdPipelineBarrier2 (synchronization2,
// per-barrier stage masks) right before the command that needs them. States persist across frames and
// submissions: a barrier's first scope covers everything earlier on the queue, so frame N+1's write to a
// uniform buffer waits for frame N's shader reads without any per-frame fence logic here.
//
// For bound resources (vertex/index/uniform/storage buffers, sampled textures) the translator asks for
// the resource's whole ReadScope at once ("settling"): after one barrier every later bound read is free,
// which keeps the per-draw check to a flag test in steady state.
//
// Several queues (queues.h): a batch that records for a queue segment also notes, per use, what the
// segment must wait for on the other queues, and masks the use to the stages its queue supports.

#include <span>
#include <vector>

#include "queues.h"
#include "resources.h"

namespace reel::vk {

struct Use {
  VkPipelineStageFlags2 stages = 0;
  VkAccessFlags2 access = 0;
  bool write = false;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;  // images only
};

inline constexpr VkAccessFlags2 kWriteAccess =
    VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
    VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
    VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_HOST_WRITE_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;

// True when `use` needs no barrier against `state` (same layout, nothing to wait for or make visible).
bool isSettled(const SyncState& state, const Use& use, bool image);
// With several queues: true when the resource's SyncState already speaks for `segment` (its queue was the
// last to use it, in this segment), so that isSettled may skip the use. Writes always go through use().
bool isCurrent(const QueueTimes& times, const QueueSegment& segment, const Use& use);
// Whether `use` of a resource in state `s` writes it or changes its layout (an image): such a use waits
// for the other queues' reads too, not only their writes.
inline bool changes(const SyncState& s, const Use& use, bool image) {
  return use.write || (image && s.layout != use.layout);
}
// With several queues: whether `use` by `segment`'s queue would wait for another queue's segment that
// `segment` neither waited for nor needs yet; asks without noting.
bool waitsForAnotherQueue(const Buffer& buffer, const QueueSegment& segment, const Use& use);
bool waitsForAnotherQueue(const Texture& texture, const QueueSegment& segment, const Use& use);
// A texture on memory another texture shares (transient textures, AliasMemory) whose memory the other one
// used last: its state must start over from UNDEFINED and wait for everything before (isSettled then
// skips nothing).
inline bool handedOver(const Texture& texture) {
  return texture.alias && texture.alias->lastUser != texture.handle;
}
// The state a texture starts from when its memory is handed over to it: nothing it held is left, and
// every stage and access before may have written the memory.
inline SyncState handOverState() {
  SyncState s;
  s.writeStages = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  s.writeAccess = VK_ACCESS_2_MEMORY_WRITE_BIT;
  s.written = true;
  return s;
}
// A write (or layout change) by `segment`'s queue outside BarrierBatch (a translation job's, at the join):
// the other queues must wait for it, and their parked states no longer hold.
void noteWrite(QueueTimes& times, const QueueSegment& segment);

class BarrierBatch {
 public:
  void use(Buffer& buffer, const Use& use);
  // `discard`: the old contents are not needed (a cleared or don't-care attachment, a full overwrite), so
  // a layout change starts from UNDEFINED.
  void use(Texture& texture, const Use& use, bool discard = false);
  // The same against a state kept elsewhere than the resource (a translation job's own view of it).
  void use(SyncState& state, VkBuffer buffer, const Use& use);
  void use(SyncState& state, VkImage image, VkImageAspectFlags aspect, const Use& use, bool discard);

  // A device with several queues: the segment this batch records for (null: one queue, no bookkeeping).
  void setSegment(QueueSegment* segment) { segment_ = segment; }
  QueueSegment* segment() const { return segment_; }

  bool empty() const { return buffers_.empty() && images_.empty(); }
  // The barriers queued since the last record() or clear().
  std::span<const VkBufferMemoryBarrier2> queuedBuffers() const { return buffers_; }
  std::span<const VkImageMemoryBarrier2> queuedImages() const { return images_; }
  // Records the queued barriers as one vkCmdPipelineBarrier2 and clears the batch.
  void record(const DeviceFns& fns, VkCommandBuffer cmd);
  void clear();
  uint64_t recorded() const { return recorded_; }

 private:
  // Applies `use` to `state`; returns whether a barrier is needed and fills its source half.
  static bool apply(SyncState& state, const Use& use, bool image, VkPipelineStageFlags2& srcStages,
                    VkAccessFlags2& srcAccess);

  // Notes the waits `use` needs on the other queues, makes `state` the segment's queue's (queues.h) and
  // masks `use` to what that queue supports.
  void crossQueues(SyncState& state, QueueTimes& times, Use& use, bool image);

  QueueSegment* segment_ = nullptr;
  std::vector<VkBufferMemoryBarrier2> buffers_;
  std::vector<VkImageMemoryBarrier2> images_;
  uint64_t recorded_ = 0;
};

}  // namespace reel::vk
