#pragma once
// What the Vulkan device keeps behind each handle kind. Records live on the heap (the slot tables hold
// unique_ptrs) so that the translator can keep plain pointers to bound resources for a whole frame, and so
// that a destroyed record can move, at the same address, into its frame context's garbage until the GPU
// is done with it.

#include <memory>

#include "memory_allocator.h"
#include "queues.h"
#include "reel/runtime/descriptors.h"
#include "reel/runtime/detail/resource_table.h"

namespace reel::vk {

// How the GPU last used a resource, for barriers (barriers.h). Images keep one layout for all their mips.
struct SyncState {
  VkPipelineStageFlags2 writeStages = 0;  // the last write, 0 when there was none since creation
  VkAccessFlags2 writeAccess = 0;
  VkPipelineStageFlags2 visibleStages = 0;  // stages and accesses the last write has been made visible to
  VkAccessFlags2 visibleAccess = 0;
  VkPipelineStageFlags2 readStages = 0;  // stages that may have read it since the last write
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
  bool written = false;  // the GPU wrote it (or changed its layout) at least once: reads may need visibility
};

// A resource on a device with several queues (queues.h): its last uses by queue, as the timeline values of
// the segments (0: none), and the SyncState of each queue that is not the last to use it.
struct QueueTimes {
  QueueKind owner = QueueKind::Graphics;  // the queue whose stages the resource's SyncState describes
  uint64_t access[kQueueKinds] = {};
  uint64_t write[kQueueKinds] = {};  // writes and layout changes
  SyncState parked[kQueueKinds];
  bool parkedValid[kQueueKinds] = {};  // no other queue wrote since that queue's state was parked
};

// The stages and accesses a resource is read with when it is bound for drawing or dispatching, and the
// layout such reads need; one barrier to all of them at once ("settling") makes every later bound read
// free until the next write.
struct ReadScope {
  VkPipelineStageFlags2 stages = 0;
  VkAccessFlags2 access = 0;
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
};

struct Buffer final : Retired {
  BufferDesc desc;
  BufferAllocation allocation;
  SyncState sync;
  QueueTimes queues;  // several queues only (queues.h)
  ReadScope reads;
  uint32_t handle = 0;
  VkBuffer get() const { return allocation.buffer.get(); }
};

// Memory that transient textures whose lives do not overlap share (texture_usage::kTransient); it goes back
// once the last texture bound to it is gone.
struct AliasMemory {
  Allocation memory;
  // The handle value of the texture that used the memory last: when another one uses it next, that one's
  // SyncState no longer holds (barriers.h).
  uint32_t lastUser = 0;
};

struct Texture final : Retired {
  TextureDesc desc;
  uint32_t mipLevels = 1;
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
  VkImageUsageFlags usage = 0;
  Allocation memory;  // before the image: destroyed after it, so a range goes back only once unbound
  std::shared_ptr<AliasMemory> alias;  // instead of `memory`, while the texture shares memory
  OwnedImage image;
  OwnedImageView view;            // every mip, for sampling (sampled or storage textures only)
  OwnedImageView attachmentView;  // mip 0, for rendering (color or depth targets only)
  SyncState sync;
  QueueTimes queues;  // several queues only (queues.h)
  ReadScope reads;
  uint32_t handle = 0;
};

// A texture's image, views and memory, replaced by new ones while frames may still use them.
struct RetiredImage final : Retired {
  Allocation memory;
  std::shared_ptr<AliasMemory> alias;
  OwnedImage image;
  OwnedImageView view, attachmentView;
};

struct Sampler final : Retired {
  SamplerDesc desc;
  OwnedSampler sampler;
};

struct Shader final : Retired {
  ShaderDesc desc;
  OwnedShaderModule module;
  uint64_t serial = 0;    // unique over the device's life (pipeline dedup)
  uint32_t bindings = 0;  // spirv.h: bit N = declares set 0 binding N
};

// Pipelines with equal descriptors share one VkPipeline (PipelineLibrary's dedup); the record keeps it
// alive.
struct PipelineObject {
  OwnedPipeline pipeline;
  PipelineDesc desc;
  bool compute = false;
};
struct Pipeline final : Retired {
  static constexpr uint32_t kSettlesVertices = 1u << 31;  // above every descriptor binding bit

  std::shared_ptr<const PipelineObject> object;
  uint32_t bindings = 0;  // descriptor bindings its shaders declare: each must be bound at a draw
  // What a draw with it settles (barriers.h): `bindings`, plus kSettlesVertices when it reads vertex
  // buffers. A pipeline change that settles nothing new needs no new check of the bound resources.
  uint32_t settles = 0;
  // Instance merging (PipelineInstancing): the variant with the instanced shaders, which a DrawInstanced
  // or DrawIndexedInstanced carrying per-instance constants binds; null when the pipeline does not opt in.
  std::shared_ptr<const PipelineObject> instanced;
  PipelineInstancing instancing{};
  VkPipeline get() const { return object->pipeline.get(); }
  bool compute() const { return object->compute; }
  const PipelineDesc& desc() const { return object->desc; }
};

// A render target names its textures by handle: each is looked up when a pass begins, so a target whose
// texture was destroyed is reported, not used.
struct RenderTarget final : Retired {
  RenderTargetDesc desc;
};

// The device's slot table for one handle kind.
template <ResourceKind K, typename T>
using ResourceTableOf = ResourceTable<K, std::unique_ptr<T>>;

}  // namespace reel::vk
