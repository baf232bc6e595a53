#pragma once
// What every Vulkan test starts from: lavapipe (unless the environment names a driver or a device), the
// validation layer with its synchronization checks, and a check that nothing was reported.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "vulkan_device_impl.h"

namespace reel::test {

// Points the Vulkan loader at lavapipe (VK_DRIVER_FILES, VK_ICD_FILENAMES) and REEL_DEVICE at llvmpipe,
// unless they are set already. Idempotent.
void useLavapipe();

VulkanDeviceOptions validatedOptions(uint32_t framesInFlight = 2);
// A validated lavapipe device; fails the test (ASSERT) when none can be created.
std::unique_ptr<VulkanDeviceImpl> makeDevice(uint32_t framesInFlight = 2);

// "" when `errors` is empty, else the errors one per line (for EXPECT messages).
std::string joinErrors(const std::vector<std::string>& errors);

// The errors containing `needle`.
size_t countContaining(const std::vector<std::string>& errors, const std::string& needle);

}  // namespace reel::test
