#pragma once
// The Vulkan device: what the render thread's sorted packets become on a real GPU (or lavapipe).
//
// Usage (given const std::string& deviceName):
//   reel::VulkanDeviceOptions options;
//   options.deviceName = deviceName;  // empty: REEL_DEVICE, else a discrete GPU, else any
//   auto device = reel::VulkanDevice::create(options);
//   if (!device) {
//     std::fprintf(stderr, "%s\n", device.error().message.c_str());  // no such device, no loader
//     return;
//   }
//   reel::Renderer renderer(**device, {.framesInFlight = 2});
//
// Vulkan is loaded at run time, by a loader inside the library whose symbols have names of reel's own:
// nothing links to libvulkan, and an app that loads Vulkan itself (its own loader, or libvulkan) keeps its
// own function pointers. This header shows only Vulkan's handle types, declared the way vulkan_core.h
// declares them, so that including it never declares Vulkan's prototypes.
//
// Frames: frame f records into frame context f % framesInFlight; endFrame submits its command buffers,
// which signal a timeline semaphore. beginFrame waits only for the frame that last used the context it
// reuses (framesInFlight frames ago), then frees that context's garbage and delivers its readbacks.
//
// Errors: a packet naming a stale or unknown handle, an unbound slot the pipeline uses, a draw outside a
// pass, a failed allocation, device loss, and every validation-layer message (when validation is on) are
// reported through Device::takeErrors(); the packet is skipped, nothing crashes. After device loss,
// frames are skipped and readbacks fail.
//
// Threading: as Device says, everything on the render thread, except requestReadback(),
// setPresentSource(), stats() and takeErrors(), which any thread may call.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reel/runtime/device.h"
#include "reel/runtime/renderer.h"
#include "reel/runtime/result.h"

// Vulkan's handle types as vulkan_core.h declares them on 64-bit platforms (a repeated identical
// typedef is allowed, so this header and <vulkan/vulkan.h> mix in any order).
typedef struct VkInstance_T* VkInstance;
typedef struct VkSurfaceKHR_T* VkSurfaceKHR;

namespace reel {

// A framebuffer's size in pixels.
struct WindowExtent {
  uint32_t width = 0;
  uint32_t height = 0;
};

// Every member has a default, so `{.validate = true}` leaves the rest as they are (and -Wextra quiet).
struct VulkanDeviceOptions {
  std::string applicationName = "reel";
  std::string deviceName = {};            // substring of the device name; empty: REEL_DEVICE, else automatic
  bool validate = false;                  // the Khronos validation layer; REEL_VALIDATE=1 turns it on too
  bool synchronizationValidation = true;  // with validate: the layer's synchronization checks as well
  uint32_t framesInFlight = 2;            // frames the GPU may be behind the render thread, 1..4
  std::string pipelineCachePath = {};     // load and save the VkPipelineCache here; empty: in memory only
  bool oneQueue = false;                  // the graphics queue only, even where the device has more; also
                                          // REEL_QUEUES=1
  bool collectTimings = false;            // GPU times per frame (setGpuTimingCallback); the render
                                          // thread's phases come from the Renderer (FrameTiming)

