// reel-example: an app on reel's installed package. Renders a few frames headless on the default Vulkan
// device (REEL_DEVICE picks another; REEL_VALIDATE=1 turns the validation layer on), captures two of them
// into a trace, and writes its own image of those two frames to PNG files named as `reel replay --out`
// names the replayed ones, so that `reel compare` can hold the two folders side by side.
//
//   reel-example --capture out.reel --out images/ [--frames N]
//
// Exits 0 when everything worked; 1 when the device reported any error (validation messages included),
// a readback or the capture failed, or an image could not be written; 2 for a bad command line.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "reel/image/image.h"
#include "reel/reel.h"
#include "scene.h"

namespace {

constexpr uint64_t kFirstCapturedFrame = 1, kLastCapturedFrame = 2;

struct Options {
  std::string capturePath;
  std::filesystem::path imageDir;
  uint64_t frames = 4;
  std::vector<std::string> args;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    o.args.emplace_back(arg);
    if (i + 1 >= argc) {
      std::fprintf(stderr, "reel-example: %s needs a value\n", argv[i]);
      return false;
    }
    const char* value = argv[++i];
    o.args.emplace_back(value);
    if (arg == "--capture") {
      o.capturePath = value;
    } else if (arg == "--out") {
      o.imageDir = value;
    } else if (arg == "--frames") {
      char* end = nullptr;
      o.frames = std::strtoull(value, &end, 10);
      if (*end != '\0' || o.frames <= kLastCapturedFrame) {
        std::fprintf(stderr, "reel-example: --frames must be a number over %llu, not '%s'\n",
                     static_cast<unsigned long long>(kLastCapturedFrame), value);
        return false;
      }
    } else {
      std::fprintf(stderr, "reel-example: unknown option '%s'\n", argv[i - 1]);
      return false;
    }
  }
  if (o.capturePath.empty() || o.imageDir.empty()) {
    std::fprintf(stderr, "usage: reel-example --capture TRACE.reel --out IMAGE_DIR [--frames N]\n");
    return false;
  }
  return true;
}

// Frame images as the render thread delivers them (ReadbackCallback runs there), for the main thread to
// write once every frame is done.
struct Readbacks {
  std::mutex mutex;
  std::map<uint64_t, reel::image::Image> images;
  std::vector<std::string> errors;

  void deliver(reel::Result<reel::ReadbackImage> result) {
    std::lock_guard lock(mutex);
    if (!result) {
      errors.push_back(result.error().message);
      return;
    }
    reel::image::Image image(result->width, result->height);
    if (result->format != reel::Format::RGBA8Unorm || result->pixels.size() != image.rgba.size()) {
      errors.push_back("frame " + std::to_string(result->frame) + ": the image is not " +
                       std::to_string(image.width) + "x" + std::to_string(image.height) + " RGBA8");
      return;
    }
    std::memcpy(image.rgba.data(), result->pixels.data(), image.rgba.size());
    images[result->frame] = std::move(image);
  }
};

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse(argc, argv, options)) return 2;

  reel::VulkanDeviceOptions deviceOptions;
  deviceOptions.applicationName = "reel-example";
  auto created = reel::VulkanDevice::create(deviceOptions);
  if (!created) {
    std::fprintf(stderr, "reel-example: %s\n", created.error().message.c_str());
    return 1;
  }
  std::unique_ptr<reel::VulkanDevice> device = std::move(*created);
  std::printf("reel-example: rendering %llu frames on %s\n", static_cast<unsigned long long>(options.frames),
              device->info().name.c_str());

  std::vector<std::string> failures;
  Readbacks readbacks;
  {
    reel::Renderer renderer(*device);
    example::Scene scene(renderer);

    reel::capture::CaptureOptions captureOptions;
    captureOptions.path = options.capturePath;
    captureOptions.firstFrame = kFirstCapturedFrame;
    captureOptions.lastFrame = kLastCapturedFrame;
    captureOptions.appName = "reel-example";
    captureOptions.appArgs = options.args;
    captureOptions.log = [](std::string_view line) {
      std::printf("reel-example: %.*s\n", int(line.size()), line.data());
    };
    // Declared after the renderer, so destroyed before it, as a capture must be.
    auto capture = reel::capture::Capture::start(renderer, captureOptions);
    if (!capture) {
      std::fprintf(stderr, "reel-example: %s\n", capture.error().message.c_str());
      return 1;
    }

    for (uint64_t n = 0; n < options.frames; ++n) {
      const uint64_t frame = renderer.recordingFrame();
      scene.record(frame);
      if (frame >= kFirstCapturedFrame && frame <= kLastCapturedFrame) {
        // On the Device interface, whatever the device: asked before the frame is kicked, delivered on the
        // render thread once the GPU has finished the frame.
        renderer.device().requestReadback(
            scene.frameImage(), frame,
            [&readbacks](reel::Result<reel::ReadbackImage> image) { readbacks.deliver(std::move(image)); });
      }
      renderer.kick();
    }
    renderer.flushAndWait();
    if (auto finished = (*capture)->finish(); !finished) failures.push_back(finished.error().message);

    // The resources go through requests like everything else: the next (empty) frame applies them.
    scene.destroy();
    renderer.kick();
    renderer.flushAndWait();
  }

  // The render thread has ended (with the renderer): what it delivered is this thread's to read now.
  for (const std::string& error : device->takeErrors()) failures.push_back("device: " + error);
  for (const std::string& error : readbacks.errors) failures.push_back("readback: " + error);
  for (uint64_t frame = kFirstCapturedFrame; frame <= kLastCapturedFrame; ++frame) {
    const auto image = readbacks.images.find(frame);
    if (image == readbacks.images.end()) {
      failures.push_back("frame " + std::to_string(frame) + ": no image came back");
      continue;
    }
    std::error_code ec;
    std::filesystem::create_directories(options.imageDir, ec);
    const std::filesystem::path path = options.imageDir / ("frame_" + std::to_string(frame) + ".png");
    if (auto written = reel::image::writePng(path, image->second); !written) {
      failures.push_back(written.error().message);
    }
  }

  for (const std::string& failure : failures) std::fprintf(stderr, "reel-example: %s\n", failure.c_str());
  if (device->errorCount() > 0 || !failures.empty()) return 1;
  std::printf("reel-example: frames %llu-%llu captured to %s, images in %s\n",
              static_cast<unsigned long long>(kFirstCapturedFrame),
              static_cast<unsigned long long>(kLastCapturedFrame), options.capturePath.c_str(),
              options.imageDir.c_str());
  return 0;
}
