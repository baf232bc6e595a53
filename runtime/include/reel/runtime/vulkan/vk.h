#pragma once
// Vulkan plumbing shared by the Vulkan device's files: volk (the loader is opened at run time, nothing links
// to libvulkan), a per-device function table, RAII owners for device objects, and VkResult -> reel::Error.
//
// Calls go through a VolkDeviceTable rather than volk's global device pointers: the table skips the
// loader's dispatch trampoline like volkLoadDevice does, and two VkDevices can live in one process (tests
// create several). Instance-level functions (and the debug-utils command functions, which volk 1.3.239
// loads with the instance) use volk's globals.

#include <volk.h>

#include <utility>

#include "reel/runtime/result.h"

namespace reel::vk {

const char* resultName(VkResult result);
// "vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY"
Error vkError(const char* call, VkResult result);
inline bool isDeviceLost(VkResult result) {
  return result == VK_ERROR_DEVICE_LOST;
}
inline bool isOutOfMemory(VkResult result) {
  return result == VK_ERROR_OUT_OF_HOST_MEMORY || result == VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

// A zeroed Vulkan struct with its sType (and pNext) set: `auto info = vk::make<VkBufferCreateInfo>(
// VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);` (brace-initialising only sType trips -Wmissing-field-initializers).
template <typename T>
T make(VkStructureType type, void* next = nullptr) {
  T value{};
  value.sType = type;
  value.pNext = next;
  return value;
}

// A device and its function table. Owned by the VulkanDevice at a stable address; every RAII owner
// points at it.
struct DeviceFns {
  VkDevice device = VK_NULL_HANDLE;
  VolkDeviceTable t{};
};

// Owns one object created from a VkDevice. `Destroy` is the VolkDeviceTable member that destroys or frees
// it (vkDestroyBuffer, vkFreeMemory, ...): they all take (VkDevice, T, const VkAllocationCallbacks*).
template <typename T, auto Destroy>
class Owned {
 public:
  Owned() = default;
  Owned(const DeviceFns* fns, T handle) : fns_(fns), handle_(handle) {}
  Owned(Owned&& other) noexcept : fns_(other.fns_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      fns_ = other.fns_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }

  void reset() {
    if (handle_ != VK_NULL_HANDLE) (fns_->t.*Destroy)(fns_->device, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }
  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

 private:
  const DeviceFns* fns_ = nullptr;
  T handle_ = VK_NULL_HANDLE;
};

using OwnedBuffer = Owned<VkBuffer, &VolkDeviceTable::vkDestroyBuffer>;
using OwnedImage = Owned<VkImage, &VolkDeviceTable::vkDestroyImage>;
using OwnedImageView = Owned<VkImageView, &VolkDeviceTable::vkDestroyImageView>;
using OwnedMemory = Owned<VkDeviceMemory, &VolkDeviceTable::vkFreeMemory>;
using OwnedSampler = Owned<VkSampler, &VolkDeviceTable::vkDestroySampler>;
using OwnedShaderModule = Owned<VkShaderModule, &VolkDeviceTable::vkDestroyShaderModule>;
using OwnedPipeline = Owned<VkPipeline, &VolkDeviceTable::vkDestroyPipeline>;
using OwnedPipelineLayout = Owned<VkPipelineLayout, &VolkDeviceTable::vkDestroyPipelineLayout>;
using OwnedSetLayout = Owned<VkDescriptorSetLayout, &VolkDeviceTable::vkDestroyDescriptorSetLayout>;
using OwnedPipelineCache = Owned<VkPipelineCache, &VolkDeviceTable::vkDestroyPipelineCache>;
using OwnedCommandPool = Owned<VkCommandPool, &VolkDeviceTable::vkDestroyCommandPool>;
using OwnedSemaphore = Owned<VkSemaphore, &VolkDeviceTable::vkDestroySemaphore>;
using OwnedFence = Owned<VkFence, &VolkDeviceTable::vkDestroyFence>;
using OwnedSwapchain = Owned<VkSwapchainKHR, &VolkDeviceTable::vkDestroySwapchainKHR>;

// Something the device destroys only once the GPU is done with the frame that last used it (frame
// contexts keep these in their garbage list).
struct Retired {
  virtual ~Retired() = default;
};

}  // namespace reel::vk
