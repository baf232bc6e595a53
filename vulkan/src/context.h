#pragma once
// Instance, physical-device selection and logical device: everything the Vulkan device needs before it
// can create a resource (Granite's Vulkan::Context).
//
// Selection: a case-insensitive substring of the device name (the option, else REEL_DEVICE), else the
// first discrete GPU, else the first device that qualifies (lavapipe on a machine without a GPU). A
// device qualifies with Vulkan 1.3, dynamic rendering, synchronization2, timeline semaphores,
// VK_KHR_push_descriptor and a queue family with graphics + compute (+ present, when windowed). A name
// that matches nothing, or only a device that does not qualify, is an error that lists every device.
//
// Validation (the Khronos layer) is enabled on request, with its synchronization checks when asked; its
// messages (warnings and errors) go to the sink, which the Vulkan device turns into reportError().

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reel/runtime/device.h"
#include "vk.h"

namespace reel::vk {

struct ContextConfig {
  std::string applicationName = "reel";
  std::string deviceName;  // empty: REEL_DEVICE, else automatic
  bool validate = false;
  bool synchronizationValidation = false;
  std::vector<std::string> instanceExtensions;  // the window system's (glfwGetRequiredInstanceExtensions)
  std::function<VkSurfaceKHR(VkInstance)> createSurface;  // null: headless
};

// Called for every validation message the device must report; any thread.
using MessageSink = void (*)(void* user, std::string message);

class Context {
 public:
  static Result<std::unique_ptr<Context>> create(const ContextConfig& config, MessageSink sink, void* user);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkSurfaceKHR surface() const { return surface_; }
  const DeviceFns& fns() const { return fns_; }
  VkQueue queue() const { return queue_; }
  uint32_t queueFamily() const { return queueFamily_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const VkPhysicalDeviceMemoryProperties& memory() const { return memory_; }
  bool debugUtils() const { return debugUtils_; }
  bool validation() const { return validation_; }
  const DeviceInfo& info() const { return info_; }

 private:
  Context() = default;
  Result<void> createInstance(const ContextConfig& config, MessageSink sink, void* user);
  Result<void> selectPhysicalDevice(const ContextConfig& config);
  Result<void> createDevice();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  DeviceFns fns_;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queueFamily_ = 0;
  bool debugUtils_ = false;
  bool validation_ = false;
  DeviceInfo info_;
};

// One line per device the loader reports ("llvmpipe (LLVM 15.0.6, 256 bits) [cpu, Vulkan 1.3.230]"), for
// error messages and `reel-sample --list-devices`.
Result<std::vector<std::string>> listPhysicalDevices();

}  // namespace reel::vk
