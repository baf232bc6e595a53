#include "context.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace reel::vk {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

Result<void> loadVulkan() {
  static std::once_flag once;
  static VkResult loaded = VK_ERROR_INITIALIZATION_FAILED;
  std::call_once(once, [] { loaded = volkInitialize(); });
  if (loaded != VK_SUCCESS) return fail("Vulkan loader (libvulkan.so.1) not found: ", resultName(loaded));
  if (volkGetInstanceVersion() < VK_API_VERSION_1_3) {
    return fail("the Vulkan loader supports Vulkan ", VK_API_VERSION_MAJOR(volkGetInstanceVersion()), ".",
                VK_API_VERSION_MINOR(volkGetInstanceVersion()), "; reel needs 1.3");
  }
  return {};
}

std::vector<VkExtensionProperties> instanceExtensions(const char* layer) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkExtensionProperties> out(count);
  if (vkEnumerateInstanceExtensionProperties(layer, &count, out.data()) != VK_SUCCESS) return {};
  out.resize(count);
  return out;
}

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

bool hasLayer(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
  return std::any_of(layers.begin(), layers.begin() + count,
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

const char* deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

std::string versionString(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                         VkDebugUtilsMessageTypeFlagsEXT types,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  // Info and verbose messages are the loader's chatter; warnings and errors of the validation layer are
  // what tests treat as failures.
  const bool error = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  const bool warning = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  const bool fromValidation = (types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                        VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)) != 0;
  if (!(error || (warning && fromValidation))) return VK_FALSE;
  auto* sink = static_cast<std::pair<MessageSink, void*>*>(user);
  std::string message = error ? "validation error: " : "validation warning: ";
  if (data->pMessageIdName) message += std::string(data->pMessageIdName) + ": ";
  if (data->pMessage) message += data->pMessage;
  sink->first(sink->second, std::move(message));
  return VK_FALSE;
}

// The messenger's user data outlives every instance (a few bytes per device created).
std::pair<MessageSink, void*>* makeSinkRecord(MessageSink sink, void* user) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<std::pair<MessageSink, void*>>> records;
  std::lock_guard lock(mutex);
  records.push_back(std::make_unique<std::pair<MessageSink, void*>>(sink, user));
  return records.back().get();
}

struct Candidate {
  VkPhysicalDevice device;
  VkPhysicalDeviceProperties properties;
  uint32_t queueFamily = UINT32_MAX;
  std::string missing;  // why it does not qualify; empty when it does
};

Candidate examine(VkPhysicalDevice device, VkSurfaceKHR surface) {
  Candidate c{device, {}, UINT32_MAX, {}};
  vkGetPhysicalDeviceProperties(device, &c.properties);
  auto need = [&](bool ok, const char* what) {
    if (!ok) c.missing += c.missing.empty() ? what : std::string(", ") + what;
  };
  need(c.properties.apiVersion >= VK_API_VERSION_1_3, "Vulkan 1.3");
  if (c.properties.apiVersion >= VK_API_VERSION_1_3) {
    auto f13 = make<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    auto f12 =
        make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13);
    auto features = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
    vkGetPhysicalDeviceFeatures2(device, &features);
    need(f13.dynamicRendering, "dynamicRendering");
    need(f13.synchronization2, "synchronization2");
    need(f12.timelineSemaphore, "timelineSemaphore");
  }
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  extensions.resize(count);
  need(hasExtension(extensions, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME),
       VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (surface) {
    need(hasExtension(extensions, VK_KHR_SWAPCHAIN_EXTENSION_NAME), VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  }

  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i) {
    const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    if ((families[i].queueFlags & want) != want) continue;
    if (surface) {
      VkBool32 present = VK_FALSE;
      vkGetPhysicalDeviceSurfaceSupportKHR(device, i, surface, &present);
      if (!present) continue;
    }
    c.queueFamily = i;
    break;
  }
  need(c.queueFamily != UINT32_MAX,
       surface ? "a graphics+compute queue that can present" : "a graphics+compute queue");
  return c;
}

std::string describe(const VkPhysicalDeviceProperties& p) {
  return std::string(p.deviceName) + " [" + deviceTypeName(p.deviceType) + ", Vulkan " +
         versionString(p.apiVersion) + "]";
}

Result<std::vector<VkPhysicalDevice>> physicalDevices(VkInstance instance) {
  uint32_t count = 0;
  if (VkResult r = vkEnumeratePhysicalDevices(instance, &count, nullptr); r != VK_SUCCESS) {
    return vkError("vkEnumeratePhysicalDevices", r);
  }
  std::vector<VkPhysicalDevice> devices(count);
  if (VkResult r = vkEnumeratePhysicalDevices(instance, &count, devices.data()); r < 0) {
    return vkError("vkEnumeratePhysicalDevices", r);
  }
  devices.resize(count);
  return devices;
}

}  // namespace

