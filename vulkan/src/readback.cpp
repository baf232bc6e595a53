// Readback: synchronous readBuffer / readTexture (capture, tests) and asynchronous per-frame requests.
#include <cstring>

#include "vulkan_device_impl.h"

namespace reel {

namespace {

constexpr vk::Use kTransferRead{VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT, false,
                                VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};

// Device writes are visible to the host only through a dependency whose destination is the host.
void barrierToHost(const vk::DeviceFns& fns, VkCommandBuffer cmd) {
  auto barrier = vk::make<VkMemoryBarrier2>(VK_STRUCTURE_TYPE_MEMORY_BARRIER_2);
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
  barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
  barrier.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
  auto info = vk::make<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
  info.memoryBarrierCount = 1;
  info.pMemoryBarriers = &barrier;
  fns.t.vkCmdPipelineBarrier2(cmd, &info);
}

uint32_t mipExtent(uint32_t size, uint32_t mip) {
  return std::max(1u, size >> mip);
}

}  // namespace

void VulkanDeviceImpl::requestReadback(TextureHandle texture, uint64_t frame, ReadbackCallback callback) {
  std::lock_guard lock(sharedMutex_);
  readbackRequests_.push_back({texture, frame, std::move(callback)});
}

Result<vk::LinearArena::Slice> VulkanDeviceImpl::recordTextureCopy(vk::Texture& texture, uint32_t mip,
                                                                   VkDeviceSize bytes) {
  auto slice = ctx_->readback.allocate(bytes, 16);
  if (!slice) return slice.error();
  barriers_.use(texture, kTransferRead);
  flushBarriers();
  VkBufferImageCopy region{};
  region.bufferOffset = slice->offset;
  // Depth/stencil textures come back as their depth aspect (D24S8: packed 32-bit words, stencil not read).
  region.imageSubresource = {texture.aspect & ~VkImageAspectFlags{VK_IMAGE_ASPECT_STENCIL_BIT}, mip, 0, 1};
  region.imageExtent = {mipExtent(texture.desc.width, mip), mipExtent(texture.desc.height, mip), 1};
  fns_->t.vkCmdCopyImageToBuffer(cmd_, texture.image.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                 slice->buffer, 1, &region);
  return slice;
}

void VulkanDeviceImpl::serviceReadbacks(uint64_t frame) {
  std::vector<ReadbackRequest> due;
  {
    std::lock_guard lock(sharedMutex_);
    auto keep = readbackRequests_.begin();
    for (auto it = readbackRequests_.begin(); it != readbackRequests_.end(); ++it) {
      if (it->frame <= frame) {
        due.push_back(std::move(*it));
      } else {
        *keep++ = std::move(*it);
      }
    }
    readbackRequests_.erase(keep, readbackRequests_.end());
  }
  // Copies recorded into the current command buffer since its last barrier to the host: each command
  // buffer that copies ends its copies with one.
  bool copied = false;
  auto toHost = [&] {
    if (copied) barrierToHost(*fns_, cmd_);
    copied = false;
  };
  for (ReadbackRequest& request : due) {
    if (request.frame < frame) {
      request.callback(
          fail("readback of frame ", request.frame, ": the frame had ended when it was requested"));
      continue;
    }
    if (!frameRecording()) {
      request.callback(
          fail("readback of frame ", frame, ": ", lost_ ? "the device was lost" : "the frame failed"));
      continue;
    }
    auto* slot = textures_.find(request.texture);
    if (!slot) {
      request.callback(
          fail("readback of frame ", frame, ": ", formatHandle(request.texture), " is not live"));
      continue;
    }
    vk::Texture& texture = **slot;
    const VkDeviceSize bytes =
        VkDeviceSize{texture.desc.width} * texture.desc.height * formatBytesPerPixel(texture.desc.format);
    const vk::QueueKind queue =
        copyQueue(bytes, transferCopies(texture, 0, 0, 0, texture.desc.width, texture.desc.height));
    if (queue != current_) {
      toHost();
      onQueue(main_, queue);
    }
    auto slice = recordTextureCopy(texture, 0, bytes);
    if (!slice) {
      request.callback(fail("readback of frame ", frame, ": ", slice.error().message));
      continue;
    }
    vk::PendingReadback pending;
    pending.image.frame = frame;
    pending.image.texture = request.texture;
    pending.image.width = texture.desc.width;
    pending.image.height = texture.desc.height;
    pending.image.format = texture.desc.format;
    pending.slice = *slice;
    pending.bytes = bytes;
    pending.callback = std::move(request.callback);
    ctx_->readbacks.push_back(std::move(pending));
    copied = true;
  }
  toHost();
}

Result<void> VulkanDeviceImpl::runAndWait(const std::function<Result<void>(VkCommandBuffer)>& record,
                                          vk::FrameContext*& used) {
  if (lost_) return fail("the device was lost");
  if (frameRecording()) {
    // In the middle of a frame (a FrameObserver): the copy goes into the frame's own command buffer, which
    // is submitted early so that the copy sees everything recorded before it.
    onQueue(main_, vk::QueueKind::Graphics);
    if (pass_.rendering) suspendRendering();
    if (auto r = record(cmd_); !r) return r;
    used = ctx_;
    return flushMidFrame();
  }
  ctx_ = immediate_.get();
  auto cmd = ctx_->beginCommandBuffer();
  if (!cmd) {
    ctx_ = nullptr;
    return cmd.error();
  }
  cmd_ = *cmd;
  Result<void> recorded = record(cmd_);
  auto serial = submit();  // ends cmd_ even when recording failed
  ctx_ = nullptr;
  used = immediate_.get();
  if (!recorded) return recorded;
  if (!serial) return serial.error();
  immediate_->serial = *serial;
  return waitSerial(*serial);
}

Result<std::vector<std::byte>> VulkanDeviceImpl::readBackNow(
    const char* what, VkDeviceSize bytes,
    const std::function<Result<vk::LinearArena::Slice>(VkCommandBuffer)>& copy) {
  vk::LinearArena::Slice slice;
  vk::FrameContext* used = nullptr;
  auto r = runAndWait(
      [&](VkCommandBuffer cmd) -> Result<void> {
        auto s = copy(cmd);
        if (!s) return s.error();
        slice = *s;
        barrierToHost(*fns_, cmd);
        return {};
      },
      used);
  std::vector<std::byte> out;
  if (r) {
    allocator_->invalidate(*slice.memory, slice.offset, bytes);
    out.assign(slice.data, slice.data + bytes);
  }
  if (used == immediate_.get()) immediate_->recycle(*allocator_);
  if (!r) return fail(what, ": ", r.error().message);
  return out;
}

Result<std::vector<std::byte>> VulkanDeviceImpl::readBuffer(BufferHandle handle) {
  auto* slot = buffers_.find(handle);
  if (!slot) {
    return fail("readBuffer: ", formatHandle(handle), " is not live");
  }
  vk::Buffer& buffer = **slot;
  const VkDeviceSize bytes = buffer.desc.size;
  return readBackNow("readBuffer", bytes, [&](VkCommandBuffer cmd) -> Result<vk::LinearArena::Slice> {
    auto slice = ctx_->readback.allocate(bytes, 16);
    if (!slice) return slice.error();
    barriers_.use(buffer, kTransferRead);
    flushBarriers();
    const VkBufferCopy region{0, slice->offset, bytes};
    fns_->t.vkCmdCopyBuffer(cmd, buffer.get(), slice->buffer, 1, &region);
    return slice;
  });
}

Result<std::vector<std::byte>> VulkanDeviceImpl::readTexture(TextureHandle handle, uint32_t mipLevel) {
  auto* slot = textures_.find(handle);
  if (!slot) {
    return fail("readTexture: ", formatHandle(handle), " is not live");
  }
  vk::Texture& texture = **slot;
  if (mipLevel >= texture.mipLevels) return fail("readTexture: mip ", mipLevel, " out of range");
  const VkDeviceSize bytes = VkDeviceSize{mipExtent(texture.desc.width, mipLevel)} *
                             mipExtent(texture.desc.height, mipLevel) *
                             formatBytesPerPixel(texture.desc.format);
  return readBackNow("readTexture", bytes,
                     [&](VkCommandBuffer) { return recordTextureCopy(texture, mipLevel, bytes); });
}

}  // namespace reel
