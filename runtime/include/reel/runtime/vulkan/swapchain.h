#pragma once
// The windowed path: a VkSwapchainKHR on the surface the app's window system made (the runtime knows no
// window library; the sample passes GLFW's surface and framebuffer size in through VulkanDeviceOptions).
//
// The device presents by blitting the designated present texture (VulkanDevice::setPresentSource) into the
// acquired image at the end of a frame, scaled to the window. Resize: a changed framebuffer size, or an
// OUT_OF_DATE / SUBOPTIMAL result, recreates the swapchain at the next acquire; recreation waits for the
// device to be idle (the old images may still be read by a present), which happens on a resize, not per
// frame. Minimized (size 0): nothing is acquired or presented, but frames still run. Per-image
// "render finished" semaphores, because a present's wait on a binary semaphore has no fence to tell when
// the semaphore can be reused; the image's next acquire does.

#include <functional>
#include <optional>
#include <vector>

#include "reel/runtime/vulkan/context.h"

namespace reel::vk {

class Swapchain {
 public:
  Swapchain(const Context& context, std::function<VkExtent2D()> framebufferSize, bool vsync);
  ~Swapchain();
  Swapchain(const Swapchain&) = delete;
  Swapchain& operator=(const Swapchain&) = delete;

  // The index of the acquired image (signalling `acquired`), or nothing when no image can be had now
  // (minimized, or out of date twice in a row).
  Result<std::optional<uint32_t>> acquire(VkSemaphore acquired);
  // Presents; an out-of-date result only marks the swapchain for recreation.
  Result<void> present(uint32_t image);

  VkImage image(uint32_t index) const { return images_[index]; }
  VkSemaphore renderFinished(uint32_t index) const { return renderFinished_[index].get(); }
  VkExtent2D extent() const { return extent_; }
  uint64_t recreations() const { return recreations_; }

 private:
  Result<void> recreate(VkExtent2D size);

  const Context& context_;
  const DeviceFns& fns_;
  std::function<VkExtent2D()> framebufferSize_;
  bool vsync_;
  OwnedSwapchain swapchain_;
  std::vector<VkImage> images_;
  std::vector<OwnedSemaphore> renderFinished_;
  VkExtent2D extent_{0, 0};
  VkSurfaceFormatKHR format_{};
  bool outdated_ = true;
  uint64_t recreations_ = 0;
};

}  // namespace reel::vk
