#include "window.h"

#include <cstdlib>
#include <mutex>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // after volk.h: declares the Vulkan surface functions

namespace reel::samples {

namespace {
std::mutex errorMutex;
std::string lastError;
void onGlfwError(int code, const char* description) {
  std::lock_guard lock(errorMutex);
  lastError = "GLFW error " + std::to_string(code) + ": " + (description ? description : "");
}
std::string takeGlfwError() {
  std::lock_guard lock(errorMutex);
  return lastError.empty() ? "GLFW failed" : lastError;
}
}  // namespace

bool displayAvailable() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 && *x11) || (wayland && *wayland);
}

Result<std::unique_ptr<Window>> Window::create(uint32_t width, uint32_t height, const std::string& title) {
  glfwSetErrorCallback(onGlfwError);
  if (!glfwInit()) return fail("cannot open a window: ", takeGlfwError());
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
    return fail("cannot open a window: ", takeGlfwError());
  }
  glfwSetWindowUserPointer(window->window_, window.get());
  glfwSetFramebufferSizeCallback(window->window_, [](GLFWwindow* w, int fw, int fh) {
    auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
    self->width_ = static_cast<uint32_t>(fw > 0 ? fw : 0);
    self->height_ = static_cast<uint32_t>(fh > 0 ? fh : 0);
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

std::vector<std::string> Window::instanceExtensions() const {
  uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
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
  const VkExtent2D size = framebufferSize();
  if (size.width == 0 || size.height == 0) glfwWaitEventsTimeout(0.05);
}

void Window::resize(uint32_t width, uint32_t height) {
  glfwSetWindowSize(window_, static_cast<int>(width), static_cast<int>(height));
}

bool Window::shouldClose() const {
  return glfwWindowShouldClose(window_);
}

}  // namespace reel::samples
