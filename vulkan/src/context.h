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
// Queues: one on the graphics+compute family, and one on a compute-only and one on a transfer-only family
// where the device has them (queues.h), unless the config asks for one queue (REEL_QUEUES=1).
//
// Validation (the Khronos layer) is enabled on request, with its synchronization checks when asked; its
// messages (warnings and errors) go to the sink, which the Vulkan device turns into reportError().

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "queues.h"
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
  bool oneQueue = false;  // only the graphics+compute queue, even where the device has more families
};

// A queue the context opened.
struct QueueInfo {
  VkQueue queue = VK_NULL_HANDLE;  // VK_NULL_HANDLE: the device has no such family (or one queue was asked)
  uint32_t family = UINT32_MAX;
  uint32_t timestampValidBits = 0;
  VkExtent3D imageGranularity{1, 1, 1};  // minImageTransferGranularity
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
  VkQueue queue() const { return queues_[0].queue; }
  uint32_t queueFamily() const { return queues_[0].family; }
  const QueueInfo& queue(QueueKind kind) const { return queues_[static_cast<size_t>(kind)]; }
  // The families of the opened queues, for VK_SHARING_MODE_CONCURRENT (one entry: one queue family).
  const std::vector<uint32_t>& families() const { return families_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const VkPhysicalDeviceMemoryProperties& memory() const { return memory_; }
  bool debugUtils() const { return debugUtils_; }
  bool validation() const { return validation_; }
  const DeviceInfo& info() const { return info_; }

 private:
  Context() = default;
  Result<void> createInstance(const ContextConfig& config, MessageSink sink, void* user);
  Result<void> selectPhysicalDevice(const ContextConfig& config);
  // The graphics+compute family, and a compute-only and a transfer-only family where there are ones.
  void chooseQueues(uint32_t graphicsFamily, bool oneQueue);
  Result<void> createDevice();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  DeviceFns fns_;
  QueueInfo queues_[kQueueKinds];
  std::vector<uint32_t> families_;
  bool debugUtils_ = false;
  bool validation_ = false;
  DeviceInfo info_;
};

// One line per device the loader reports ("llvmpipe (LLVM 15.0.6, 256 bits) [cpu, Vulkan 1.3.230]"), for
// error messages and `reel-sample --list-devices`.
Result<std::vector<std::string>> listPhysicalDevices();

}  // namespace reel::vk
