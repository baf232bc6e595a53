#include "vulkan_test_env.h"

#include <cstdlib>

namespace reel::test {

void useLavapipe() {
  const std::string icd = REEL_LAVAPIPE_ICD;
  if (!icd.empty() && !std::getenv("VK_DRIVER_FILES") && !std::getenv("VK_ICD_FILENAMES")) {
    setenv("VK_DRIVER_FILES", icd.c_str(), 0);
    setenv("VK_ICD_FILENAMES", icd.c_str(), 0);  // loaders older than 1.3.207
  }
  setenv("REEL_DEVICE", "llvmpipe", 0);
}

VulkanDeviceOptions validatedOptions(uint32_t framesInFlight) {
  useLavapipe();
  VulkanDeviceOptions options;
  options.applicationName = "reel-tests";
  options.validate = true;
  options.synchronizationValidation = true;
  options.framesInFlight = framesInFlight;
  return options;
}

std::unique_ptr<VulkanDeviceImpl> makeDevice(uint32_t framesInFlight) {
  auto device = VulkanDeviceImpl::create(validatedOptions(framesInFlight));
  EXPECT_TRUE(device.ok()) << (device.ok() ? "" : device.error().message);
  if (!device.ok()) return nullptr;
  return std::move(*device);
}

std::string joinErrors(const std::vector<std::string>& errors) {
  std::string text;
  for (const std::string& e : errors) text += "\n  " + e;
  return text;
}

size_t countContaining(const std::vector<std::string>& errors, const std::string& needle) {
  size_t n = 0;
  for (const std::string& e : errors) n += e.find(needle) != std::string::npos;
  return n;
}

}  // namespace reel::test
