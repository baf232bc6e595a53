#pragma once
// The windowed path: a VkSwapchainKHR on the surface the app's window system made (the runtime knows no
// window library; the sample passes GLFW's surface and framebuffer size in through VulkanDeviceOptions).
//
// The device presents by blitting the designated present texture (VulkanDevice::setPresentSource) into the
// acquired image at the end of a frame, scaled to the window with its aspect ratio kept (letterbox()).
// Resize: a changed framebuffer size, or an OUT_OF_DATE / SUBOPTIMAL result, recreates the swapchain at the
// next acquire; recreation waits for the device to be idle (the old images may still be read by a present),
// which happens on a resize, not per frame. Minimized (size 0): nothing is acquired or presented, but frames
// still run. Per-image "render finished" semaphores, because a present's wait on a binary semaphore has no
// fence to tell when the semaphore can be reused; the image's next acquire does.

#include <functional>
#include <optional>
#include <vector>

#include "context.h"
#include "reel/vulkan/vulkan_device.h"

namespace reel::vk {

// Where a `source`-sized image goes in a `target`-sized one when scaled as large as it fits without
// changing its aspect ratio: centred, with bars left and right or above and below.
struct BlitRect {
  int32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
constexpr BlitRect letterbox(VkExtent2D source, VkExtent2D target) {
  if (source.width == 0 || source.height == 0 || target.width == 0 || target.height == 0) return {};
  uint64_t width = target.width, height = target.height;
  // Compare the aspect ratios without division: source wider than target -> bars above and below.
  if (uint64_t{source.width} * target.height > uint64_t{target.width} * source.height) {
    height = (uint64_t{target.width} * source.height + source.width / 2) / source.width;
  } else {
    width = (uint64_t{target.height} * source.width + source.height / 2) / source.height;
  }
  width = width < 1 ? 1 : width;
  height = height < 1 ? 1 : height;
  const auto x0 = static_cast<int32_t>((target.width - width) / 2);
  const auto y0 = static_cast<int32_t>((target.height - height) / 2);
  return {x0, y0, x0 + static_cast<int32_t>(width), y0 + static_cast<int32_t>(height)};
}

class Swapchain {
 public:
  Swapchain(const Context& context, std::function<WindowExtent()> framebufferSize, bool vsync);
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
  std::function<WindowExtent()> framebufferSize_;
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