Result<std::unique_ptr<Context>> Context::create(const ContextConfig& config, MessageSink sink, void* user) {
  if (auto r = loadVulkan(); !r) return r.error();
  std::unique_ptr<Context> context(new Context());
  if (auto r = context->createInstance(config, sink, user); !r) return r.error();
  if (config.createSurface) {
    context->surface_ = config.createSurface(context->instance_);
    if (!context->surface_) return fail("the window system could not create a Vulkan surface");
  }
  if (auto r = context->selectPhysicalDevice(config); !r) return r.error();
  if (auto r = context->createDevice(); !r) return r.error();
  return context;
}

Context::~Context() {
  if (fns_.device) {
    fns_.t.vkDeviceWaitIdle(fns_.device);  // teardown, not the hot path
    fns_.t.vkDestroyDevice(fns_.device, nullptr);
  }
  if (surface_) vkDestroySurfaceKHR(instance_, surface_, nullptr);
  if (messenger_) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

Result<void> Context::createInstance(const ContextConfig& config, MessageSink sink, void* user) {
  const std::vector<VkExtensionProperties> available = instanceExtensions(nullptr);
  std::vector<const char*> extensions;
  for (const std::string& e : config.instanceExtensions) {
    if (!hasExtension(available, e.c_str())) return fail("the Vulkan instance lacks extension ", e);
    extensions.push_back(e.c_str());
  }
  debugUtils_ = hasExtension(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (debugUtils_) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  std::vector<const char*> layers;
  bool validationFeatures = false;
  if (config.validate) {
    if (!hasLayer(kValidationLayer)) {
      return fail("validation was requested but ", kValidationLayer,
                  " is not installed (Debian: apt install vulkan-validationlayers)");
    }
    if (!debugUtils_) return fail("validation was requested but VK_EXT_debug_utils is not available");
    layers.push_back(kValidationLayer);
    validation_ = true;
    if (config.synchronizationValidation &&
        hasExtension(instanceExtensions(kValidationLayer), VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      validationFeatures = true;
    }
  }

  auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = config.applicationName.c_str();
  app.pEngineName = "reel";
  app.apiVersion = VK_API_VERSION_1_3;

  auto messenger =
      make<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  messenger.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = onMessage;
  messenger.pUserData = makeSinkRecord(sink, user);

  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  auto features = make<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;

  auto info = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  // Messages of vkCreateInstance itself reach the sink through the pNext messenger.
  if (validation_) {
    info.pNext = &messenger;
    if (validationFeatures) messenger.pNext = &features;
  }
  if (VkResult r = vkCreateInstance(&info, nullptr, &instance_); r != VK_SUCCESS) {
    return vkError("vkCreateInstance", r);
  }
  volkLoadInstanceOnly(instance_);
  if (validation_) {
    messenger.pNext = nullptr;
    if (VkResult r = vkCreateDebugUtilsMessengerEXT(instance_, &messenger, nullptr, &messenger_);
        r != VK_SUCCESS) {
      return vkError("vkCreateDebugUtilsMessengerEXT", r);
    }
  }
  return {};
}

Result<void> Context::selectPhysicalDevice(const ContextConfig& config) {
  auto devices = physicalDevices(instance_);
  if (!devices) return devices.error();
  std::vector<Candidate> candidates;
  for (VkPhysicalDevice d : *devices) candidates.push_back(examine(d, surface_));

  std::string wanted = config.deviceName;
  if (wanted.empty()) {
    if (const char* env = std::getenv("REEL_DEVICE")) wanted = env;
  }
  auto listing = [&] {
    std::string text;
    for (size_t i = 0; i < candidates.size(); ++i) {
      text += "\n  [" + std::to_string(i) + "] " + describe(candidates[i].properties);
      if (!candidates[i].missing.empty()) text += " (unusable: lacks " + candidates[i].missing + ")";
    }
    return candidates.empty() ? std::string("\n  (none: is a Vulkan driver installed?)") : text;
  };

  const Candidate* chosen = nullptr;
  if (!wanted.empty()) {
    const std::string needle = lower(wanted);
    const Candidate* unusable = nullptr;
    for (const Candidate& c : candidates) {
      if (lower(c.properties.deviceName).find(needle) == std::string::npos) continue;
      if (c.missing.empty()) {
        chosen = &c;
        break;
      }
      if (!unusable) unusable = &c;
    }
    if (!chosen) {
      if (unusable) {
        return fail("Vulkan device '", wanted, "' (", unusable->properties.deviceName, ") lacks ",
                    unusable->missing, "; devices:", listing());
      }
      return fail("no Vulkan device matches '", wanted, "'; devices:", listing());
    }
  } else {
    for (const Candidate& c : candidates) {
      if (c.missing.empty() && c.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
        chosen = &c;
        break;
      }
    }
    for (const Candidate& c : candidates) {
      if (!chosen && c.missing.empty()) chosen = &c;
    }
    if (!chosen) return fail("no usable Vulkan device; devices:", listing());
  }

  physical_ = chosen->device;
  properties_ = chosen->properties;
  chooseQueues(chosen->queueFamily, config.oneQueue);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

  auto driver = make<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
  auto properties =
      make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver);
  vkGetPhysicalDeviceProperties2(physical_, &properties);
  info_.name = properties_.deviceName;
  info_.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  info_.apiVersion = versionString(properties_.apiVersion);
  info_.type = deviceTypeName(properties_.deviceType);
  return {};
}

void Context::chooseQueues(uint32_t graphicsFamily, bool oneQueue) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count, families.data());
  auto take = [&](QueueKind kind, uint32_t family) {
    QueueInfo& q = queues_[static_cast<size_t>(kind)];
    q.family = family;
    q.timestampValidBits = families[family].timestampValidBits;
    q.imageGranularity = families[family].minImageTransferGranularity;
    families_.push_back(family);
  };
  take(QueueKind::Graphics, graphicsFamily);
  if (oneQueue) return;
  for (uint32_t i = 0; i < count; ++i) {
    const VkQueueFlags f = families[i].queueFlags;
    if (families[i].queueCount == 0 || (f & VK_QUEUE_GRAPHICS_BIT)) continue;
    if ((f & VK_QUEUE_COMPUTE_BIT) && queue(QueueKind::Compute).family == UINT32_MAX) {
      take(QueueKind::Compute, i);
    } else if (!(f & VK_QUEUE_COMPUTE_BIT) && (f & VK_QUEUE_TRANSFER_BIT) &&
               queue(QueueKind::Transfer).family == UINT32_MAX) {
      take(QueueKind::Transfer, i);
    }
  }
}

