// Sorted packets -> Vulkan commands. The hot path of the render thread.
//
// Binds only record what the app wants bound (bound_) and mark it dirty; a draw or dispatch applies the
// dirty parts, comparing each with what the command buffer last recorded (recorded_), so a bind that
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

inline bool VulkanDeviceImpl::beginSorted() {
  ++stats_.packets;
  return cmd_ != VK_NULL_HANDLE;  // no frame open: the device is lost or the frame failed to begin (reported)
}

void VulkanDeviceImpl::reportPacket(CommandType command, const PacketContext& context,
                                    const std::string& message) {
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

void VulkanDeviceImpl::flushBarriers() {
  if (!barriers_.empty()) barriers_.record(*fns_, cmd_);
}

void VulkanDeviceImpl::resetBindings() {
  bound_ = Bound{};
  pass_ = Pass{};
  dirty_ = kCheckGraphics | kCheckCompute;
  graphicsSettled_ = 0;
  descriptorDirty_[0] = descriptorDirty_[1] = 0;
  debugLabels_ = 0;
}

void VulkanDeviceImpl::invalidateRecorded() {
  recorded_ = Recorded{};
  // A new command buffer knows nothing: everything the app has bound must be recorded again.
  dirty_ |= kDirtyGraphicsPipeline | kDirtyComputePipeline | kDirtyVertex | kDirtyIndex | kDirtyViewport |
            kDirtyScissor | kCheckGraphics | kCheckCompute;
  descriptorDirty_[0] = descriptorDirty_[1] = bound_.descriptorMask;
  if (bound_.pushBytes > 0) {
    fns_->t.vkCmdPushConstants(cmd_, pipelines_->layout(), binding::kStages, 0, bound_.pushBytes,
                               bound_.push);
  }
}

void VulkanDeviceImpl::closeDebugLabels() {
  for (; debugLabels_ > 0; --debugLabels_) vkCmdEndDebugUtilsLabelEXT(cmd_);
}

// ---------------------------------------------------------------------------------------------------------
// Render passes

bool VulkanDeviceImpl::ensureRendering() {
  if (pass_.rendering) return true;
  if (!pass_.open) return false;
  const bool resume = pass_.begun;
  for (uint32_t i = 0; i < pass_.colorCount; ++i) {
    barriers_.use(*pass_.colors[i], kColorAttachment, !resume && pass_.colorLoad != LoadOp::Load);
  }
  if (pass_.depth) barriers_.use(*pass_.depth, kDepthAttachment, !resume && pass_.depthLoad != LoadOp::Load);
  ++writeEpoch_;
  flushBarriers();

  VkRenderingAttachmentInfo colors[4];
  for (uint32_t i = 0; i < pass_.colorCount; ++i) {
    colors[i] = vk::make<VkRenderingAttachmentInfo>(VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO);
    colors[i].imageView = pass_.colors[i]->attachmentView.get();
    colors[i].imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colors[i].loadOp = loadOp(pass_.colorLoad, resume);
    colors[i].storeOp = VK_ATTACHMENT_STORE_OP_STORE;  // a target may be sampled, read back or captured later
    colors[i].clearValue.color = pass_.clearColor;
  }
  auto depth = vk::make<VkRenderingAttachmentInfo>(VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO);
  if (pass_.depth) {
    depth.imageView = pass_.depth->attachmentView.get();
    depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    depth.loadOp = loadOp(pass_.depthLoad, resume);
    depth.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    depth.clearValue.depthStencil = {pass_.clearDepth, pass_.clearStencil};
  }
  auto info = vk::make<VkRenderingInfo>(VK_STRUCTURE_TYPE_RENDERING_INFO);
  info.renderArea = {{0, 0}, pass_.extent};
  info.layerCount = 1;
  info.colorAttachmentCount = pass_.colorCount;
  info.pColorAttachments = colors;
  info.pDepthAttachment = pass_.depth ? &depth : nullptr;
  info.pStencilAttachment =
      pass_.depth && (pass_.depth->aspect & VK_IMAGE_ASPECT_STENCIL_BIT) ? &depth : nullptr;
  fns_->t.vkCmdBeginRendering(cmd_, &info);
  pass_.rendering = true;
  pass_.begun = true;
  ++stats_.renderPasses;
  return true;
}

void VulkanDeviceImpl::suspendRendering() {
  fns_->t.vkCmdEndRendering(cmd_);
  pass_.rendering = false;
  ++stats_.renderPassSuspensions;
}

void VulkanDeviceImpl::leaveRendering(const vk::Texture* touched1, const vk::Texture* touched2) {
  if (pass_.open && !pass_.begun && (touched1 || touched2)) {
    // The pass's clear has not run yet (lazy begin): run it first if this command touches an attachment,
    // so that the command sees the cleared image, as it would have with an eager begin.
    bool touches = false;
    for (uint32_t i = 0; i < pass_.colorCount; ++i) {
      touches |= pass_.colors[i] == touched1 || pass_.colors[i] == touched2;
    }
    touches |= pass_.depth && (pass_.depth == touched1 || pass_.depth == touched2);
    if (touches) ensureRendering();
  }
  if (pass_.rendering) suspendRendering();
}

void VulkanDeviceImpl::endPass() {
  const bool clears = pass_.colorLoad == LoadOp::Clear || (pass_.depth && pass_.depthLoad == LoadOp::Clear);
  if (!pass_.begun && clears) ensureRendering();  // a pass with no draw still clears
  if (pass_.rendering) fns_->t.vkCmdEndRendering(cmd_);
  pass_ = Pass{};
}

void VulkanDeviceImpl::execute(const cmd::BeginRenderPass& p, const PacketContext& c) {
  if (!beginSorted()) return;
  constexpr CommandType kType = CommandType::BeginRenderPass;
  if (pass_.open) {
    reportPacket(kType, c, "a render pass is already open (EndRenderPass missing); it is closed first");
    endPass();
  }
  vk::RenderTarget* target = lookup(targets_, p.target, kType, "target", c);
  if (!target) return;
  if (static_cast<uint8_t>(p.colorLoad) > static_cast<uint8_t>(LoadOp::DontCare) ||
      static_cast<uint8_t>(p.depthLoad) > static_cast<uint8_t>(LoadOp::DontCare)) {
    return reportPacket(kType, c, "unknown load op");
  }
  Pass pass;
  for (uint32_t i = 0; i < target->desc.colorCount; ++i) {
    auto* slot = textures_.find(target->desc.colors[i]);
    if (!slot) {
      return reportPacket(kType, c,
                          "the target's colors[" + std::to_string(i) + "] names " +
                              formatHandle(target->desc.colors[i]) + ", which is not live on the device");
    }
    pass.colors[i] = slot->get();
  }
  if (!target->desc.depth.isNull()) {
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
  pass.serial = ++passSerial_;
  pass_ = pass;
  // A pass starts with the whole target as viewport and scissor; SetViewport / SetScissor after it override.
  bound_.viewport = {0.0f, 0.0f, float(pass.extent.width), float(pass.extent.height), 0.0f, 1.0f};
  bound_.scissor = {{0, 0}, pass.extent};
  dirty_ |= kDirtyViewport | kDirtyScissor | kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::EndRenderPass&, const PacketContext& c) {
  if (!beginSorted()) return;
  if (!pass_.open) return reportPacket(CommandType::EndRenderPass, c, "no render pass is open");
  endPass();
}

void VulkanDeviceImpl::execute(const cmd::SetViewport& p, const PacketContext& c) {
  if (!beginSorted()) return;
  if (!(p.width > 0.0f) || p.height == 0.0f || !(p.minDepth >= 0.0f && p.minDepth <= 1.0f) ||
      !(p.maxDepth >= 0.0f && p.maxDepth <= 1.0f)) {
    return reportPacket(CommandType::SetViewport, c,
                        "width must be > 0, height != 0 and depths within [0, 1]");
  }
  const VkViewport v{p.x, p.y, p.width, p.height, p.minDepth, p.maxDepth};
  if (std::memcmp(&v, &bound_.viewport, sizeof v) == 0) {
    ++stats_.redundantBindsSkipped;
    return;
  }
  bound_.viewport = v;
  dirty_ |= kDirtyViewport;
}

void VulkanDeviceImpl::execute(const cmd::SetScissor& p, const PacketContext& c) {
  if (!beginSorted()) return;
  if (p.x < 0 || p.y < 0 || p.width > uint32_t(INT32_MAX - p.x) || p.height > uint32_t(INT32_MAX - p.y)) {
    return reportPacket(CommandType::SetScissor, c, "the rectangle must start at x, y >= 0 and fit in int32");
  }
  const VkRect2D s{{p.x, p.y}, {p.width, p.height}};
  if (std::memcmp(&s, &bound_.scissor, sizeof s) == 0) {
    ++stats_.redundantBindsSkipped;
    return;
  }
  bound_.scissor = s;
  dirty_ |= kDirtyScissor;
}

// ---------------------------------------------------------------------------------------------------------
// Binds: record what is wanted; draws apply it.

void VulkanDeviceImpl::execute(const cmd::BindPipeline& p, const PacketContext& c) {
  if (!beginSorted()) return;
  vk::Pipeline* pipeline = lookup(pipelineRecords_, p.pipeline, CommandType::BindPipeline, "pipeline", c);
  if (!pipeline) return;
  vk::Pipeline*& slot = pipeline->compute() ? bound_.compute : bound_.graphics;
  if (slot == pipeline) {
    ++stats_.redundantBindsSkipped;
    return;
  }
  slot = pipeline;
  if (pipeline->compute()) {
    dirty_ |= kDirtyComputePipeline | kCheckCompute;
    return;
  }
  dirty_ |= kDirtyGraphicsPipeline;
  // A pipeline that reads bindings (or vertices) the last check did not cover needs a new check; one that
  // reads no more than that does not: whatever was re-bound or written since then asked for its own check.
  if (pipeline->settles & ~graphicsSettled_) dirty_ |= kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::BindVertexBuffer& p, const PacketContext& c) {
  if (!beginSorted()) return;
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
  if (bound_.vertex[p.slot] == buffer && bound_.vertexOffset[p.slot] == p.offset) {
    ++stats_.redundantBindsSkipped;
    return;
  }
  bound_.vertex[p.slot] = buffer;
  bound_.vertexOffset[p.slot] = p.offset;
  dirty_ |= kDirtyVertex;
  if (buffer && !vk::isSettled(buffer->sync, readUse(buffer->reads), false)) dirty_ |= kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::BindIndexBuffer& p, const PacketContext& c) {
  if (!beginSorted()) return;
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
  if (bound_.index == buffer && bound_.indexOffset == p.offset && bound_.indexType == type) {
    ++stats_.redundantBindsSkipped;
    return;
  }
  bound_.index = buffer;
  bound_.indexOffset = p.offset;
  bound_.indexType = type;
  dirty_ |= kDirtyIndex;
  if (buffer && !vk::isSettled(buffer->sync, readUse(buffer->reads), false)) dirty_ |= kCheckGraphics;
}

void VulkanDeviceImpl::execute(const cmd::BindTexture& p, const PacketContext& c) {
  if (!beginSorted()) return;
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
  if (bound_.texture[p.slot] == texture && bound_.sampler[p.slot] == sampler) {
    ++stats_.redundantBindsSkipped;
    return;
  }
  const uint32_t bit = 1u << (binding::kTextureBase + p.slot);
  bound_.texture[p.slot] = texture;
  bound_.sampler[p.slot] = sampler;
  bound_.descriptorMask = texture ? (bound_.descriptorMask | bit) : (bound_.descriptorMask & ~bit);
  descriptorDirty_[0] |= bit;
  descriptorDirty_[1] |= bit;
  // A texture that is ready to be sampled needs no check; one that is not (written since, or an attachment
  // of the open pass) is settled or reported at the next draw. Writes after this bind bump writeEpoch_.
  if (texture && !vk::isSettled(texture->sync, readUse(texture->reads), true)) {
    dirty_ |= kCheckGraphics | kCheckCompute;
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
    if (!beginSorted()) return;                                                                         \
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
    if (bound_.array[p.slot] == buffer && bound_.offsets[p.slot] == p.offset &&                         \
        bound_.ranges[p.slot] == range) {                                                               \
      ++stats_.redundantBindsSkipped;                                                                   \
      return;                                                                                           \
    }                                                                                                   \
    const uint32_t bit = 1u << (base + p.slot);                                                         \
    bound_.array[p.slot] = buffer;                                                                      \
    bound_.offsets[p.slot] = p.offset;                                                                  \
    bound_.ranges[p.slot] = range;                                                                      \
    bound_.descriptorMask = buffer ? (bound_.descriptorMask | bit) : (bound_.descriptorMask & ~bit);    \
    descriptorDirty_[0] |= bit;                                                                         \
    descriptorDirty_[1] |= bit;                                                                         \
    if (buffer && !vk::isSettled(buffer->sync, readUse(buffer->reads), false)) {                        \
      dirty_ |= kCheckGraphics | kCheckCompute;                                                         \
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
  if (!beginSorted()) return;
  const uint32_t size = static_cast<uint32_t>(c.aux.size());
  if (p.offset % 4 != 0 || size % 4 != 0 || size == 0 || p.offset > binding::kPushConstantBytes ||
      size > binding::kPushConstantBytes - p.offset) {
    return reportPacket(CommandType::PushConstants, c,
                        "offset and size must be multiples of 4 within the 128 push-constant bytes");
  }
  if (p.offset + size <= bound_.pushBytes && std::memcmp(bound_.push + p.offset, c.aux.data(), size) == 0) {
    ++stats_.redundantBindsSkipped;
    return;
  }
  std::memcpy(bound_.push + p.offset, c.aux.data(), size);
  bound_.pushBytes = std::max(bound_.pushBytes, p.offset + size);
  // Pushed at once: constants are command-buffer state like any bind, and the packet's bytes are copied.
  fns_->t.vkCmdPushConstants(cmd_, pipelines_->layout(), binding::kStages, p.offset, size, c.aux.data());
  ++stats_.pushConstantCalls;
}

// ---------------------------------------------------------------------------------------------------------
// Draws

void VulkanDeviceImpl::pushDescriptors(VkPipelineBindPoint point, uint32_t bits) {
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
      buffers[count] = {bound_.uniform[b]->get(), bound_.uniformOffset[b], bound_.uniformRange[b]};
      w.pBufferInfo = &buffers[count];
    } else if (b < binding::kStorageBase) {
      const uint32_t s = b - binding::kTextureBase;
      w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      images[count] = {bound_.sampler[s], bound_.texture[s]->view.get(),
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      w.pImageInfo = &images[count];
    } else {
      const uint32_t s = b - binding::kStorageBase;
      w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      buffers[count] = {bound_.storage[s]->get(), bound_.storageOffset[s], bound_.storageRange[s]};
      w.pBufferInfo = &buffers[count];
    }
    ++count;
  }
  if (count == 0) return;
  fns_->t.vkCmdPushDescriptorSetKHR(cmd_, point, pipelines_->layout(), 0, count, writes);
  ++stats_.descriptorPushes;
}

bool VulkanDeviceImpl::settleBound(bool graphics, CommandType command, const PacketContext& context) {
  const vk::Pipeline* pipeline = graphics ? bound_.graphics : bound_.compute;
  auto settle = [&](vk::Buffer* b) {
    if (b && !vk::isSettled(b->sync, readUse(b->reads), false)) barriers_.use(*b, readUse(b->reads));
  };
  if (graphics) {
    if (pipeline->settles & vk::Pipeline::kSettlesVertices) {
      for (vk::Buffer* b : bound_.vertex) settle(b);
    }
    settle(bound_.index);
  }
  const uint32_t used = pipeline->bindings & bound_.descriptorMask;
  for (uint32_t rest = used; rest != 0; rest &= rest - 1) {
    const uint32_t b = static_cast<uint32_t>(std::countr_zero(rest));
    if (b < binding::kTextureBase) {
      settle(bound_.uniform[b]);
    } else if (b < binding::kStorageBase) {
      vk::Texture* t = bound_.texture[b - binding::kTextureBase];
      if (graphics && pass_.open) {
        bool attachment = t == pass_.depth;
        for (uint32_t i = 0; i < pass_.colorCount; ++i) attachment |= t == pass_.colors[i];
        if (attachment) {
          barriers_.clear();
          reportPacket(command, context,
                       "texture slot " + std::to_string(b - binding::kTextureBase) +
                           " samples an attachment of the open render pass (a feedback loop)");
          return false;
        }
      }
      if (!vk::isSettled(t->sync, readUse(t->reads), true)) barriers_.use(*t, readUse(t->reads));
    } else if (graphics) {
      settle(bound_.storage[b - binding::kStorageBase]);  // read-only in graphics stages
    } else {
      barriers_.use(*bound_.storage[b - binding::kStorageBase], kComputeStorage);
    }
  }
  return true;
}

bool VulkanDeviceImpl::prepareDraw(CommandType command, const PacketContext& context) {
  if (!pass_.open) {
    reportPacket(command, context, "a draw outside a render pass");
    return false;
  }
  vk::Pipeline* pipeline = bound_.graphics;
  if (!pipeline) {
    reportPacket(command, context, "no graphics pipeline is bound");
    return false;
  }
  if (pipeline->formatCheckedPass != pass_.serial) {
    // The pipeline's attachment formats must be the pass's (dynamic rendering checks nothing itself).
    const PipelineDesc& d = pipeline->desc();
    bool match = d.colorCount == pass_.colorCount &&
                 d.depthFormat == (pass_.depth ? pass_.depth->desc.format : Format::Undefined);
    for (uint32_t i = 0; match && i < d.colorCount; ++i) {
      match = d.colorFormats[i] == pass_.colors[i]->desc.format;
    }
    if (!match) {
      reportPacket(command, context,
                   "the bound pipeline's attachment formats differ from the render target's");
      return false;
    }
    pipeline->formatCheckedPass = pass_.serial;
  }
  if (const uint32_t missing = pipeline->bindings & ~bound_.descriptorMask) {
    reportPacket(command, context,
                 "the pipeline uses binding " + std::to_string(std::countr_zero(missing)) +
                     ", which nothing is bound to");
    return false;
  }
  if ((pipeline->settles & vk::Pipeline::kSettlesVertices) && !bound_.vertex[0]) {
    reportPacket(command, context, "the pipeline reads vertices but no vertex buffer is bound to slot 0");
    return false;
  }
  if ((dirty_ & kCheckGraphics) || checkedEpoch_[0] != writeEpoch_) {
    if (!settleBound(true, command, context)) return false;
    dirty_ &= ~kCheckGraphics;
    checkedEpoch_[0] = writeEpoch_;
    graphicsSettled_ = pipeline->settles;
  }
  if (!barriers_.empty() && pass_.rendering) suspendRendering();
  if (!pass_.rendering) {
    ensureRendering();  // records the pending barriers with the attachments' own
    checkedEpoch_[0] = writeEpoch_;
  }

  // Apply what changed since the last draw; each against what this command buffer recorded last.
  if (dirty_ & (kDirtyGraphicsPipeline | kDirtyVertex | kDirtyIndex | kDirtyViewport | kDirtyScissor)) {
    if (dirty_ & kDirtyGraphicsPipeline) {
      if (recorded_.graphics != pipeline->get()) {
        fns_->t.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline->get());
        recorded_.graphics = pipeline->get();
        ++stats_.pipelineBinds;
      } else {
        ++stats_.redundantBindsSkipped;
      }
    }
    if (dirty_ & kDirtyVertex) {
      for (uint32_t i = 0; i < binding::kVertexSlots; ++i) {
        const vk::Buffer* b = bound_.vertex[i];
        if (!b || (recorded_.vertex[i] == b->get() && recorded_.vertexOffset[i] == bound_.vertexOffset[i])) {
          continue;
        }
        const VkBuffer buffer = b->get();
        fns_->t.vkCmdBindVertexBuffers(cmd_, i, 1, &buffer, &bound_.vertexOffset[i]);
        recorded_.vertex[i] = buffer;
        recorded_.vertexOffset[i] = bound_.vertexOffset[i];
        ++stats_.vertexBufferBinds;
      }
    }
    if ((dirty_ & kDirtyIndex) && bound_.index &&
        (recorded_.index != bound_.index->get() || recorded_.indexOffset != bound_.indexOffset ||
         recorded_.indexType != bound_.indexType)) {
      fns_->t.vkCmdBindIndexBuffer(cmd_, bound_.index->get(), bound_.indexOffset, bound_.indexType);
      recorded_.index = bound_.index->get();
      recorded_.indexOffset = bound_.indexOffset;
      recorded_.indexType = bound_.indexType;
      ++stats_.indexBufferBinds;
    }
    if ((dirty_ & kDirtyViewport) &&
        (!recorded_.viewportSet ||
         std::memcmp(&recorded_.viewport, &bound_.viewport, sizeof(VkViewport)) != 0)) {
      fns_->t.vkCmdSetViewport(cmd_, 0, 1, &bound_.viewport);
      recorded_.viewport = bound_.viewport;
      recorded_.viewportSet = true;
    }
    if ((dirty_ & kDirtyScissor) &&
        (!recorded_.scissorSet || std::memcmp(&recorded_.scissor, &bound_.scissor, sizeof(VkRect2D)) != 0)) {
      fns_->t.vkCmdSetScissor(cmd_, 0, 1, &bound_.scissor);
      recorded_.scissor = bound_.scissor;
      recorded_.scissorSet = true;
    }
    dirty_ &= ~(kDirtyGraphicsPipeline | kDirtyVertex | kDirtyIndex | kDirtyViewport | kDirtyScissor);
  }
  if (const uint32_t push = descriptorDirty_[0] & pipeline->bindings) {
    pushDescriptors(VK_PIPELINE_BIND_POINT_GRAPHICS, push);
    descriptorDirty_[0] &= ~push;
  }
  ++stats_.draws;
  return true;
}

void VulkanDeviceImpl::execute(const cmd::Draw& p, const PacketContext& c) {
  if (!beginSorted() || !prepareDraw(CommandType::Draw, c)) return;
  fns_->t.vkCmdDraw(cmd_, p.vertexCount, 1, p.firstVertex, 0);
}

void VulkanDeviceImpl::execute(const cmd::DrawInstanced& p, const PacketContext& c) {
  if (!beginSorted() || !prepareDraw(CommandType::DrawInstanced, c)) return;
  fns_->t.vkCmdDraw(cmd_, p.vertexCount, p.instanceCount, p.firstVertex, p.firstInstance);
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
  if (!beginSorted()) return;
  if (!indicesFit(bound_.index, bound_.indexOffset, bound_.indexType, p.firstIndex, p.indexCount)) {
    return reportPacket(CommandType::DrawIndexed, c, "no index buffer bound, or the indices pass its end");
  }
  if (!prepareDraw(CommandType::DrawIndexed, c)) return;
  fns_->t.vkCmdDrawIndexed(cmd_, p.indexCount, 1, p.firstIndex, p.vertexOffset, 0);
}

void VulkanDeviceImpl::execute(const cmd::DrawIndexedInstanced& p, const PacketContext& c) {
  if (!beginSorted()) return;
  if (!indicesFit(bound_.index, bound_.indexOffset, bound_.indexType, p.firstIndex, p.indexCount)) {
    return reportPacket(CommandType::DrawIndexedInstanced, c,
                        "no index buffer bound, or the indices pass its end");
  }
  if (!prepareDraw(CommandType::DrawIndexedInstanced, c)) return;
  fns_->t.vkCmdDrawIndexed(cmd_, p.indexCount, p.instanceCount, p.firstIndex, p.vertexOffset,
                           p.firstInstance);
}

// ---------------------------------------------------------------------------------------------------------
// Compute and transfers: outside rendering.

bool VulkanDeviceImpl::prepareDispatch(const PacketContext& context) {
  vk::Pipeline* pipeline = bound_.compute;
  if (!pipeline) {
    reportPacket(CommandType::Dispatch, context, "no compute pipeline is bound");
    return false;
  }
  if (const uint32_t missing = pipeline->bindings & ~bound_.descriptorMask) {
    reportPacket(CommandType::Dispatch, context,
                 "the pipeline uses binding " + std::to_string(std::countr_zero(missing)) +
                     ", which nothing is bound to");
    return false;
  }
  const vk::Texture* sampled[2] = {};
  for (uint32_t s = 0, n = 0; s < binding::kTextureSlots && n < 2; ++s) {
    if (pipeline->bindings & (1u << (binding::kTextureBase + s))) sampled[n++] = bound_.texture[s];
  }
  leaveRendering(sampled[0], sampled[1]);
  // Storage buffers are written by every dispatch (no reflection of what the shader writes): settle is
  // run each time, which orders dispatch after dispatch on the same buffer.
  if (!settleBound(false, CommandType::Dispatch, context)) return false;
  if (pipeline->bindings & (((1u << binding::kStorageSlots) - 1) << binding::kStorageBase)) ++writeEpoch_;
  flushBarriers();
  if (recorded_.compute != pipeline->get()) {
    fns_->t.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->get());
    recorded_.compute = pipeline->get();
    ++stats_.pipelineBinds;
  }
  dirty_ &= ~(kDirtyComputePipeline | kCheckCompute);
  if (const uint32_t push = descriptorDirty_[1] & pipeline->bindings) {
    pushDescriptors(VK_PIPELINE_BIND_POINT_COMPUTE, push);
    descriptorDirty_[1] &= ~push;
  }
  ++stats_.dispatches;
  return true;
}

void VulkanDeviceImpl::execute(const cmd::Dispatch& p, const PacketContext& c) {
  if (!beginSorted() || !prepareDispatch(c)) return;
  fns_->t.vkCmdDispatch(cmd_, p.groupsX, p.groupsY, p.groupsZ);
}

void VulkanDeviceImpl::execute(const cmd::CopyBuffer& p, const PacketContext& c) {
  if (!beginSorted()) return;
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
  leaveRendering();
  if (source == destination) {
    barriers_.use(*destination, kTransferSelf);
  } else {
    barriers_.use(*source, kTransferRead);
    barriers_.use(*destination, kTransferWrite);
  }
  ++writeEpoch_;
  flushBarriers();
  const VkBufferCopy region{p.sourceOffset, p.destinationOffset, p.size};
  fns_->t.vkCmdCopyBuffer(cmd_, source->get(), destination->get(), 1, &region);
}

void VulkanDeviceImpl::execute(const cmd::UpdateBuffer& p, const PacketContext& c) {
  if (!beginSorted()) return;
  vk::Buffer* buffer = lookup(buffers_, p.buffer, CommandType::UpdateBuffer, "buffer", c);
  if (!buffer) return;
  if (c.aux.empty() || p.offset > buffer->desc.size || c.aux.size() > buffer->desc.size - p.offset) {
    return reportPacket(CommandType::UpdateBuffer, c, "no data, or the data passes the end of the buffer");
  }
  leaveRendering();
  if (auto r = uploadBuffer(*buffer, p.offset, c.aux); !r) {
    reportPacket(CommandType::UpdateBuffer, c, r.error().message);
  }
}

namespace {
bool rectInside(int32_t x, int32_t y, int64_t w, int64_t h, const TextureDesc& d) {
  return x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= int64_t{d.width} && y + h <= int64_t{d.height};
}
}  // namespace

void VulkanDeviceImpl::execute(const cmd::CopyTexture& p, const PacketContext& c) {
  if (!beginSorted()) return;
  constexpr CommandType kType = CommandType::CopyTexture;
  vk::Texture* source = lookup(textures_, p.source, kType, "source", c);
  vk::Texture* destination = lookup(textures_, p.destination, kType, "destination", c);
  if (!source || !destination) return;
  if (source->desc.format != destination->desc.format) return reportPacket(kType, c, "the formats differ");
  if (p.width == 0 || p.height == 0 || !rectInside(p.sourceX, p.sourceY, p.width, p.height, source->desc) ||
      !rectInside(p.destinationX, p.destinationY, p.width, p.height, destination->desc)) {
    return reportPacket(kType, c, "empty, or the rectangle passes the edge of a texture");
  }
  leaveRendering(source, destination);
  VkImageLayout sourceLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkImageLayout destinationLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  if (source == destination) {
    barriers_.use(*destination, kTransferSelf);  // one image, both ends: GENERAL
    sourceLayout = destinationLayout = VK_IMAGE_LAYOUT_GENERAL;
  } else {
    barriers_.use(*source, kTransferRead);
    const bool whole = p.width == destination->desc.width && p.height == destination->desc.height &&
                       destination->mipLevels == 1;
    barriers_.use(*destination, kTransferWrite, whole);
  }
  ++writeEpoch_;
  flushBarriers();
  VkImageCopy region{};
  region.srcSubresource = {source->aspect, 0, 0, 1};
  region.srcOffset = {p.sourceX, p.sourceY, 0};
  region.dstSubresource = {destination->aspect, 0, 0, 1};
  region.dstOffset = {p.destinationX, p.destinationY, 0};
  region.extent = {p.width, p.height, 1};
  fns_->t.vkCmdCopyImage(cmd_, source->image.get(), sourceLayout, destination->image.get(), destinationLayout,
                         1, &region);
}

void VulkanDeviceImpl::execute(const cmd::BlitTexture& p, const PacketContext& c) {
  if (!beginSorted()) return;
  constexpr CommandType kType = CommandType::BlitTexture;
  vk::Texture* source = lookup(textures_, p.source, kType, "source", c);
  vk::Texture* destination = lookup(textures_, p.destination, kType, "destination", c);
  if (!source || !destination) return;
  auto inside = [](const int32_t r[4], const TextureDesc& d) {
    return r[0] >= 0 && r[1] >= 0 && r[2] >= 0 && r[3] >= 0 && r[0] <= int64_t{d.width} &&
           r[2] <= int64_t{d.width} && r[1] <= int64_t{d.height} && r[3] <= int64_t{d.height} &&
           r[0] != r[2] && r[1] != r[3];
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
  leaveRendering(source, destination);
  VkImageLayout sourceLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkImageLayout destinationLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  if (source == destination) {
    barriers_.use(*destination, kTransferSelf);
    sourceLayout = destinationLayout = VK_IMAGE_LAYOUT_GENERAL;
  } else {
    barriers_.use(*source, kTransferRead);
    barriers_.use(*destination, kTransferWrite);
  }
  ++writeEpoch_;
  flushBarriers();
  VkImageBlit blit{};
  blit.srcSubresource = {source->aspect, 0, 0, 1};
  blit.srcOffsets[0] = {p.sourceRect[0], p.sourceRect[1], 0};
  blit.srcOffsets[1] = {p.sourceRect[2], p.sourceRect[3], 1};
  blit.dstSubresource = {destination->aspect, 0, 0, 1};
  blit.dstOffsets[0] = {p.destinationRect[0], p.destinationRect[1], 0};
  blit.dstOffsets[1] = {p.destinationRect[2], p.destinationRect[3], 1};
  fns_->t.vkCmdBlitImage(cmd_, source->image.get(), sourceLayout, destination->image.get(), destinationLayout,
                         1, &blit, vk::toVkFilter(p.filter));
}

// ---------------------------------------------------------------------------------------------------------
// Debug labels (RenderDoc, validation messages)

void VulkanDeviceImpl::execute(const cmd::DebugMarkerBegin& p, const PacketContext& c) {
  if (!beginSorted() || !context_->debugUtils()) return;
  const std::string label(reinterpret_cast<const char*>(c.aux.data()), c.aux.size());
  auto info = vk::make<VkDebugUtilsLabelEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT);
  info.pLabelName = label.c_str();
  std::memcpy(info.color, p.color, sizeof info.color);
  vkCmdBeginDebugUtilsLabelEXT(cmd_, &info);
  ++debugLabels_;
}

void VulkanDeviceImpl::execute(const cmd::DebugMarkerEnd&, const PacketContext& c) {
  if (!beginSorted() || !context_->debugUtils()) return;
  if (debugLabels_ == 0) return reportPacket(CommandType::DebugMarkerEnd, c, "no DebugMarkerBegin is open");
  vkCmdEndDebugUtilsLabelEXT(cmd_);
  --debugLabels_;
}

}  // namespace reel