  // The windowed path; leave createSurface empty for headless.
  std::vector<std::string> instanceExtensions = {};            // glfwGetRequiredInstanceExtensions()
  std::function<VkSurfaceKHR(VkInstance)> createSurface = {};  // glfwCreateWindowSurface
  std::function<WindowExtent()> framebufferSize = {};          // any thread; {0, 0} while minimized
  bool vsync = true;
};

// Device memory as it is at the moment stats() is called: resources share VkDeviceMemory blocks, so
// `allocations` stays far below the resource count (and below maxMemoryAllocationCount).
struct VulkanMemoryStats {
  uint64_t allocations = 0;      // live VkDeviceMemory objects: blocks + dedicated
  uint64_t peakAllocations = 0;  // the most live at once
  uint64_t blocks = 0;           // shared blocks, many resources each
  uint64_t dedicated = 0;        // one resource each (the driver prefers it, or the resource is large)
  uint64_t resources = 0;        // buffers and images (staging included) holding memory
  uint64_t bytesAllocated = 0;   // sum of the VkDeviceMemory sizes
  uint64_t bytesInUse = 0;       // sum of what the resources asked for
  uint64_t wasteBytes = 0;       // bytesAllocated - bytesInUse: free space and alignment padding in blocks
  // Transient textures (texture_usage::kTransient) of the last frame whose graph was known: the memory
  // they asked for, and what sharing it among those whose passes do not overlap saves (aliasing).
  uint64_t transientBytes = 0;
  uint64_t aliasedBytesSaved = 0;
};

// Counters since creation; a snapshot taken at each endFrame (memory: at the stats() call).
struct VulkanDeviceStats {
  uint64_t frames = 0;
  uint64_t submits = 0;
  uint64_t packets = 0;  // sorted packets executed
  uint64_t draws = 0;
  uint64_t dispatches = 0;
  uint64_t pipelineBinds = 0;     // vkCmdBindPipeline calls
  uint64_t descriptorPushes = 0;  // vkCmdPushDescriptorSetKHR calls
  uint64_t vertexBufferBinds = 0;
  uint64_t indexBufferBinds = 0;
  uint64_t pushConstantCalls = 0;
  uint64_t redundantBindsSkipped = 0;  // binds that changed nothing and reached no Vulkan call
  uint64_t barriers = 0;               // buffer + image barriers recorded
  uint64_t renderPasses = 0;           // vkCmdBeginRendering calls
  uint64_t renderPassSuspensions = 0;  // a pass ended early for a barrier or an outside-rendering command
  // Attachments begun with VK_ATTACHMENT_STORE_OP_DONT_CARE: transient textures at their last pass
  // (Device::discardAtPassEnd), whose contents nothing needs after it.
  uint64_t storesDiscarded = 0;
  uint64_t pipelinesCreated = 0;
  uint64_t pipelinesShared = 0;  // CreatePipeline answered by an equal existing pipeline
  // Bytes of the pipelineCachePath file handed to the driver's pipeline cache at creation (0: no file,
  // or the driver refused it and the cache started empty).
  uint64_t pipelineCacheBytesLoaded = 0;
  uint64_t presents = 0;
  uint64_t swapchainRecreations = 0;
  // Several queues (a compute-only and a transfer-only family beside graphics; REEL_QUEUES=1 keeps one).
  uint32_t queues = 1;           // queues the device opened
  uint64_t computeSubmits = 0;   // submissions on the compute queue (included in submits)
  uint64_t transferSubmits = 0;  // on the transfer queue (included in submits)
  uint64_t queueWaits = 0;       // semaphore waits of one queue's submission for another queue
  // Graphics submissions split at a pass whose reads wait for another queue, so that what came before
  // it in the segment does not wait (included in submits).
  uint64_t waitSplits = 0;
  VulkanMemoryStats memory;
};

// The GPU time of one frame, when collectTimings is on and the queue writes timestamps (gpuTimestamps()):
// the time between a timestamp at the start and one at the end of each command buffer the frame
// submitted, summed (a frame flushed midway for a synchronous readback has several), converted with
// timestampPeriod. A frame whose work also ran on another queue is timed from its first graphics command
// buffer to its last, which waits for the other queues: the span covers their work and their overlap;
// it arrives after the frame's FrameTiming (frame_timing.h), once the GPU has finished the
// frame: when its frame context is reused, framesInFlight frames later, or at waitIdle; always in frame
// order.
struct VulkanGpuTiming {
  uint64_t frame = 0;
  std::optional<std::chrono::nanoseconds> gpu =
      {};  // nullopt: a submission failed or a query was not readable
  uint32_t commandBuffers = 0;
};

class VulkanDevice : public Device {
 public:
  // Opens the Vulkan loader, creates the instance and the device (by options.deviceName, else
  // REEL_DEVICE, else a discrete GPU, else any), and everything frames need. Fails with a message fit
  // for a user: no loader, no device of that name (the message lists the devices), a missing feature.
  static Result<std::unique_ptr<VulkanDevice>> create(const VulkanDeviceOptions& options);

  const char* name() const override { return "vulkan"; }

  // Any thread: the texture each frame's end blits to the window (windowed only; null: none). The
  // per-frame choice, setPresentSource(texture, frame), takes precedence for its frame.
  using Device::setPresentSource;
  virtual void setPresentSource(TextureHandle texture) = 0;

  virtual VulkanDeviceStats stats() const = 0;
  // Render thread (or whichever thread calls waitIdle or destroys the device), once per frame that
  // began, when collectTimings is on and gpuTimestamps(). Set before the first frame.
  virtual void setGpuTimingCallback(std::function<void(const VulkanGpuTiming&)> callback) = 0;
  // Whether GPU times are measured: collectTimings is on and the queue family writes timestamps
  // (timestampValidBits > 0). False: no VulkanGpuTiming is ever delivered.
  virtual bool gpuTimestamps() const = 0;

 protected:
  VulkanDevice() = default;
};

// The names of the Vulkan devices this machine offers (what VulkanDeviceOptions::deviceName matches).
Result<std::vector<std::string>> listVulkanDevices();

}  // namespace reel