Result<void> Context::createDevice() {
  const float priority = 1.0f;
  std::vector<VkDeviceQueueCreateInfo> queueInfos;
  for (const uint32_t family : families_) {
    auto queue = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    queue.queueFamilyIndex = family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    queueInfos.push_back(queue);
  }

  auto f13 = make<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  f13.dynamicRendering = VK_TRUE;
  f13.synchronization2 = VK_TRUE;
  f13.maintenance4 = VK_TRUE;  // required of every Vulkan 1.3 device; SPIR-V 1.6 (LocalSizeId) needs it
  auto f12 =
      make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13);
  f12.timelineSemaphore = VK_TRUE;
  auto features = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);

  std::vector<const char*> extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  if (surface_) extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);

  auto info = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features);
  info.queueCreateInfoCount = static_cast<uint32_t>(queueInfos.size());
  info.pQueueCreateInfos = queueInfos.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateDevice(physical_, &info, nullptr, &fns_.device); r != VK_SUCCESS) {
    fns_.device = VK_NULL_HANDLE;
    return vkError("vkCreateDevice", r);
  }
  volkLoadDeviceTable(&fns_.t, fns_.device);
  for (QueueInfo& q : queues_) {
    if (q.family != UINT32_MAX) fns_.t.vkGetDeviceQueue(fns_.device, q.family, 0, &q.queue);
  }
  return {};
}

Result<std::vector<std::string>> listPhysicalDevices() {
  if (auto r = loadVulkan(); !r) return r.error();
  auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.apiVersion = VK_API_VERSION_1_3;
  auto info = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (VkResult r = vkCreateInstance(&info, nullptr, &instance); r != VK_SUCCESS) {
    return vkError("vkCreateInstance", r);
  }
  volkLoadInstanceOnly(instance);
  std::vector<std::string> lines;
  auto devices = physicalDevices(instance);
  if (devices) {
    for (VkPhysicalDevice d : *devices) {
      const Candidate c = examine(d, VK_NULL_HANDLE);
      lines.push_back(describe(c.properties) +
                      (c.missing.empty() ? "" : " (unusable: lacks " + c.missing + ")"));
    }
  }
  vkDestroyInstance(instance, nullptr);
  if (!devices) return devices.error();
  return lines;
}

}  // namespace reel::vk
