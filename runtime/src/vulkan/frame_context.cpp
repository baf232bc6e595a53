#include "reel/runtime/vulkan/frame_context.h"

namespace reel::vk {

FrameContext::FrameContext(const DeviceFns& fns, MemoryAllocator& allocator, uint32_t queueFamily)
    : upload(fns, allocator, MemoryDomain::HostUpload, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 1u << 20),
      readback(fns, allocator, MemoryDomain::HostReadback, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1u << 20),
      fns_(fns),
      queueFamily_(queueFamily) {}

Result<void> FrameContext::init() {
  auto info = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  // Transient: every command buffer is recorded once and the whole pool is reset with the context.
  info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  info.queueFamilyIndex = queueFamily_;
  VkCommandPool pool = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkCreateCommandPool(fns_.device, &info, nullptr, &pool); r != VK_SUCCESS) {
    return vkError("vkCreateCommandPool", r);
  }
  pool_ = OwnedCommandPool(&fns_, pool);
  return {};
}

Result<VkCommandBuffer> FrameContext::beginCommandBuffer() {
  if (used_ == commandBuffers_.size()) {
    auto info = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    info.commandPool = pool_.get();
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    if (VkResult r = fns_.t.vkAllocateCommandBuffers(fns_.device, &info, &cmd); r != VK_SUCCESS) {
      return vkError("vkAllocateCommandBuffers", r);
    }
    commandBuffers_.push_back(cmd);
  }
  VkCommandBuffer cmd = commandBuffers_[used_++];
  auto begin = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = fns_.t.vkBeginCommandBuffer(cmd, &begin); r != VK_SUCCESS) {
    return vkError("vkBeginCommandBuffer", r);
  }
  return cmd;
}

void FrameContext::recycle(const MemoryAllocator& allocator) {
  for (PendingReadback& r : readbacks) {
    allocator.invalidate(*r.slice.memory, r.slice.offset, r.bytes);
    r.image.pixels.assign(r.slice.data, r.slice.data + r.bytes);
    r.callback(std::move(r.image));
  }
  readbacks.clear();
  garbage.clear();
  if (pool_) fns_.t.vkResetCommandPool(fns_.device, pool_.get(), 0);
  used_ = 0;
  upload.reset();
  readback.reset();
}

}  // namespace reel::vk
