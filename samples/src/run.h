#pragma once
// Running a scene: the device, the renderer, the recording threads, the frame image, and getting the
// frame images back. What reel-sample's main() and the sample tests share.
//
// Every frame renders into one frame image (RGBA8, --width x --height) with a depth buffer; the app opens
// a render pass on it per scene view and draws a small HUD on top. The final image of frame N comes back
// through VulkanDevice::requestReadback (asked before frame N is kicked, delivered when the GPU finished
// it) and goes to the image sink on a writer thread, so neither the app nor the render thread waits.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frame_tap.h"
#include "reel/image/image.h"
#include "reel/runtime/renderer.h"
#include "reel/vulkan/vulkan_device.h"

namespace reel::samples {

struct RunOptions {
  std::string scene = "default";
  uint64_t frames = 120;  // 0: until the window is closed (windowed only)
  uint32_t draws = 0;     // 0: the scene's default
  uint32_t width = 1280, height = 720;
  uint32_t framesInFlight = 2;  // the renderer's and the GPU's, 1..4
  uint32_t renderWorkers = 0;   // RendererConfig::workers: 0 = REEL_RENDER_WORKERS, else every core
  uint32_t threads = 2;         // recording threads
  bool headless = true;
  uint64_t saveFirst = 0, saveLast = UINT64_MAX;  // frames whose image goes to the sink
  std::string device;                             // VulkanDeviceOptions::deviceName
  bool validate = false;
  bool collectTimings = false;
  std::string pipelineCachePath;
  bool exerciseWindow = false;  // windowed: resize at frame 10, minimized 20-29, restored at 30
  // Windowed: F12 captures this many frames from the next one (capture_hotkey.h). pressF12At injects an
  // F12 press into the window before that frame is recorded, as if a person had pressed it (tests).
  uint32_t hotkeyFrames = 1;
  std::optional<uint64_t> pressF12At;
  // Capture frames [captureFirst, captureLast] into captureOut (--capture A-B --capture-out FILE). Without
  // captureOut, REEL_CAPTURE / REEL_CAPTURE_FRAMES in the environment decide (reel::capture).
  std::string captureOut;
  uint64_t captureFirst = 0, captureLast = UINT64_MAX;
  // A FrameTap on every frame (reel-sample --frame-tap): the least a capture does, for measuring.
  std::optional<FrameTap::Options> frameTap;
  // reel-sample --ab: blocks of this many frames alternate without and with the capture or the frame tap
  // (AbBlocks), which then run only in their blocks; 0: no blocks.
  uint32_t abBlockFrames = 0;
  uint32_t abWorkerLimit = 0;     // with abBlockFrames: on-blocks limit the render workers to it
  std::vector<std::string> args;  // the command line, for the trace's header
  // Lines for the user while the sample runs (an F12 capture starting and finishing); null: none.
  std::function<void(std::string_view)> log;
};

struct RunResult {
  uint64_t frames = 0;
  double seconds = 0;  // from the first kick to the last frame done on the GPU
  // The median time from one kick to the next over the first kMaxFrameIntervals frames: the app's
  // steady frame time, which one-off stalls (a capture's start, pipeline compiles) leave alone.
  double medianFrameMs = 0;
  static constexpr size_t kMaxFrameIntervals = 100'000;
  DeviceInfo device;
  VulkanDeviceStats deviceStats;
  RendererStats rendererStats;
  std::vector<std::string> errors;  // what the device reported (the first 1000)
  size_t errorCount = 0;
  std::vector<FrameTiming> timings;  // the renderer's phases of every frame, when collectTimings
  // When collectTimings, the app thread's side of every frame: recording it (the scene on the recording
  // threads, declared passes, the HUD) and kicking it (which waits while every frame slot is in flight).
  std::vector<double> recordMs, kickMs;
  uint64_t imagesDelivered = 0;
  uint64_t presents = 0, swapchainRecreations = 0;  // windowed
  std::vector<std::string> imageErrors;             // readbacks that failed
  std::string captureSummary;                       // the capture's closing line, when one ran
  std::string frameTapSummary;                      // FrameTap::summary(), when one ran
  std::string abSummary;                            // AbBlocks::summary(), with abBlockFrames
  std::string abPairs;                              // AbBlocks::pairs(), likewise
  std::string abBreakdown;                          // AbBlocks::breakdown(), likewise
  std::vector<std::string> captureErrors;           // captures that could not write (disk full, ...)
  std::vector<std::string> hotkeyTraces;            // traces F12 captured, in order
};

// Called on a writer thread, frame by frame in order.
using ImageSink = std::function<void(uint64_t frame, image::Image&& image)>;

// The median the sample reports of its per-frame times (halfway between the middle two of an even
// count); 0 for none.
double medianOf(std::vector<double> values);

// Fails (with a message fit for a user) when the scene is unknown or no device or window could be had.
// Problems while rendering are not failures: they are in RunResult::errors.
Result<RunResult> runSample(const RunOptions& options, const ImageSink& sink);

}  // namespace reel::samples
