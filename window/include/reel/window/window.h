#pragma once
// A window for the windowed path: GLFW, kept out of the runtime, which only sees a surface-creating
// callback and a framebuffer-size callback (VulkanDeviceOptions; attach() fills them in). Events are
// polled on the thread that created the window; the size is read by the render thread, so it is kept in
// atomics.
//
//   if (!reel::window::displayAvailable()) ...headless...
//   auto window = reel::window::Window::create(1280, 720, "title");   // Result: fails without a display
//   VulkanDeviceOptions options;
//   (*window)->attach(options);                                       // the window must outlive the device
//   ... per frame:  window->poll(); if (window->shouldClose()) break; for (KeyEvent e : window->takeKeys())
//
// Keys reach the app as KeyEvents rather than GLFW codes, so that what reacts to a key is testable without
// a window system, and a test can inject the same events (injectKey) into a real window.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "reel/runtime/result.h"
#include "reel/vulkan/vulkan_device.h"

struct GLFWwindow;

namespace reel::window {

// True when a window system is reachable (DISPLAY or WAYLAND_DISPLAY is set and not empty).
bool displayAvailable();

// The keys something reacts to; every other key is Other.
enum class Key { Other, Escape, F12 };
enum class KeyAction { Press, Repeat, Release };
struct KeyEvent {
  Key key = Key::Other;
  KeyAction action = KeyAction::Press;
};

class Window {
 public:
  // Fails (a message fit for a user) when GLFW cannot start, finds no Vulkan loader, or cannot open the
  // window.
  static Result<std::unique_ptr<Window>> create(uint32_t width, uint32_t height, const std::string& title);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // Sets options' instanceExtensions, createSurface and framebufferSize to this window's.
  void attach(VulkanDeviceOptions& options) const;
  std::vector<std::string> instanceExtensions() const;
  VkSurfaceKHR createSurface(VkInstance instance) const;
  // Any thread; 0 x 0 while minimized.
  WindowExtent framebufferSize() const {
    if (forcedMinimized_) return {0, 0};
    return {width_.load(), height_.load()};
  }

  // ---- the thread that created the window ----
  // Handles pending events; while minimized, waits up to 50 ms for one rather than spin.
  void poll();
  bool shouldClose() const;
  void requestClose();
  // Key events since the last call, oldest first.
  std::vector<KeyEvent> takeKeys();
  // A key event as if the window system had sent it (tests, scripted runs).
  void injectKey(KeyEvent event) { keys_.push_back(event); }

  // For scripted runs of the windowed path under Xvfb: resize the window; report it as minimized (0 x 0)
  // whatever the window system says (Xvfb has no window manager to iconify with).
  void resize(uint32_t width, uint32_t height);
  void forceMinimized(bool minimized) { forcedMinimized_ = minimized; }
  // The schedule of --exercise-window (sample and replay): at frame 10 shrink to 3/4, minimized during
  // frames 20-29, restored to width x height at 30.
  void exercise(uint64_t frame, uint32_t width, uint32_t height);

 private:
  Window() = default;
  GLFWwindow* window_ = nullptr;  // destroyed, and GLFW terminated, by ~Window
  std::atomic<uint32_t> width_{0}, height_{0};
  std::atomic<bool> forcedMinimized_{false};
  std::vector<KeyEvent> keys_;
};

}  // namespace reel::window
