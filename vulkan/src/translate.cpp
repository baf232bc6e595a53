// Sorted packets -> Vulkan commands. The hot path of the render thread.
//
// Binds only record what the app wants bound (r.bound) and mark it dirty; a draw or dispatch applies the
// dirty parts, comparing each with what the command buffer last recorded (r.recorded), so a bind that
// changes nothing costs a compare and never reaches Vulkan (the most-recently-used caches of Stingray's
// RenderDevice). Barriers come from barriers.h at the draw that needs them.
#include <algorithm>
#include <bit>
#include <cstring>

#include "formats.h"
#include "vulkan_device_impl.h"

namespace reel {

using vk::Use;
namespace binding = vk::binding;

namespace {

constexpr VkPipelineStageFlags2 kTransfer = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
constexpr Use kTransferRead{kTransfer, VK_ACCESS_2_TRANSFER_READ_BIT, false,
                            VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
constexpr Use kTransferWrite{kTransfer, VK_ACCESS_2_TRANSFER_WRITE_BIT, true,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
constexpr Use kTransferSelf{kTransfer, VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT, true,
                            VK_IMAGE_LAYOUT_GENERAL};
constexpr Use kColorAttachment{VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                               VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                               true, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
constexpr Use kDepthAttachment{
    VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
    VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, true,
    VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
constexpr Use kComputeStorage{VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              true};

Use readUse(const vk::ReadScope& r) {
  return Use{r.stages, r.access, false, r.layout};
}

VkAttachmentLoadOp loadOp(LoadOp op, bool resume) {
  if (resume) return VK_ATTACHMENT_LOAD_OP_LOAD;
  switch (op) {
    case LoadOp::Clear:
      return VK_ATTACHMENT_LOAD_OP_CLEAR;
    case LoadOp::Load:
      return VK_ATTACHMENT_LOAD_OP_LOAD;
    case LoadOp::DontCare:
      return VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  }
  return VK_ATTACHMENT_LOAD_OP_LOAD;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Helpers

inline bool VulkanDeviceImpl::beginSorted(Recorder& r) {
  ++r.stats->packets;
  r.segmentRecorded = true;
  return r.cmd !=
         VK_NULL_HANDLE;  // no frame open: the device is lost or the frame failed to begin (reported)
}

void VulkanDeviceImpl::reportPacket(CommandType command, const PacketContext& context,
                                    const std::string& message) {
  // A job replaying the state it starts from meets packets that an earlier job reported already.
  if (rec().replaying) return;
  std::string text = "frame " + std::to_string(frame_) + ": " + commandName(command) + ": " + message;
  if (context.tag) {
    text += " [tag \"" + std::string(context.tag->message()) + "\" at " + context.tag->file + ":" +
            std::to_string(context.tag->line) + "]";
  }
  reportError(std::move(text));
}

template <ResourceKind K, typename T>
T* VulkanDeviceImpl::lookup(vk::ResourceTableOf<K, T>& table, Handle<K> handle, CommandType command,
                            const char* field, const PacketContext& context) {
  if (auto* slot = table.find(handle)) [[likely]] {
    return slot->get();
  }
  reportPacket(command, context,
               std::string(field) + " names " + formatHandle(handle) + (handle.isNull() ? " (null)" : "") +
                   ", which is not live on the device");
  return nullptr;
}

void VulkanDeviceImpl::flushBarriers(Recorder& r) {
  if (!r.barriers.empty()) r.barriers.record(*fns_, r.cmd);
}

void VulkanDeviceImpl::resetBindings(Recorder& r) {
  r.formatChecked = false;
  r.bound = Bound{};
  r.pass = Pass{};
  r.dirty = kCheckGraphics | kCheckCompute;
  r.graphicsSettled = 0;
  r.descriptorDirty[0] = r.descriptorDirty[1] = 0;
  r.labels.clear();
}

void VulkanDeviceImpl::invalidateRecorded(Recorder& r) {
  r.recorded = Recorded{};
  // A new command buffer knows nothing: everything the app has bound must be recorded again.
  r.dirty |= kDirtyGraphicsPipeline | kDirtyComputePipeline | kDirtyVertex | kDirtyIndex | kDirtyViewport |
             kDirtyScissor | kCheckGraphics | kCheckCompute;
  r.descriptorDirty[0] = r.descriptorDirty[1] = r.bound.descriptorMask;
  if (r.bound.pushBytes > 0 && takesPushConstants(r)) {
    fns_->t.vkCmdPushConstants(r.cmd, pipelines_->layout(), binding::kStages, 0, r.bound.pushBytes,
                               r.bound.push);
  }
}

void VulkanDeviceImpl::closeDebugLabels(Recorder& r) {
  suspendDebugLabels(r);
  r.labels.clear();
}

void VulkanDeviceImpl::suspendDebugLabels(Recorder& r) {
  if (r.cmd == VK_NULL_HANDLE) return;
  for (size_t i = 0; i < r.labels.size(); ++i) vkCmdEndDebugUtilsLabelEXT(r.cmd);
}

void VulkanDeviceImpl::resumeDebugLabels(Recorder& r) {
  if (r.cmd == VK_NULL_HANDLE) return;
  for (const DebugLabel& label : r.labels) beginDebugLabel(r.cmd, label);
}

void VulkanDeviceImpl::beginDebugLabel(VkCommandBuffer cmd, const DebugLabel& label) {
  auto info = vk::make<VkDebugUtilsLabelEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT);
  info.pLabelName = label.name.c_str();
  std::memcpy(info.color, label.color, sizeof info.color);
  vkCmdBeginDebugUtilsLabelEXT(cmd, &info);
}

// ---------------------------------------------------------------------------------------------------------
// Render passes

bool VulkanDeviceImpl::ensureRendering(Recorder& r) {
  if (r.pass.rendering) return true;
  if (!r.pass.open) return false;
  onQueue(r, vk::QueueKind::Graphics);
  const bool resume = r.pass.begun;
  for (uint32_t i = 0; i < r.pass.colorCount; ++i) {
    use(r, *r.pass.colors[i], kColorAttachment, !resume && r.pass.colorLoad != LoadOp::Load);
  }
  if (r.pass.depth) use(r, *r.pass.depth, kDepthAttachment, !resume && r.pass.depthLoad != LoadOp::Load);
  ++r.writeEpoch;
  flushBarriers(r);

  VkRenderingAttachmentInfo colors[4];
  for (uint32_t i = 0; i < r.pass.colorCount; ++i) {
    colors[i] = vk::make<VkRenderingAttachmentInfo>(VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO);
    colors[i].imageView = r.pass.colors[i]->attachmentView.get();
    colors[i].imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colors[i].loadOp = loadOp(r.pass.colorLoad, resume);
    // A target may be sampled, read back or captured later, unless the graph says nothing needs it.
    colors[i].storeOp =
        r.pass.discards & (1u << i) ? VK_ATTACHMENT_STORE_OP_DONT_CARE : VK_ATTACHMENT_STORE_OP_STORE;
    colors[i].clearValue.color = r.pass.clearColor;
  }
  auto depth = vk::make<VkRenderingAttachmentInfo>(VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO);
  if (r.pass.depth) {
    depth.imageView = r.pass.depth->attachmentView.get();
    depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    depth.loadOp = loadOp(r.pass.depthLoad, resume);
    depth.storeOp = r.pass.discards & Pass::kDiscardDepth ? VK_ATTACHMENT_STORE_OP_DONT_CARE
                                                          : VK_ATTACHMENT_STORE_OP_STORE;
    depth.clearValue.depthStencil = {r.pass.clearDepth, r.pass.clearStencil};
  }
  auto info = vk::make<VkRenderingInfo>(VK_STRUCTURE_TYPE_RENDERING_INFO);
  info.renderArea = {{0, 0}, r.pass.extent};
  info.layerCount = 1;
  info.colorAttachmentCount = r.pass.colorCount;
  info.pColorAttachments = colors;
  info.pDepthAttachment = r.pass.depth ? &depth : nullptr;
  info.pStencilAttachment =
      r.pass.depth && (r.pass.depth->aspect & VK_IMAGE_ASPECT_STENCIL_BIT) ? &depth : nullptr;
  fns_->t.vkCmdBeginRendering(r.cmd, &info);
  r.pass.rendering = true;
  r.pass.begun = true;
  ++r.stats->renderPasses;
  r.stats->storesDiscarded += std::popcount(r.pass.discards);
  return true;
}

void VulkanDeviceImpl::suspendRendering(Recorder& r) {
  // The renderer discards only where rendering runs to the pass's end (Device::discardAtPassEnd): an
  // interruption now would lose what the pass drew so far, so it is reported, never silent.
  if (r.pass.discards) {
    reportError("frame " + std::to_string(frame_) + ": the render pass into " + formatHandle(r.pass.handle) +
                " was interrupted after its attachments were begun with VK_ATTACHMENT_STORE_OP_DONT_CARE; "
                "what it drew before is undefined");
  }
  fns_->t.vkCmdEndRendering(r.cmd);
  r.pass.rendering = false;
  ++r.stats->renderPassSuspensions;
}

void VulkanDeviceImpl::leaveRendering(Recorder& r, const vk::Texture* touched1, const vk::Texture* touched2) {
  if (r.pass.open && !r.pass.begun && (touched1 || touched2)) {
    // The pass's clear has not run yet (lazy begin): run it first if this command touches an attachment,
    // so that the command sees the cleared image, as it would have with an eager begin.
    bool touches = false;
    for (uint32_t i = 0; i < r.pass.colorCount; ++i) {
      touches |= r.pass.colors[i] == touched1 || r.pass.colors[i] == touched2;
    }
    touches |= r.pass.depth && (r.pass.depth == touched1 || r.pass.depth == touched2);
    if (touches) {
      // Rendering begins here only to stop again: what it stores is read, so nothing is discarded.
      r.pass.discards = 0;
      ensureRendering(r);
    }
  }
  if (r.pass.rendering) suspendRendering(r);
}

template <typename F>
bool VulkanDeviceImpl::anyLiveRead(std::span<const GraphResource> reads, F&& f) {
  for (const GraphResource& g : reads) {
    // A stale handle is skipped: the command that reads it reports it.
    if (g.kind == ResourceKind::Buffer) {
      if (auto* slot = buffers_.find(BufferHandle{g.handle}); slot && f(*slot->get())) return true;
    } else if (g.kind == ResourceKind::Texture) {
      if (auto* slot = textures_.find(TextureHandle{g.handle}); slot && f(*slot->get())) return true;
    }
  }
  return false;
}

void VulkanDeviceImpl::prepareReads(std::span<const GraphResource> reads) {
  Recorder& r = rec();
  // Between passes; not for a pass a job begins again where it starts (replaying): its reads were settled
  // where it began, and they are first uses in the job, whose barriers go before the job.
  if (r.cmd == VK_NULL_HANDLE || r.replaying || r.pass.rendering) return;
  // A pass with a target runs on the graphics queue: its reads are settled there, not in the segment of a
  // queue the frame's requests or the pass before left (where the pass's draws would find them unsettled
  // and, once rendering began, interrupt it for the barriers).
  onQueue(r, vk::QueueKind::Graphics);
  // A read that waits for another queue waits at this pass, not at the start of the segment: what the
  // segment recorded before the pass is submitted without that wait (a graphics pass drawn while the
  // compute queue works on what a later pass reads).
  if (severalQueues_ && !r.job && r.segmentRecorded && readsWaitForAnotherQueue(r, reads)) {
    nextSegment(r, vk::QueueKind::Graphics);
    ++stats_.waitSplits;
  }
  anyLiveRead(reads, [&](auto& resource) {
    settleRead(r, resource);
    return false;
  });
}

bool VulkanDeviceImpl::readsWaitForAnotherQueue(const Recorder& r, std::span<const GraphResource> reads) {
  const vk::QueueSegment* segment = r.barriers.segment();
  if (!segment) return false;
  return anyLiveRead(reads, [&](const auto& resource) {
    return vk::waitsForAnotherQueue(resource, *segment, readUse(resource.reads));
  });
}

void VulkanDeviceImpl::discardAtPassEnd(std::span<const GraphResource> attachments) {
  Recorder& r = rec();
  r.discardNext.clear();
  for (const GraphResource& g : attachments) {
    // A texture read back after the frame keeps its contents.
    if (g.kind == ResourceKind::Texture &&
        !std::binary_search(readBackThisFrame_.begin(), readBackThisFrame_.end(), g.handle))
      r.discardNext.push_back(g.handle);
  }
}

void VulkanDeviceImpl::endPass(Recorder& r) {
  const bool clears =
      r.pass.colorLoad == LoadOp::Clear || (r.pass.depth && r.pass.depthLoad == LoadOp::Clear);
  if (!r.pass.begun && clears) ensureRendering(r);  // a pass with no draw still clears
  if (r.pass.rendering) fns_->t.vkCmdEndRendering(r.cmd);
  r.pass = Pass{};
}

void VulkanDeviceImpl::execute(const cmd::BeginRenderPass& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  constexpr CommandType kType = CommandType::BeginRenderPass;
  // discardAtPassEnd speaks of this pass only (and only when it runs to its end here).
  const std::vector<uint32_t> discards = std::exchange(r.discardNext, {});
  if (r.pass.open) {
    reportPacket(kType, c, "a render pass is already open (EndRenderPass missing); it is closed first");
    endPass(r);
  }
  vk::RenderTarget* target = lookup(targets_, p.target, kType, "target", c);
  if (!target) return;
  if (static_cast<uint8_t>(p.colorLoad) > static_cast<uint8_t>(LoadOp::DontCare) ||
      static_cast<uint8_t>(p.depthLoad) > static_cast<uint8_t>(LoadOp::DontCare)) {
    return reportPacket(kType, c, "unknown load op");
  }
  Pass pass;
  auto discarded = [&](TextureHandle t) {
    return std::find(discards.begin(), discards.end(), t.value) != discards.end();
  };
  for (uint32_t i = 0; i < target->desc.colorCount; ++i) {
    if (discarded(target->desc.colors[i])) pass.discards |= 1u << i;
    auto* slot = textures_.find(target->desc.colors[i]);
    if (!slot) {
      return reportPacket(kType, c,
                          "the target's colors[" + std::to_string(i) + "] names " +
                              formatHandle(target->desc.colors[i]) + ", which is not live on the device");
    }
    pass.colors[i] = slot->get();
  }
  if (!target->desc.depth.isNull()) {
    if (discarded(target->desc.depth)) pass.discards |= Pass::kDiscardDepth;
    auto* slot = textures_.find(target->desc.depth);
    if (!slot) {
      return reportPacket(kType, c,
                          "the target's depth names " + formatHandle(target->desc.depth) +
                              ", which is not live on the device");
    }
    pass.depth = slot->get();
  }
  pass.colorCount = target->desc.colorCount;
  const vk::Texture* first = pass.colorCount ? pass.colors[0] : pass.depth;
  pass.extent = {first->desc.width, first->desc.height};
  pass.open = true;
  pass.handle = p.target;
  pass.colorLoad = p.colorLoad;
  pass.depthLoad = p.depthLoad;
  std::memcpy(pass.clearColor.float32, p.clearColor, sizeof p.clearColor);
  pass.clearDepth = p.clearDepth;
  pass.clearStencil = p.clearStencil;
  // A job that replays the pass it starts in resumes it: the job before ran its clear (endJob).
  pass.begun = r.replaying;
  r.pass = pass;
  r.formatChecked = false;
  // A pass starts with the whole target as viewport and scissor; SetViewport / SetScissor after it override.
  r.bound.viewport = {0.0f, 0.0f, float(pass.extent.width), float(pass.extent.height), 0.0f, 1.0f};
  r.bound.scissor = {{0, 0}, pass.extent};
  r.dirty |= kDirtyViewport | kDirtyScissor | kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::EndRenderPass&, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  if (!r.pass.open) return reportPacket(CommandType::EndRenderPass, c, "no render pass is open");
  endPass(r);
}

void VulkanDeviceImpl::execute(const cmd::SetViewport& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  if (!(p.width > 0.0f) || p.height == 0.0f || !(p.minDepth >= 0.0f && p.minDepth <= 1.0f) ||
      !(p.maxDepth >= 0.0f && p.maxDepth <= 1.0f)) {
    return reportPacket(CommandType::SetViewport, c,
                        "width must be > 0, height != 0 and depths within [0, 1]");
  }
  const VkViewport v{p.x, p.y, p.width, p.height, p.minDepth, p.maxDepth};
  if (std::memcmp(&v, &r.bound.viewport, sizeof v) == 0) {
    ++r.stats->redundantBindsSkipped;
    return;
  }
  r.bound.viewport = v;
  r.dirty |= kDirtyViewport;
}

void VulkanDeviceImpl::execute(const cmd::SetScissor& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  if (p.x < 0 || p.y < 0 || p.width > uint32_t(INT32_MAX - p.x) || p.height > uint32_t(INT32_MAX - p.y)) {
    return reportPacket(CommandType::SetScissor, c, "the rectangle must start at x, y >= 0 and fit in int32");
  }
  const VkRect2D s{{p.x, p.y}, {p.width, p.height}};
  if (std::memcmp(&s, &r.bound.scissor, sizeof s) == 0) {
    ++r.stats->redundantBindsSkipped;
    return;
  }
  r.bound.scissor = s;
  r.dirty |= kDirtyScissor;
}

// ---------------------------------------------------------------------------------------------------------
// Binds: record what is wanted; draws apply it.

void VulkanDeviceImpl::execute(const cmd::BindPipeline& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  vk::Pipeline* pipeline = lookup(pipelineRecords_, p.pipeline, CommandType::BindPipeline, "pipeline", c);
  if (!pipeline) return;
  vk::Pipeline*& slot = pipeline->compute() ? r.bound.compute : r.bound.graphics;
  if (slot == pipeline) {
    ++r.stats->redundantBindsSkipped;
    return;
  }
  slot = pipeline;
  if (!pipeline->compute()) r.formatChecked = false;
  if (pipeline->compute()) {
    r.dirty |= kDirtyComputePipeline | kCheckCompute;
    return;
  }
  r.dirty |= kDirtyGraphicsPipeline;
  // A pipeline that reads bindings (or vertices) the last check did not cover needs a new check; one that
  // reads no more than that does not: whatever was re-bound or written since then asked for its own check.
  if (pipeline->settles & ~r.graphicsSettled) r.dirty |= kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::BindVertexBuffer& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  constexpr CommandType kType = CommandType::BindVertexBuffer;
  if (p.slot >= binding::kVertexSlots) {
    return reportPacket(kType, c, "slot " + std::to_string(p.slot) + " > 3");
  }
  vk::Buffer* buffer = nullptr;
  if (!p.buffer.isNull()) {
    if (!(buffer = lookup(buffers_, p.buffer, kType, "buffer", c))) return;
    if (!(buffer->desc.usage & buffer_usage::kVertex)) {
      return reportPacket(kType, c, "the buffer lacks the vertex usage");
    }
    if (p.offset >= buffer->desc.size) return reportPacket(kType, c, "offset past the end of the buffer");
  }
  if (r.bound.vertex[p.slot] == buffer && r.bound.vertexOffset[p.slot] == p.offset) {
    ++r.stats->redundantBindsSkipped;
    return;
  }
  r.bound.vertex[p.slot] = buffer;
  r.bound.vertexOffset[p.slot] = p.offset;
  r.dirty |= kDirtyVertex;
  if (buffer && !settled(r, *buffer, readUse(buffer->reads))) r.dirty |= kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::BindIndexBuffer& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  constexpr CommandType kType = CommandType::BindIndexBuffer;
  vk::Buffer* buffer = nullptr;
  if (!p.buffer.isNull()) {
    if (!(buffer = lookup(buffers_, p.buffer, kType, "buffer", c))) return;
    if (!(buffer->desc.usage & buffer_usage::kIndex)) {
      return reportPacket(kType, c, "the buffer lacks the index usage");
    }
    if (static_cast<uint8_t>(p.indexType) > static_cast<uint8_t>(IndexType::U32)) {
      return reportPacket(kType, c, "unknown index type");
    }
    const uint64_t indexBytes = p.indexType == IndexType::U16 ? 2 : 4;
    if (p.offset >= buffer->desc.size || p.offset % indexBytes != 0) {
      return reportPacket(kType, c, "offset past the end of the buffer or not a multiple of the index size");
    }
  }
  const VkIndexType type = vk::toVkIndexType(p.indexType);
  if (r.bound.index == buffer && r.bound.indexOffset == p.offset && r.bound.indexType == type) {
    ++r.stats->redundantBindsSkipped;
    return;
  }
  r.bound.index = buffer;
  r.bound.indexOffset = p.offset;
  r.bound.indexType = type;
  r.dirty |= kDirtyIndex;
  if (buffer && !settled(r, *buffer, readUse(buffer->reads))) r.dirty |= kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::BindTexture& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  constexpr CommandType kType = CommandType::BindTexture;
  if (p.slot >= binding::kTextureSlots) {
    return reportPacket(kType, c, "slot " + std::to_string(p.slot) + " > 3");
  }
  vk::Texture* texture = nullptr;
  VkSampler sampler = VK_NULL_HANDLE;
  if (!p.texture.isNull()) {
    if (!(texture = lookup(textures_, p.texture, kType, "texture", c))) return;
    if (!(texture->desc.usage & texture_usage::kSampled)) {
      return reportPacket(kType, c, "the texture lacks the sampled usage");
    }
    if (p.sampler.isNull()) {
      sampler = defaultSampler_.get();
    } else {
      vk::Sampler* s = lookup(samplers_, p.sampler, kType, "sampler", c);
      if (!s) return;
      sampler = s->sampler.get();
    }
  }
  if (r.bound.texture[p.slot] == texture && r.bound.sampler[p.slot] == sampler) {
    ++r.stats->redundantBindsSkipped;
    return;
  }
  const uint32_t bit = 1u << (binding::kTextureBase + p.slot);
  r.bound.texture[p.slot] = texture;
  r.bound.sampler[p.slot] = sampler;
  r.bound.descriptorMask = texture ? (r.bound.descriptorMask | bit) : (r.bound.descriptorMask & ~bit);
  r.descriptorDirty[0] |= bit;
  r.descriptorDirty[1] |= bit;
  // A texture that is ready to be sampled needs no check; one that is not (written since, or an attachment
  // of the open pass) is settled or reported at the next draw. Writes after this bind bump r.writeEpoch.
  if (texture && !settled(r, *texture, readUse(texture->reads))) {
    r.dirty |= kCheckGraphics | kCheckCompute;
  }
}

namespace {
struct BufferBindLimits {
  uint32_t usage;
  const char* usageName;
  VkDeviceSize alignment;
  VkDeviceSize maxRange;
};
}  // namespace

#define REEL_BIND_BUFFER(Command, array, offsets, ranges, slots, base, usageBit, usageText, alignField, \
                         rangeField)                                                                    \
  void VulkanDeviceImpl::execute(const cmd::Command& p, const PacketContext& c) {                       \
    Recorder& r = rec();                                                                                \
    if (!beginSorted(r)) return;                                                                        \
    constexpr CommandType kType = CommandType::Command;                                                 \
    if (p.slot >= slots) return reportPacket(kType, c, "slot " + std::to_string(p.slot) + " > 3");      \
    vk::Buffer* buffer = nullptr;                                                                       \
    VkDeviceSize range = 0;                                                                             \
    if (!p.buffer.isNull()) {                                                                           \
      if (!(buffer = lookup(buffers_, p.buffer, kType, "buffer", c))) return;                           \
      if (!(buffer->desc.usage & usageBit))                                                             \
        return reportPacket(kType, c, "the buffer lacks the " usageText " usage");                      \
      if (p.offset >= buffer->desc.size || p.offset % limits_.alignField != 0) {                        \
        return reportPacket(kType, c,                                                                   \
                            "offset past the end or not a multiple of " #alignField " (" +              \
                                std::to_string(limits_.alignField) + ")");                              \
      }                                                                                                 \
      range = p.range == 0 ? buffer->desc.size - p.offset : p.range;                                    \
      if (range > buffer->desc.size - p.offset || range > limits_.rangeField) {                         \
        return reportPacket(kType, c,                                                                   \
                            "range " + std::to_string(range) + " past the end or over " #rangeField);   \
      }                                                                                                 \
    }                                                                                                   \
    if (r.bound.array[p.slot] == buffer && r.bound.offsets[p.slot] == p.offset &&                       \
        r.bound.ranges[p.slot] == range) {                                                              \
      ++r.stats->redundantBindsSkipped;                                                                 \
      return;                                                                                           \
    }                                                                                                   \
    const uint32_t bit = 1u << (base + p.slot);                                                         \
    r.bound.array[p.slot] = buffer;                                                                     \
    r.bound.offsets[p.slot] = p.offset;                                                                 \
    r.bound.ranges[p.slot] = range;                                                                     \
    r.bound.descriptorMask = buffer ? (r.bound.descriptorMask | bit) : (r.bound.descriptorMask & ~bit); \
    r.descriptorDirty[0] |= bit;                                                                        \
    r.descriptorDirty[1] |= bit;                                                                        \
    if (buffer && !settled(r, *buffer, readUse(buffer->reads))) {                                       \
      r.dirty |= kCheckGraphics | kCheckCompute;                                                        \
    }                                                                                                   \
  }
REEL_BIND_BUFFER(BindUniformBuffer, uniform, uniformOffset, uniformRange, binding::kUniformSlots,
                 binding::kUniformBase, buffer_usage::kUniform, "uniform", minUniformBufferOffsetAlignment,
                 maxUniformBufferRange)
REEL_BIND_BUFFER(BindStorageBuffer, storage, storageOffset, storageRange, binding::kStorageSlots,
                 binding::kStorageBase, buffer_usage::kStorage, "storage", minStorageBufferOffsetAlignment,
                 maxStorageBufferRange)
#undef REEL_BIND_BUFFER

void VulkanDeviceImpl::execute(const cmd::PushConstants& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  const uint32_t size = static_cast<uint32_t>(c.aux.size());
  if (p.offset % 4 != 0 || size % 4 != 0 || size == 0 || p.offset > binding::kPushConstantBytes ||
      size > binding::kPushConstantBytes - p.offset) {
    return reportPacket(CommandType::PushConstants, c,
                        "offset and size must be multiples of 4 within the 128 push-constant bytes");
  }
  if (p.offset + size <= r.bound.pushBytes && std::memcmp(r.bound.push + p.offset, c.aux.data(), size) == 0) {
    ++r.stats->redundantBindsSkipped;
    return;
  }
  std::memcpy(r.bound.push + p.offset, c.aux.data(), size);
  r.bound.pushBytes = std::max(r.bound.pushBytes, p.offset + size);
  // Pushed at once: constants are command-buffer state like any bind, and the packet's bytes are copied.
  // A transfer queue's command buffer takes none: they are pushed when the recorder leaves it.
  if (!takesPushConstants(r)) return;
  fns_->t.vkCmdPushConstants(r.cmd, pipelines_->layout(), binding::kStages, p.offset, size, c.aux.data());
  ++r.stats->pushConstantCalls;
}

// ---------------------------------------------------------------------------------------------------------
// Draws

void VulkanDeviceImpl::pushDescriptors(Recorder& r, VkPipelineBindPoint point, uint32_t bits) {
  VkWriteDescriptorSet writes[binding::kCount];
  VkDescriptorBufferInfo buffers[binding::kCount];
  VkDescriptorImageInfo images[binding::kCount];
  uint32_t count = 0;
  for (uint32_t rest = bits; rest != 0; rest &= rest - 1) {
    const uint32_t b = static_cast<uint32_t>(std::countr_zero(rest));
    VkWriteDescriptorSet& w = writes[count];
    w = vk::make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    w.dstBinding = b;
    w.descriptorCount = 1;
    if (b < binding::kTextureBase) {
      w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
      buffers[count] = {r.bound.uniform[b]->get(), r.bound.uniformOffset[b], r.bound.uniformRange[b]};
      w.pBufferInfo = &buffers[count];
    } else if (b < binding::kStorageBase) {
      const uint32_t s = b - binding::kTextureBase;
      w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      images[count] = {r.bound.sampler[s], r.bound.texture[s]->view.get(),
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      w.pImageInfo = &images[count];
    } else {
      const uint32_t s = b - binding::kStorageBase;
      w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      buffers[count] = {r.bound.storage[s]->get(), r.bound.storageOffset[s], r.bound.storageRange[s]};
      w.pBufferInfo = &buffers[count];
    }
    ++count;
  }
  if (count == 0) return;
  fns_->t.vkCmdPushDescriptorSetKHR(r.cmd, point, pipelines_->layout(), 0, count, writes);
  ++r.stats->descriptorPushes;
}

bool VulkanDeviceImpl::settleBound(Recorder& r, bool graphics, CommandType command,
                                   const PacketContext& context) {
  const vk::Pipeline* pipeline = graphics ? r.bound.graphics : r.bound.compute;
  auto settle = [&](vk::Buffer* b) {
    if (b) settleRead(r, *b);
  };
  if (graphics) {
    if (pipeline->settles & vk::Pipeline::kSettlesVertices) {
      for (vk::Buffer* b : r.bound.vertex) settle(b);
    }
    settle(r.bound.index);
  }
  const uint32_t used = pipeline->bindings & r.bound.descriptorMask;
  for (uint32_t rest = used; rest != 0; rest &= rest - 1) {
    const uint32_t b = static_cast<uint32_t>(std::countr_zero(rest));
    if (b < binding::kTextureBase) {
      settle(r.bound.uniform[b]);
    } else if (b < binding::kStorageBase) {
      vk::Texture* t = r.bound.texture[b - binding::kTextureBase];
      if (graphics && r.pass.open) {
        bool attachment = t == r.pass.depth;
        for (uint32_t i = 0; i < r.pass.colorCount; ++i) attachment |= t == r.pass.colors[i];
        if (attachment) {
          r.barriers.clear();
          reportPacket(command, context,
                       "texture slot " + std::to_string(b - binding::kTextureBase) +
                           " samples an attachment of the open render pass (a feedback loop)");
          return false;
        }
      }
      settleRead(r, *t);
    } else if (graphics) {
      settle(r.bound.storage[b - binding::kStorageBase]);  // read-only in graphics stages
    } else {
      use(r, *r.bound.storage[b - binding::kStorageBase], kComputeStorage);
    }
  }
  return true;
}

bool VulkanDeviceImpl::prepareDraw(Recorder& r, CommandType command, const PacketContext& context,
                                   bool instanced) {
  onQueue(r, vk::QueueKind::Graphics);
  if (!r.pass.open) {
    reportPacket(command, context, "a draw outside a render pass");
    return false;
  }
  vk::Pipeline* pipeline = r.bound.graphics;
  if (!pipeline) {
    reportPacket(command, context, "no graphics pipeline is bound");
    return false;
  }
  if (!r.formatChecked) {
    // The pipeline's attachment formats must be the pass's (dynamic rendering checks nothing itself).
    const PipelineDesc& d = pipeline->desc();
    bool match = d.colorCount == r.pass.colorCount &&
                 d.depthFormat == (r.pass.depth ? r.pass.depth->desc.format : Format::Undefined);
    for (uint32_t i = 0; match && i < d.colorCount; ++i) {
      match = d.colorFormats[i] == r.pass.colors[i]->desc.format;
    }
    if (!match) {
      reportPacket(command, context,
                   "the bound pipeline's attachment formats differ from the render target's");
      return false;
    }
    r.formatChecked = true;
  }
  if (const uint32_t missing = pipeline->bindings & ~r.bound.descriptorMask) {
    reportPacket(command, context,
                 "the pipeline uses binding " + std::to_string(std::countr_zero(missing)) +
                     ", which nothing is bound to");
    return false;
  }
  if ((pipeline->settles & vk::Pipeline::kSettlesVertices) && !r.bound.vertex[0]) {
    reportPacket(command, context, "the pipeline reads vertices but no vertex buffer is bound to slot 0");
    return false;
  }
  if ((r.dirty & kCheckGraphics) || r.checkedEpoch[0] != r.writeEpoch) {
    if (!settleBound(r, true, command, context)) return false;
    r.dirty &= ~kCheckGraphics;
    r.checkedEpoch[0] = r.writeEpoch;
    r.graphicsSettled = pipeline->settles;
  }
  if (!r.barriers.empty() && r.pass.rendering) suspendRendering(r);
  if (!r.pass.rendering) {
    ensureRendering(r);  // records the pending barriers with the attachments' own
    r.checkedEpoch[0] = r.writeEpoch;
  }

  // Apply what changed since the last draw; each against what this command buffer recorded last.
  if (r.dirty & (kDirtyGraphicsPipeline | kDirtyVertex | kDirtyIndex | kDirtyViewport | kDirtyScissor)) {
    if (r.dirty & kDirtyGraphicsPipeline) {
      const VkPipeline wanted = instanced ? pipeline->instanced->pipeline.get() : pipeline->get();
      if (r.recorded.graphics != wanted) {
        fns_->t.vkCmdBindPipeline(r.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, wanted);
        r.recorded.graphics = wanted;
        ++r.stats->pipelineBinds;
      } else {
        ++r.stats->redundantBindsSkipped;
      }
    }
    if (r.dirty & kDirtyVertex) {
      for (uint32_t i = 0; i < binding::kVertexSlots; ++i) {
        const vk::Buffer* b = r.bound.vertex[i];
        if (!b ||
            (r.recorded.vertex[i] == b->get() && r.recorded.vertexOffset[i] == r.bound.vertexOffset[i])) {
          continue;
        }
        const VkBuffer buffer = b->get();
        fns_->t.vkCmdBindVertexBuffers(r.cmd, i, 1, &buffer, &r.bound.vertexOffset[i]);
        r.recorded.vertex[i] = buffer;
        r.recorded.vertexOffset[i] = r.bound.vertexOffset[i];
        ++r.stats->vertexBufferBinds;
      }
    }
    if ((r.dirty & kDirtyIndex) && r.bound.index &&
        (r.recorded.index != r.bound.index->get() || r.recorded.indexOffset != r.bound.indexOffset ||
         r.recorded.indexType != r.bound.indexType)) {
      fns_->t.vkCmdBindIndexBuffer(r.cmd, r.bound.index->get(), r.bound.indexOffset, r.bound.indexType);
      r.recorded.index = r.bound.index->get();
      r.recorded.indexOffset = r.bound.indexOffset;
      r.recorded.indexType = r.bound.indexType;
      ++r.stats->indexBufferBinds;
    }
    if ((r.dirty & kDirtyViewport) &&
        (!r.recorded.viewportSet ||
         std::memcmp(&r.recorded.viewport, &r.bound.viewport, sizeof(VkViewport)) != 0)) {
      fns_->t.vkCmdSetViewport(r.cmd, 0, 1, &r.bound.viewport);
      r.recorded.viewport = r.bound.viewport;
      r.recorded.viewportSet = true;
    }
    if ((r.dirty & kDirtyScissor) &&
        (!r.recorded.scissorSet ||
         std::memcmp(&r.recorded.scissor, &r.bound.scissor, sizeof(VkRect2D)) != 0)) {
      fns_->t.vkCmdSetScissor(r.cmd, 0, 1, &r.bound.scissor);
      r.recorded.scissor = r.bound.scissor;
      r.recorded.scissorSet = true;
    }
    r.dirty &= ~(kDirtyGraphicsPipeline | kDirtyVertex | kDirtyIndex | kDirtyViewport | kDirtyScissor);
  }
  if (const uint32_t push = r.descriptorDirty[0] & pipeline->bindings) {
    pushDescriptors(r, VK_PIPELINE_BIND_POINT_GRAPHICS, push);
    r.descriptorDirty[0] &= ~push;
  }
  ++r.stats->draws;
  return true;
}

void VulkanDeviceImpl::execute(const cmd::Draw& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r) || !prepareDraw(r, CommandType::Draw, c)) return;
  fns_->t.vkCmdDraw(r.cmd, p.vertexCount, 1, p.firstVertex, 0);
}

bool VulkanDeviceImpl::bindInstanceData(Recorder& r, CommandType command, uint32_t instanceCount,
                                        const PacketContext& c) {
  const vk::Pipeline* pipeline = r.bound.graphics;
  if (!pipeline || !pipeline->instanced) {
    reportPacket(command, c, "per-instance constants, but the bound pipeline does not opt in to instancing");
    return false;
  }
  const PipelineInstancing& in = pipeline->instancing;
  if (c.aux.size() != uint64_t{instanceCount} * in.constantBytes ||
      c.aux.size() > limits_.maxStorageBufferRange) {
    reportPacket(command, c,
                 "per-instance constants of " + std::to_string(c.aux.size()) +
                     " bytes, not instanceCount x " + std::to_string(in.constantBytes) +
                     " (or over maxStorageBufferRange)");
    return false;
  }
  // The frame's upload arena, as UpdateBuffer's staging: host-visible, recycled when the frame's fence
  // has signalled, so the GPU reads it before anything overwrites it. Host writes before the submit need
  // no barrier.
  vk::LinearArena::Slice slice;
  {
    std::unique_lock lock(uploadMutex_, std::defer_lock);
    if (r.job) lock.lock();  // jobs share the frame context's arena
    auto allocated = ctx_->upload.allocate(c.aux.size(), limits_.minStorageBufferOffsetAlignment);
    if (!allocated) {
      reportPacket(command, c, allocated.error().message);
      return false;
    }
    slice = *allocated;
    std::memcpy(slice.data, c.aux.data(), c.aux.size());
    allocator_->flush(*slice.memory, slice.offset, c.aux.size());
  }
  const uint32_t b = binding::kStorageBase + in.bufferSlot;
  const VkDescriptorBufferInfo info{slice.buffer, slice.offset, c.aux.size()};
  auto write = vk::make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
  write.dstBinding = b;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = &info;
  fns_->t.vkCmdPushDescriptorSetKHR(r.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines_->layout(), 0, 1,
                                    &write);
  ++r.stats->descriptorPushes;
  // The app's own binding at that slot (if any) is pushed again before a draw that reads it.
  r.descriptorDirty[0] |= 1u << b;
  return true;
}

void VulkanDeviceImpl::execute(const cmd::DrawInstanced& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  if (!c.aux.empty()) {
    // A merged draw (instance merging): the instanced variant reads entry gl_InstanceIndex of the
    // constants, so they start at instance 0.
    if (p.firstInstance != 0)
      return reportPacket(CommandType::DrawInstanced, c, "per-instance constants need firstInstance 0");
    if (!r.bound.graphics || !r.bound.graphics->instanced) {
      bindInstanceData(r, CommandType::DrawInstanced, p.instanceCount, c);  // reports why
      return;
    }
    r.dirty |= kDirtyGraphicsPipeline;
    const bool ok = prepareDraw(r, CommandType::DrawInstanced, c, true) &&
                    bindInstanceData(r, CommandType::DrawInstanced, p.instanceCount, c);
    r.dirty |= kDirtyGraphicsPipeline;  // the next draw binds the pipeline's own variant again
    if (ok) fns_->t.vkCmdDraw(r.cmd, p.vertexCount, p.instanceCount, p.firstVertex, 0);
    return;
  }
  if (!prepareDraw(r, CommandType::DrawInstanced, c)) return;
  fns_->t.vkCmdDraw(r.cmd, p.vertexCount, p.instanceCount, p.firstVertex, p.firstInstance);
}

namespace {
// Indices past the end of the bound index buffer would be read by the GPU: caught here instead.
bool indicesFit(const vk::Buffer* index, VkDeviceSize offset, VkIndexType type, uint64_t first,
                uint64_t count) {
  const uint64_t size = type == VK_INDEX_TYPE_UINT16 ? 2 : 4;
  return index && offset + (first + count) * size <= index->desc.size;
}
}  // namespace

void VulkanDeviceImpl::execute(const cmd::DrawIndexed& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  if (!indicesFit(r.bound.index, r.bound.indexOffset, r.bound.indexType, p.firstIndex, p.indexCount)) {
    return reportPacket(CommandType::DrawIndexed, c, "no index buffer bound, or the indices pass its end");
  }
  if (!prepareDraw(r, CommandType::DrawIndexed, c)) return;
  fns_->t.vkCmdDrawIndexed(r.cmd, p.indexCount, 1, p.firstIndex, p.vertexOffset, 0);
}

void VulkanDeviceImpl::execute(const cmd::DrawIndexedInstanced& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  if (!indicesFit(r.bound.index, r.bound.indexOffset, r.bound.indexType, p.firstIndex, p.indexCount)) {
    return reportPacket(CommandType::DrawIndexedInstanced, c,
                        "no index buffer bound, or the indices pass its end");
  }
  if (!c.aux.empty()) {
    // A merged draw, as DrawInstanced's.
    if (p.firstInstance != 0) {
      return reportPacket(CommandType::DrawIndexedInstanced, c,
                          "per-instance constants need firstInstance 0");
    }
    if (!r.bound.graphics || !r.bound.graphics->instanced) {
      bindInstanceData(r, CommandType::DrawIndexedInstanced, p.instanceCount, c);  // reports why
      return;
    }
    r.dirty |= kDirtyGraphicsPipeline;
    const bool ok = prepareDraw(r, CommandType::DrawIndexedInstanced, c, true) &&
                    bindInstanceData(r, CommandType::DrawIndexedInstanced, p.instanceCount, c);
    r.dirty |= kDirtyGraphicsPipeline;
    if (ok) fns_->t.vkCmdDrawIndexed(r.cmd, p.indexCount, p.instanceCount, p.firstIndex, p.vertexOffset, 0);
    return;
  }
  if (!prepareDraw(r, CommandType::DrawIndexedInstanced, c)) return;
  fns_->t.vkCmdDrawIndexed(r.cmd, p.indexCount, p.instanceCount, p.firstIndex, p.vertexOffset,
                           p.firstInstance);
}

// ---------------------------------------------------------------------------------------------------------
// Compute and transfers: outside rendering.

bool VulkanDeviceImpl::prepareDispatch(Recorder& r, const PacketContext& context) {
  vk::Pipeline* pipeline = r.bound.compute;
  if (!pipeline) {
    reportPacket(CommandType::Dispatch, context, "no compute pipeline is bound");
    return false;
  }
  if (const uint32_t missing = pipeline->bindings & ~r.bound.descriptorMask) {
    reportPacket(CommandType::Dispatch, context,
                 "the pipeline uses binding " + std::to_string(std::countr_zero(missing)) +
                     ", which nothing is bound to");
    return false;
  }
  const vk::Texture* sampled[2] = {};
  for (uint32_t s = 0, n = 0; s < binding::kTextureSlots && n < 2; ++s) {
    if (pipeline->bindings & (1u << (binding::kTextureBase + s))) sampled[n++] = r.bound.texture[s];
  }
  leaveRendering(r, sampled[0], sampled[1]);
  // Storage buffers are written by every dispatch (no reflection of what the shader writes): settle is
  // run each time, which orders dispatch after dispatch on the same buffer.
  if (!settleBound(r, false, CommandType::Dispatch, context)) return false;
  if (pipeline->bindings & (((1u << binding::kStorageSlots) - 1) << binding::kStorageBase)) ++r.writeEpoch;
  flushBarriers(r);
  if (r.recorded.compute != pipeline->get()) {
    fns_->t.vkCmdBindPipeline(r.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->get());
    r.recorded.compute = pipeline->get();
    ++r.stats->pipelineBinds;
  }
  r.dirty &= ~(kDirtyComputePipeline | kCheckCompute);
  if (const uint32_t push = r.descriptorDirty[1] & pipeline->bindings) {
    pushDescriptors(r, VK_PIPELINE_BIND_POINT_COMPUTE, push);
    r.descriptorDirty[1] &= ~push;
  }
  ++r.stats->dispatches;
  return true;
}

void VulkanDeviceImpl::execute(const cmd::Dispatch& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  onQueue(r, queueFor(vk::QueueKind::Compute));
  if (!prepareDispatch(r, c)) return;
  fns_->t.vkCmdDispatch(r.cmd, p.groupsX, p.groupsY, p.groupsZ);
}

void VulkanDeviceImpl::execute(const cmd::CopyBuffer& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  constexpr CommandType kType = CommandType::CopyBuffer;
  vk::Buffer* source = lookup(buffers_, p.source, kType, "source", c);
  vk::Buffer* destination = lookup(buffers_, p.destination, kType, "destination", c);
  if (!source || !destination) return;
  if (p.size == 0 || p.sourceOffset > source->desc.size || p.size > source->desc.size - p.sourceOffset ||
      p.destinationOffset > destination->desc.size || p.size > destination->desc.size - p.destinationOffset) {
    return reportPacket(kType, c, "empty, or the range passes the end of a buffer");
  }
  if (source == destination && p.sourceOffset < p.destinationOffset + p.size &&
      p.destinationOffset < p.sourceOffset + p.size) {
    return reportPacket(kType, c, "source and destination ranges overlap");
  }
  leaveRendering(r);
  onQueue(r, queueFor(vk::QueueKind::Transfer));
  if (source == destination) {
    use(r, *destination, kTransferSelf);
  } else {
    use(r, *source, kTransferRead);
    use(r, *destination, kTransferWrite);
  }
  ++r.writeEpoch;
  flushBarriers(r);
  const VkBufferCopy region{p.sourceOffset, p.destinationOffset, p.size};
  fns_->t.vkCmdCopyBuffer(r.cmd, source->get(), destination->get(), 1, &region);
}

void VulkanDeviceImpl::execute(const cmd::UpdateBuffer& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  vk::Buffer* buffer = lookup(buffers_, p.buffer, CommandType::UpdateBuffer, "buffer", c);
  if (!buffer) return;
  if (c.aux.empty() || p.offset > buffer->desc.size || c.aux.size() > buffer->desc.size - p.offset) {
    return reportPacket(CommandType::UpdateBuffer, c, "no data, or the data passes the end of the buffer");
  }
  leaveRendering(r);
  onQueue(r, queueFor(vk::QueueKind::Transfer));
  if (r.job) return recordJobUpload(r, *buffer, p.offset, c.aux, CommandType::UpdateBuffer, c);
  if (auto uploaded = uploadBuffer(*buffer, p.offset, c.aux); !uploaded) {
    reportPacket(CommandType::UpdateBuffer, c, uploaded.error().message);
  }
}

namespace {
bool rectInside(int32_t x, int32_t y, int64_t w, int64_t h, const TextureDesc& d) {
  return x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= int64_t{d.width} && y + h <= int64_t{d.height};
}
}  // namespace

void VulkanDeviceImpl::execute(const cmd::CopyTexture& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  constexpr CommandType kType = CommandType::CopyTexture;
  vk::Texture* source = lookup(textures_, p.source, kType, "source", c);
  vk::Texture* destination = lookup(textures_, p.destination, kType, "destination", c);
  if (!source || !destination) return;
  if (source->desc.format != destination->desc.format) return reportPacket(kType, c, "the formats differ");
  if (p.width == 0 || p.height == 0 || !rectInside(p.sourceX, p.sourceY, p.width, p.height, source->desc) ||
      !rectInside(p.destinationX, p.destinationY, p.width, p.height, destination->desc)) {
    return reportPacket(kType, c, "empty, or the rectangle passes the edge of a texture");
  }
  leaveRendering(r, source, destination);
  // A region the transfer queue's granularity does not allow is copied where compute can; depth, stencil
  // and shared memory only on graphics.
  const bool texelCopies = transferCopies(*source, 0, static_cast<uint32_t>(p.sourceX),
                                          static_cast<uint32_t>(p.sourceY), p.width, p.height) &&
                           transferCopies(*destination, 0, static_cast<uint32_t>(p.destinationX),
                                          static_cast<uint32_t>(p.destinationY), p.width, p.height);
  const bool offGraphics = copiesOffGraphics(*source) && copiesOffGraphics(*destination);
  onQueue(r, !offGraphics  ? vk::QueueKind::Graphics
             : texelCopies ? queueFor(vk::QueueKind::Transfer)
                           : queueFor(vk::QueueKind::Compute));
  VkImageLayout sourceLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkImageLayout destinationLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  if (source == destination) {
    use(r, *destination, kTransferSelf);  // one image, both ends: GENERAL
    sourceLayout = destinationLayout = VK_IMAGE_LAYOUT_GENERAL;
  } else {
    use(r, *source, kTransferRead);
    const bool whole = p.width == destination->desc.width && p.height == destination->desc.height &&
                       destination->mipLevels == 1;
    use(r, *destination, kTransferWrite, whole);
  }
  ++r.writeEpoch;
  flushBarriers(r);
  VkImageCopy region{};
  region.srcSubresource = {source->aspect, 0, 0, 1};
  region.srcOffset = {p.sourceX, p.sourceY, 0};
  region.dstSubresource = {destination->aspect, 0, 0, 1};
  region.dstOffset = {p.destinationX, p.destinationY, 0};
  region.extent = {p.width, p.height, 1};
  fns_->t.vkCmdCopyImage(r.cmd, source->image.get(), sourceLayout, destination->image.get(),
                         destinationLayout, 1, &region);
}

void VulkanDeviceImpl::execute(const cmd::BlitTexture& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r)) return;
  constexpr CommandType kType = CommandType::BlitTexture;
  vk::Texture* source = lookup(textures_, p.source, kType, "source", c);
  vk::Texture* destination = lookup(textures_, p.destination, kType, "destination", c);
  if (!source || !destination) return;
  auto inside = [](const int32_t q[4], const TextureDesc& d) {
    return q[0] >= 0 && q[1] >= 0 && q[2] >= 0 && q[3] >= 0 && q[0] <= int64_t{d.width} &&
           q[2] <= int64_t{d.width} && q[1] <= int64_t{d.height} && q[3] <= int64_t{d.height} &&
           q[0] != q[2] && q[1] != q[3];
  };
  if (!inside(p.sourceRect, source->desc) || !inside(p.destinationRect, destination->desc)) {
    return reportPacket(kType, c, "a rectangle is empty or passes the edge of its texture");
  }
  const bool depth =
      source->aspect != VK_IMAGE_ASPECT_COLOR_BIT || destination->aspect != VK_IMAGE_ASPECT_COLOR_BIT;
  if (depth && (source->desc.format != destination->desc.format || p.filter != Filter::Nearest)) {
    return reportPacket(kType, c, "depth blits need equal formats and the nearest filter");
  }
  if (!formatSupports(source->format, VK_FORMAT_FEATURE_BLIT_SRC_BIT) ||
      !formatSupports(destination->format, VK_FORMAT_FEATURE_BLIT_DST_BIT) ||
      (p.filter == Filter::Linear &&
       !formatSupports(source->format, VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT))) {
    return reportPacket(kType, c, "the formats do not support this blit on this device");
  }
  leaveRendering(r, source, destination);
  onQueue(r, vk::QueueKind::Graphics);  // blits need a graphics queue
  VkImageLayout sourceLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkImageLayout destinationLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  if (source == destination) {
    use(r, *destination, kTransferSelf);
    sourceLayout = destinationLayout = VK_IMAGE_LAYOUT_GENERAL;
  } else {
    use(r, *source, kTransferRead);
    use(r, *destination, kTransferWrite);
  }
  ++r.writeEpoch;
  flushBarriers(r);
  VkImageBlit blit{};
  blit.srcSubresource = {source->aspect, 0, 0, 1};
  blit.srcOffsets[0] = {p.sourceRect[0], p.sourceRect[1], 0};
  blit.srcOffsets[1] = {p.sourceRect[2], p.sourceRect[3], 1};
  blit.dstSubresource = {destination->aspect, 0, 0, 1};
  blit.dstOffsets[0] = {p.destinationRect[0], p.destinationRect[1], 0};
  blit.dstOffsets[1] = {p.destinationRect[2], p.destinationRect[3], 1};
  fns_->t.vkCmdBlitImage(r.cmd, source->image.get(), sourceLayout, destination->image.get(),
                         destinationLayout, 1, &blit, vk::toVkFilter(p.filter));
}

// ---------------------------------------------------------------------------------------------------------
// Debug labels (RenderDoc, validation messages)

void VulkanDeviceImpl::execute(const cmd::DebugMarkerBegin& p, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r) || !context_->debugUtils()) return;
  DebugLabel& label = r.labels.emplace_back();
  label.name.assign(reinterpret_cast<const char*>(c.aux.data()), c.aux.size());
  std::memcpy(label.color, p.color, sizeof label.color);
  beginDebugLabel(r.cmd, label);
}

void VulkanDeviceImpl::execute(const cmd::DebugMarkerEnd&, const PacketContext& c) {
  Recorder& r = rec();
  if (!beginSorted(r) || !context_->debugUtils()) return;
  if (r.labels.empty()) return reportPacket(CommandType::DebugMarkerEnd, c, "no DebugMarkerBegin is open");
  vkCmdEndDebugUtilsLabelEXT(r.cmd);
  r.labels.pop_back();
}

// ---------------------------------------------------------------------------------------------------------
// Wide translation: jobs record contiguous ranges of the sorted frame into command buffers of their own,
// on render workers, at the same time (Device's job interface; the renderer replays the state each job
// starts from, see runtime/internal/reel/runtime/translation_jobs.h).
//
// Command buffers: primaries, one per job, submitted in job order in the frame's one submission, rather
// than secondaries inheriting a render pass. A job, like the single-threaded walk, places a barrier inside
// a pass by ending rendering and resuming it with LOAD; a secondary that inherits dynamic rendering can
// neither end rendering nor record a barrier, so every such barrier would have to become a job boundary
// that only the recording itself finds. At a boundary inside a pass the job before ends rendering (after
// running the pass's clear if no draw did yet) and the next resumes with LOAD: one store and load of the
// attachments per job, and the same pixels.
//
// Barriers: a resource's synchronization state (vk::SyncState) belongs to the frame's single order of
// commands, which no job sees whole. So a job keeps its own view of each resource it touches (JobUse),
// starting at its first use there: that use is assumed to be met by a barrier placed before the job, and
// reads from before the job are assumed to be anything (ALL_COMMANDS as the source of later barriers in
// the job). Barriers within the job follow from that view as in the single-threaded walk. When every job
// has ended, endJobs walks the jobs in order with the true states: each job's first uses become barriers
// at the end of the command buffer before it, then the job's view updates the true state. Extra barriers
// are possible, missing ones are not; the images are those of one thread.

namespace {
constexpr VkPipelineStageFlags2 kUnknownReads = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;

// The state just after `use`, had a barrier made it safe.
vk::SyncState stateAfterFirst(const Use& use) {
  vk::SyncState s;
  if (use.write) {
    s.writeStages = use.stages;
    s.writeAccess = use.access & vk::kWriteAccess;
  } else {
    s.readStages = use.stages;
    s.visibleStages = use.stages;
    s.visibleAccess = use.access;
  }
  s.layout = use.layout;
  s.written = true;  // unknown: reads then ask for visibility (an extra barrier at most)
  return s;
}

uint32_t useHash(const void* resource, size_t mask) {
  const auto bits = reinterpret_cast<uintptr_t>(resource);
  return static_cast<uint32_t>(((bits >> 4) * 0x9E3779B97F4A7C15ull) >> 32) & static_cast<uint32_t>(mask);
}
}  // namespace

VulkanDeviceImpl::JobUse* VulkanDeviceImpl::findUse(Recorder& r, const void* resource) {
  if (r.useTable.empty()) return nullptr;
  const size_t mask = r.useTable.size() - 1;
  for (size_t i = useHash(resource, mask);; i = (i + 1) & mask) {
    const uint32_t slot = r.useTable[i];
    if (slot == 0) return nullptr;
    if (r.uses[slot - 1].resource == resource) return &r.uses[slot - 1];
  }
}

VulkanDeviceImpl::JobUse& VulkanDeviceImpl::addUse(Recorder& r, void* resource) {
  if ((r.uses.size() + 1) * 2 > r.useTable.size()) {
    // Grow at half full, and rebuild: entries are only ever added within a job.
    r.useTable.assign(std::max<size_t>(64, r.useTable.size() * 2), 0);
    const size_t mask = r.useTable.size() - 1;
    for (size_t u = 0; u < r.uses.size(); ++u) {
      size_t i = useHash(r.uses[u].resource, mask);
      while (r.useTable[i] != 0) i = (i + 1) & mask;
      r.useTable[i] = static_cast<uint32_t>(u + 1);
    }
  }
  const size_t mask = r.useTable.size() - 1;
  size_t i = useHash(resource, mask);
  while (r.useTable[i] != 0) i = (i + 1) & mask;
  r.uses.push_back(JobUse{});
  r.uses.back().resource = resource;
  r.useTable[i] = static_cast<uint32_t>(r.uses.size());
  return r.uses.back();
}

void VulkanDeviceImpl::use(Recorder& r, vk::Buffer& buffer, const Use& u) {
  if (!r.job) return r.barriers.use(buffer, u);
  JobUse* known = findUse(r, &buffer);
  if (!known) {
    JobUse& added = addUse(r, &buffer);
    added.first = u;
    added.inherited = !u.write;
    added.wrote = u.write;
    added.state = stateAfterFirst(u);
    return;
  }
  if (known->inherited) known->state.readStages |= kUnknownReads;
  r.barriers.use(known->state, buffer.get(), u);
  if (u.write) {
    known->inherited = false;
    known->wrote = true;
  }
  if (known->inherited) known->state.readStages &= ~kUnknownReads;
}

bool VulkanDeviceImpl::handOverInJob(Recorder& r, vk::Texture& texture, const Use& u, bool discard) {
  auto user = std::find_if(r.aliasUsers.begin(), r.aliasUsers.end(),
                           [&](const auto& entry) { return entry.first == texture.alias.get(); });
  if (user == r.aliasUsers.end()) {
    // The job's first use of the memory: a hand-over from before the job is endJobs' (BarrierBatch).
    r.aliasUsers.emplace_back(texture.alias.get(), texture.handle);
    return false;
  }
  if (user->second == texture.handle) return false;
  user->second = texture.handle;
  JobUse* known = findUse(r, &texture);
  if (!known) {
    known = &addUse(r, &texture);
    known->image = true;
    known->discard = discard;
    known->first = u;
    known->handedOver = true;
  }
  known->inherited = false;
  known->wrote = true;
  known->state = vk::handOverState();
  r.barriers.use(known->state, texture.image.get(), texture.aspect, u, discard);
  return true;
}

void VulkanDeviceImpl::use(Recorder& r, vk::Texture& texture, const Use& u, bool discard) {
  if (!r.job) return r.barriers.use(texture, u, discard);
  if (texture.alias && handOverInJob(r, texture, u, discard)) return;
  JobUse* known = findUse(r, &texture);
  if (!known) {
    JobUse& added = addUse(r, &texture);
    added.image = true;
    added.discard = discard;
    added.first = u;
    added.inherited = !u.write;
    added.wrote = u.write;
    added.state = stateAfterFirst(u);
    return;
  }
  if (known->inherited) known->state.readStages |= kUnknownReads;
  r.barriers.use(known->state, texture.image.get(), texture.aspect, u, discard);
  if (u.write) {
    known->inherited = false;
    known->wrote = true;
  }
  if (known->inherited) known->state.readStages &= ~kUnknownReads;
}

void VulkanDeviceImpl::settleRead(Recorder& r, vk::Buffer& buffer) {
  if (!settled(r, buffer, readUse(buffer.reads))) use(r, buffer, readUse(buffer.reads));
}

void VulkanDeviceImpl::settleRead(Recorder& r, vk::Texture& texture) {
  if (!settled(r, texture, readUse(texture.reads))) use(r, texture, readUse(texture.reads));
}

bool VulkanDeviceImpl::settled(Recorder& r, vk::Buffer& buffer, const Use& u) {
  if (!r.job) {
    const vk::QueueSegment* segment = r.barriers.segment();
    if (segment && !vk::isCurrent(buffer.queues, *segment, u)) return false;
    return vk::isSettled(buffer.sync, u, false);
  }
  const JobUse* known = findUse(r, &buffer);
  if (!known) return false;  // first use in the job: it must go through use() to be placed
  vk::SyncState s = known->state;
  if (known->inherited) s.readStages |= kUnknownReads;
  return vk::isSettled(s, u, false);
}

bool VulkanDeviceImpl::settled(Recorder& r, vk::Texture& texture, const Use& u) {
  if (!r.job) {
    if (vk::handedOver(texture)) return false;
    const vk::QueueSegment* segment = r.barriers.segment();
    if (segment && !vk::isCurrent(texture.queues, *segment, u)) return false;
    return vk::isSettled(texture.sync, u, true);
  }
  const JobUse* known = findUse(r, &texture);
  if (!known) return false;
  if (texture.alias) {
    // Another texture took the memory since this one's last use in the job.
    for (const auto& [memory, user] : r.aliasUsers) {
      if (memory == texture.alias.get() && user != texture.handle) return false;
    }
  }
  vk::SyncState s = known->state;
  if (known->inherited) s.readStages |= kUnknownReads;
  return vk::isSettled(s, u, true);
}

void VulkanDeviceImpl::recordJobUpload(Recorder& r, vk::Buffer& buffer, uint64_t offset,
                                       std::span<const std::byte> data, CommandType command,
                                       const PacketContext& context) {
  use(r, buffer, kTransferWrite);
  ++r.writeEpoch;
  // As uploadBuffer: small aligned updates travel in the command buffer itself.
  if (data.size() <= 65536 && data.size() % 4 == 0 && offset % 4 == 0) {
    flushBarriers(r);
    fns_->t.vkCmdUpdateBuffer(r.cmd, buffer.get(), offset, data.size(), data.data());
    return;
  }
  vk::LinearArena::Slice slice;
  {
    std::lock_guard lock(uploadMutex_);  // the frame context's one upload arena
    auto allocated = ctx_->upload.allocate(data.size(), 16);
    if (!allocated) return reportPacket(command, context, allocated.error().message);
    slice = *allocated;
    std::memcpy(slice.data, data.data(), data.size());
    allocator_->flush(*slice.memory, slice.offset, data.size());
  }
  flushBarriers(r);
  const VkBufferCopy region{slice.offset, offset, data.size()};
  fns_->t.vkCmdCopyBuffer(r.cmd, slice.buffer, buffer.get(), 1, &region);
}

uint32_t VulkanDeviceImpl::jobCapacity() const {
  return kMaxRenderWorkers;
}

void VulkanDeviceImpl::beginJobs(std::span<const QueueClass> queues) {
  const auto count = static_cast<uint32_t>(queues.size());
  REEL_ASSERT(count >= 1 && count <= kMaxRenderWorkers, "beginJobs: 1..kMaxRenderWorkers jobs");
  REEL_ASSERT(!main_.pass.rendering, "beginJobs inside rendering: requests never begin a pass");
  // The jobs' first uses' barriers go at the end of the command buffer before each job, on its queue;
  // the first job's before it is the render thread's, on graphics (the frame's requests may have left
  // it on the transfer queue).
  onQueue(main_, vk::QueueKind::Graphics);
  jobCount_ = ctx_ && !lost_ ? count : 0;
  while (jobs_.size() < jobCount_) jobs_.push_back(std::make_unique<Recorder>());
  jobQueues_.assign(count, vk::QueueKind::Graphics);
  const bool compute =
      severalQueues_ && queues_[static_cast<size_t>(vk::QueueKind::Compute)].queue != VK_NULL_HANDLE;
  for (uint32_t j = 0; j < count && compute; ++j) {
    if (queues[j] == QueueClass::AsyncCompute) jobQueues_[j] = vk::QueueKind::Compute;
  }
  if (jobCount_ == 0) return;
  // Pools are made here, on the render thread; each job then uses its own alone.
  if (auto made = ctx_->prepareJobPools(jobQueues_); !made) {
    reportError("frame " + std::to_string(frame_) + ": " + made.error().message);
    jobCount_ = 0;
  }
}

void VulkanDeviceImpl::beginJob(uint32_t job) {
  REEL_ASSERT(job < jobs_.size(), "beginJob: a job beginJobs did not announce");
  Recorder& r = *jobs_[job];
  r.job = true;
  r.replaying = true;
  r.stats = &r.jobStats;
  r.jobStats = VulkanDeviceStats{};
  r.uses.clear();
  r.aliasUsers.clear();
  std::fill(r.useTable.begin(), r.useTable.end(), 0u);
  r.writeEpoch = 1;
  r.checkedEpoch[0] = r.checkedEpoch[1] = 0;
  r.cmd = VK_NULL_HANDLE;
  resetBindings(r);
  r.recorded = Recorded{};
  if (job >= jobCount_) return;  // no frame open or the pools failed (reported): the job skips its packets
  auto cmd = ctx_->beginJobCommandBuffer(job, jobQueues_[job]);
  if (!cmd) {
    reportError("frame " + std::to_string(frame_) + ": job " + std::to_string(job) + ": " +
                cmd.error().message);
    return;
  }
  r.cmd = *cmd;
  invalidateRecorded(r);
}

void VulkanDeviceImpl::startJobRange() {
  Recorder& r = rec();
  r.replaying = false;
  r.jobStats = VulkanDeviceStats{};  // the replayed state is counted by the job it belongs to
}

void VulkanDeviceImpl::endJob(uint32_t job) {
  Recorder& r = *jobs_[job];
  if (r.cmd == VK_NULL_HANDLE) return;
  if (r.pass.open) {
    // The next job resumes this pass (its replayed BeginRenderPass says begun): the clear runs here if no
    // draw ran it yet, as the pass's end would.
    const bool clears =
        r.pass.colorLoad == LoadOp::Clear || (r.pass.depth && r.pass.depthLoad == LoadOp::Clear);
    if (!r.pass.begun && clears) ensureRendering(r);
    if (r.pass.rendering) fns_->t.vkCmdEndRendering(r.cmd);
    r.pass.rendering = false;
  }
  closeDebugLabels(r);  // the next job reopens the labels it starts in (replayed)
  flushBarriers(r);
}

bool VulkanDeviceImpl::jobWaitsForAnotherQueue(const Recorder& job) const {
  const vk::QueueSegment* segment = barriers_.segment();
  if (!segment) return false;
  return std::any_of(job.uses.begin(), job.uses.end(), [&](const JobUse& u) {
    if (u.handedOver) return false;
    return u.image ? vk::waitsForAnotherQueue(*static_cast<const vk::Texture*>(u.resource), *segment, u.first)
                   : vk::waitsForAnotherQueue(*static_cast<const vk::Buffer*>(u.resource), *segment, u.first);
  });
}

void VulkanDeviceImpl::endJobs() {
  if (jobCount_ == 0) return;
  // The render thread's command buffer so far (the frame's requests) ends the frame's first part; the
  // timer's first timestamp is in it and its last goes in the command buffer opened after the jobs.
  // Consecutive jobs for one queue make one submission; where the queue changes, what came before is
  // submitted and a command buffer on the next queue opens for the first uses' barriers (which also
  // find the semaphore waits that queue's submission needs, queues.h).
  VkCommandBuffer before = cmd_;
  vk::QueueKind queue = vk::QueueKind::Graphics;  // the queue of `before` and pendingCommandBuffers_
  bool jobsInSegment = false;                     // a job was joined since the last submission
  bool failed = false;
  auto close = [&](VkCommandBuffer cmd) {
    if (VkResult result = fns_->t.vkEndCommandBuffer(cmd); result != VK_SUCCESS) {
      handleVkFailure("vkEndCommandBuffer", result);
      failed = true;
    }
    pendingCommandBuffers_.push_back(cmd);
  };
  // Submits what records for `queue` and goes on with `next`; `open`: a command buffer for the next
  // job's first uses.
  auto moveTo = [&](vk::QueueKind next, bool open) {
    close(before);
    before = VK_NULL_HANDLE;
    if (!failed) {
      if (auto submitted = submitOn(queue, pendingCommandBuffers_); !submitted) {
        reportError("frame " + std::to_string(frame_) + ": " + submitted.error().message);
        failed = true;
      }
    }
    pendingCommandBuffers_.clear();
    jobsInSegment = false;
    queue = current_ = next;
    barriers_.setSegment(&segments_[static_cast<size_t>(next)]);
    if (failed || !open) return;
    auto cmd = ctx_->beginCommandBuffer(next);
    if (!cmd) {
      reportError("frame " + std::to_string(frame_) + ": " + cmd.error().message);
      failed = true;
      return;
    }
    before = *cmd;
  };
  for (uint32_t j = 0; j < jobCount_ && !failed; ++j) {
    Recorder& job = *jobs_[j];
    if (job.cmd == VK_NULL_HANDLE) continue;  // reported at beginJob
    if (jobQueues_[j] != queue) {
      moveTo(jobQueues_[j], true);
    } else if (jobsInSegment && jobWaitsForAnotherQueue(job)) {
      // As at a declared pass on the render thread: the jobs before it go without the wait.
      moveTo(queue, true);
      ++stats_.waitSplits;
    }
    if (failed) break;
    for (const JobUse& u : job.uses) {
      if (u.handedOver) continue;  // the job recorded its barrier
      if (u.image) {
        barriers_.use(*static_cast<vk::Texture*>(u.resource), u.first, u.discard);
      } else {
        barriers_.use(*static_cast<vk::Buffer*>(u.resource), u.first);
      }
    }
    barriers_.record(*fns_, before);
    close(before);
    for (const JobUse& u : job.uses) {
      vk::SyncState& truth =
          u.image ? static_cast<vk::Texture*>(u.resource)->sync : static_cast<vk::Buffer*>(u.resource)->sync;
      if (const vk::QueueSegment* segment = barriers_.segment(); segment && u.wrote) {
        // The first use above took the resource onto the job's queue; a later write in the job counts.
        vk::noteWrite(u.image ? static_cast<vk::Texture*>(u.resource)->queues
                              : static_cast<vk::Buffer*>(u.resource)->queues,
                      *segment);
      }
      if (u.wrote) {
        truth = u.state;  // everything since the job's last write is the job's own
      } else {
        // Reads only: the first one's barrier is in place (truth is after it); the rest added reads.
        truth.readStages |= u.state.readStages;
        truth.visibleStages |= u.state.visibleStages;
        truth.visibleAccess |= u.state.visibleAccess;
        truth.layout = u.state.layout;
      }
    }
    for (const auto& [memory, user] : job.aliasUsers) memory->lastUser = user;
    jobsInSegment = true;
    before = job.cmd;
    job.cmd = VK_NULL_HANDLE;
    const VulkanDeviceStats& js = job.jobStats;
    stats_.packets += js.packets;
    stats_.draws += js.draws;
    stats_.dispatches += js.dispatches;
    stats_.pipelineBinds += js.pipelineBinds;
    stats_.descriptorPushes += js.descriptorPushes;
    stats_.vertexBufferBinds += js.vertexBufferBinds;
    stats_.indexBufferBinds += js.indexBufferBinds;
    stats_.pushConstantCalls += js.pushConstantCalls;
    stats_.redundantBindsSkipped += js.redundantBindsSkipped;
    stats_.renderPasses += js.renderPasses;
    stats_.renderPassSuspensions += js.renderPassSuspensions;
    stats_.storesDiscarded += js.storesDiscarded;
  }
  // The rest of the frame (destroys, readbacks, presentation) records for graphics, in a new command
  // buffer.
  if (!failed && queue != vk::QueueKind::Graphics) moveTo(vk::QueueKind::Graphics, false);
  if (before != VK_NULL_HANDLE) close(before);
  for (uint32_t j = 0; j < jobCount_; ++j) jobs_[j]->cmd = VK_NULL_HANDLE;  // a failure left them unjoined
  jobCount_ = 0;
  cmd_ = VK_NULL_HANDLE;
  if (!failed) {
    if (auto cmd = ctx_->beginCommandBuffer()) {
      cmd_ = *cmd;
      resetBindings(main_);
      invalidateRecorded(main_);
      return;
    } else {
      reportError("frame " + std::to_string(frame_) + ": " + cmd.error().message);
    }
  }
  pendingCommandBuffers_.clear();  // nothing more of this frame is submitted
  current_ = vk::QueueKind::Graphics;
  if (severalQueues_) barriers_.setSegment(&segments_[0]);
}

}  // namespace reel
