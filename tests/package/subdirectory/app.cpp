// The parent project's app: its own Vulkan code (prototypes from <vulkan/vulkan.h>, included first,
// calls resolved by libvulkan) beside a reel renderer on reel's Vulkan device. Exits 0 when both work.
#include <vulkan/vulkan.h>

#include <cstdio>

#include "reel/runtime/renderer.h"
#include "reel/vulkan/vulkan_device.h"

int main() {
  // Had reel exported volk's vk* pointers, this call would land on a null pointer of reel's instead.
  uint32_t version = 0;
  if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS) {
    std::fprintf(stderr, "parent_app: vkEnumerateInstanceVersion failed\n");
    return 1;
  }
  auto device = reel::VulkanDevice::create({});
  if (!device) {
    std::fprintf(stderr, "parent_app: %s\n", device.error().message.c_str());
    return 1;
  }
  {
    reel::Renderer renderer(**device);
    renderer.kick();
    renderer.flushAndWait();
  }
  for (const std::string& error : (*device)->takeErrors())
    std::fprintf(stderr, "parent_app: %s\n", error.c_str());
  if ((*device)->errorCount() > 0) return 1;
  std::printf("parent_app: Vulkan %u.%u from libvulkan, reel rendered on %s\n", VK_API_VERSION_MAJOR(version),
              VK_API_VERSION_MINOR(version), (*device)->info().name.c_str());
  return 0;
}
