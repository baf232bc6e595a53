#pragma once
// The windowed path's window: GLFW, kept out of the runtime, which only sees a surface-creating callback
// and a framebuffer-size callback (VulkanDeviceOptions). Events are polled on the app's thread; the size
// is read by the render thread, so it is kept in atomics.

#include <volk.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "reel/runtime/result.h"

struct GLFWwindow;

namespace reel::samples {

// True when a window system is reachable (DISPLAY or WAYLAND_DISPLAY is set): else the sample is headless.
bool displayAvailable();

class Window {
 public:
  static Result<std::unique_ptr<Window>> create(uint32_t width, uint32_t height, const std::string& title);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  std::vector<std::string> instanceExtensions() const;
  VkSurfaceKHR createSurface(VkInstance instance) const;
  // Any thread; 0 x 0 while minimized.
  VkExtent2D framebufferSize() const {
    if (forcedMinimized_) return {0, 0};
    return {width_.load(), height_.load()};
  }
  void poll();  // the thread that created the window
  bool shouldClose() const;
  // For --exercise-window: resize the window; report it as minimized (0 x 0) whatever the window system
  // says (Xvfb has no window manager to iconify with).
  void resize(uint32_t width, uint32_t height);
  void forceMinimized(bool minimized) { forcedMinimized_ = minimized; }

 private:
  Window() = default;
  GLFWwindow* window_ = nullptr;
  std::atomic<uint32_t> width_{0}, height_{0};
  std::atomic<bool> forcedMinimized_{false};
};

}  // namespace reel::samples
