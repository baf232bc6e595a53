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

#include <vector>

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

class BarrierBatch {
 public:
  void use(Buffer& buffer, const Use& use);
  // `discard`: the old contents are not needed (a cleared or don't-care attachment, a full overwrite), so
  // a layout change starts from UNDEFINED.
  void use(Texture& texture, const Use& use, bool discard = false);
  // The same against a state kept elsewhere than the resource (a translation job's own view of it).
  void use(SyncState& state, VkBuffer buffer, const Use& use);
  void use(SyncState& state, VkImage image, VkImageAspectFlags aspect, const Use& use, bool discard);

  bool empty() const { return buffers_.empty() && images_.empty(); }
  // Records the queued barriers as one vkCmdPipelineBarrier2 and clears the batch.
  void record(const DeviceFns& fns, VkCommandBuffer cmd);
  void clear();
  uint64_t recorded() const { return recorded_; }

 private:
  // Applies `use` to `state`; returns whether a barrier is needed and fills its source half.
  static bool apply(SyncState& state, const Use& use, bool image, VkPipelineStageFlags2& srcStages,
                    VkAccessFlags2& srcAccess);

  std::vector<VkBufferMemoryBarrier2> buffers_;
  std::vector<VkImageMemoryBarrier2> images_;
  uint64_t recorded_ = 0;
};

}  // namespace reel::vk
