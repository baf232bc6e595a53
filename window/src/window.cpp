#include "reel/window/window.h"

#include <vulkan/vulkan_core.h>  // before GLFW: its Vulkan surface functions need Vulkan's types

#include <cstdlib>
#include <utility>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace reel::window {

namespace {

// GLFW keeps the last error per thread (glfwGetError), so no error callback and no state of our own.
std::string glfwFailure() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR) return "GLFW failed";
  return "GLFW error " + std::to_string(code) + ": " + (description ? description : "");
}

KeyEvent toKeyEvent(int key, int action) {
  KeyEvent event;
  event.key = key == GLFW_KEY_F12 ? Key::F12 : key == GLFW_KEY_ESCAPE ? Key::Escape : Key::Other;
  event.action = action == GLFW_RELEASE  ? KeyAction::Release
                 : action == GLFW_REPEAT ? KeyAction::Repeat
                                         : KeyAction::Press;
  return event;
}

}  // namespace

bool displayAvailable() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 && *x11) || (wayland && *wayland);
}

Result<std::unique_ptr<Window>> Window::create(uint32_t width, uint32_t height, const std::string& title) {
  if (!glfwInit()) return fail("cannot open a window: ", glfwFailure());
  if (!glfwVulkanSupported()) {
    glfwTerminate();
    return fail("cannot open a window: GLFW finds no Vulkan loader");
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  std::unique_ptr<Window> window(new Window());
  window->window_ =
      glfwCreateWindow(static_cast<int>(width), static_cast<int>(height), title.c_str(), nullptr, nullptr);
  if (!window->window_) {
    glfwTerminate();
    return fail("cannot open a window: ", glfwFailure());
  }
  glfwSetWindowUserPointer(window->window_, window.get());
  glfwSetFramebufferSizeCallback(window->window_, [](GLFWwindow* w, int fw, int fh) {
    auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
    self->width_ = static_cast<uint32_t>(fw > 0 ? fw : 0);
    self->height_ = static_cast<uint32_t>(fh > 0 ? fh : 0);
  });
  glfwSetKeyCallback(window->window_, [](GLFWwindow* w, int key, int, int action, int) {
    static_cast<Window*>(glfwGetWindowUserPointer(w))->keys_.push_back(toKeyEvent(key, action));
  });
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window->window_, &fw, &fh);
  window->width_ = static_cast<uint32_t>(fw);
  window->height_ = static_cast<uint32_t>(fh);
  return window;
}

Window::~Window() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

void Window::attach(VulkanDeviceOptions& options) const {
  options.instanceExtensions = instanceExtensions();
  options.createSurface = [this](VkInstance instance) { return createSurface(instance); };
  options.framebufferSize = [this] { return framebufferSize(); };
}

std::vector<std::string> Window::instanceExtensions() const {
  uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  if (!names) return {};
  return std::vector<std::string>(names, names + count);
}

VkSurfaceKHR Window::createSurface(VkInstance instance) const {
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  if (glfwCreateWindowSurface(instance, window_, nullptr, &surface) != VK_SUCCESS) return VK_NULL_HANDLE;
  return surface;
}

void Window::poll() {
  glfwPollEvents();
  // Minimized: nothing to draw into; wait a little for events rather than spin (frames still advance).
  const WindowExtent size = framebufferSize();
  if (size.width == 0 || size.height == 0) glfwWaitEventsTimeout(0.05);
}

bool Window::shouldClose() const {
  return glfwWindowShouldClose(window_);
}

void Window::requestClose() {
  glfwSetWindowShouldClose(window_, GLFW_TRUE);
}

std::vector<KeyEvent> Window::takeKeys() {
  return std::exchange(keys_, {});
}

void Window::resize(uint32_t width, uint32_t height) {
  glfwSetWindowSize(window_, static_cast<int>(width), static_cast<int>(height));
}

void Window::exercise(uint64_t frame, uint32_t width, uint32_t height) {
  if (frame == 10) resize(width * 3 / 4, height * 3 / 4);
  if (frame == 20) forceMinimized(true);
  if (frame == 30) {
    forceMinimized(false);
    resize(width, height);
  }
}

}  // namespace reel::window
