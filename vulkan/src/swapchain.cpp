#include "swapchain.h"

#include <algorithm>

namespace reel::vk {

Swapchain::Swapchain(const Context& context, std::function<WindowExtent()> framebufferSize, bool vsync)
    : context_(context), fns_(context.fns()), framebufferSize_(std::move(framebufferSize)), vsync_(vsync) {}

Swapchain::~Swapchain() {
  if (swapchain_) fns_.t.vkDeviceWaitIdle(fns_.device);  // teardown: presents may still read the images
}

Result<void> Swapchain::recreate(VkExtent2D size) {
  VkSurfaceCapabilitiesKHR caps;
  if (VkResult r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(context_.physical(), context_.surface(), &caps);
      r != VK_SUCCESS) {
    return vkError("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", r);
  }
  VkExtent2D extent = caps.currentExtent;
  if (extent.width == UINT32_MAX) {
    extent.width = std::clamp(size.width, caps.minImageExtent.width, caps.maxImageExtent.width);
    extent.height = std::clamp(size.height, caps.minImageExtent.height, caps.maxImageExtent.height);
  }
  if (extent.width == 0 || extent.height == 0) {
    extent_ = {0, 0};
    return {};  // minimized: try again next frame
  }
  if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
    return fail("the surface's images cannot be blitted to (no TRANSFER_DST usage)");
  }

  uint32_t count = 0;
  vkGetPhysicalDeviceSurfaceFormatsKHR(context_.physical(), context_.surface(), &count, nullptr);
  std::vector<VkSurfaceFormatKHR> formats(count);
  vkGetPhysicalDeviceSurfaceFormatsKHR(context_.physical(), context_.surface(), &count, formats.data());
  if (formats.empty()) return fail("the surface offers no formats");
  // The frames are display-referred UNORM values: a UNORM swapchain shows them as they are.
  format_ = formats[0];
  for (const VkSurfaceFormatKHR& f : formats) {
    if ((f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) &&
        f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
      format_ = f;
      break;
    }
  }

  vkGetPhysicalDeviceSurfacePresentModesKHR(context_.physical(), context_.surface(), &count, nullptr);
  std::vector<VkPresentModeKHR> modes(count);
  vkGetPhysicalDeviceSurfacePresentModesKHR(context_.physical(), context_.surface(), &count, modes.data());
  VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;  // always supported
  if (!vsync_) {
    for (VkPresentModeKHR m : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR}) {
      if (std::find(modes.begin(), modes.end(), m) != modes.end()) {
        mode = m;
        break;
      }
    }
  }

  uint32_t imageCount = caps.minImageCount + 1;
  if (caps.maxImageCount != 0) imageCount = std::min(imageCount, caps.maxImageCount);

  // The old swapchain's images may still be in a present or a blit in flight: resizing is rare, so wait.
  if (swapchain_) fns_.t.vkDeviceWaitIdle(fns_.device);

  auto info = make<VkSwapchainCreateInfoKHR>(VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR);
  info.surface = context_.surface();
  info.minImageCount = imageCount;
  info.imageFormat = format_.format;
  info.imageColorSpace = format_.colorSpace;
  info.imageExtent = extent;
  info.imageArrayLayers = 1;
  info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = caps.currentTransform;
  info.compositeAlpha = (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
                            ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
                            : static_cast<VkCompositeAlphaFlagBitsKHR>(caps.supportedCompositeAlpha &
                                                                       -caps.supportedCompositeAlpha);
  info.presentMode = mode;
  info.clipped = VK_TRUE;
  info.oldSwapchain = swapchain_.get();
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  if (VkResult r = fns_.t.vkCreateSwapchainKHR(fns_.device, &info, nullptr, &swapchain); r != VK_SUCCESS) {
    return vkError("vkCreateSwapchainKHR", r);
  }
  swapchain_ = OwnedSwapchain(&fns_, swapchain);  // destroys the old one (the device is idle)

  fns_.t.vkGetSwapchainImagesKHR(fns_.device, swapchain, &count, nullptr);
  images_.resize(count);
  fns_.t.vkGetSwapchainImagesKHR(fns_.device, swapchain, &count, images_.data());
  renderFinished_.clear();
  for (uint32_t i = 0; i < count; ++i) {
    auto semaphoreInfo = make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
    VkSemaphore semaphore = VK_NULL_HANDLE;
    if (VkResult r = fns_.t.vkCreateSemaphore(fns_.device, &semaphoreInfo, nullptr, &semaphore);
        r != VK_SUCCESS) {
      return vkError("vkCreateSemaphore", r);
    }
    renderFinished_.emplace_back(&fns_, semaphore);
  }
  extent_ = extent;
  outdated_ = false;
  ++recreations_;
  return {};
}

Result<std::optional<uint32_t>> Swapchain::acquire(VkSemaphore acquired) {
  const WindowExtent size = framebufferSize_ ? framebufferSize_() : WindowExtent{};
  if (size.width == 0 || size.height == 0) return std::optional<uint32_t>{};  // minimized
  if (size.width != extent_.width || size.height != extent_.height) outdated_ = true;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (outdated_) {
      if (auto r = recreate(VkExtent2D{size.width, size.height}); !r) return r.error();
      if (extent_.width == 0) return std::optional<uint32_t>{};
    }
    uint32_t index = 0;
    const VkResult r = fns_.t.vkAcquireNextImageKHR(fns_.device, swapchain_.get(), UINT64_MAX, acquired,
                                                    VK_NULL_HANDLE, &index);
    if (r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR) {
      if (r == VK_SUBOPTIMAL_KHR) outdated_ = true;  // use this image, recreate next frame
      return std::optional<uint32_t>{index};
    }
    if (r != VK_ERROR_OUT_OF_DATE_KHR) return vkError("vkAcquireNextImageKHR", r);
    outdated_ = true;
  }
  return std::optional<uint32_t>{};
}

Result<void> Swapchain::present(uint32_t image) {
  VkSwapchainKHR swapchain = swapchain_.get();
  VkSemaphore wait = renderFinished_[image].get();
  auto info = make<VkPresentInfoKHR>(VK_STRUCTURE_TYPE_PRESENT_INFO_KHR);
  info.waitSemaphoreCount = 1;
  info.pWaitSemaphores = &wait;
  info.swapchainCount = 1;
  info.pSwapchains = &swapchain;
  info.pImageIndices = &image;
  const VkResult r = fns_.t.vkQueuePresentKHR(context_.queue(), &info);
  if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) {
    outdated_ = true;
    return {};
  }
  if (r != VK_SUCCESS) return vkError("vkQueuePresentKHR", r);
  return {};
}

}  // namespace reel::vk
