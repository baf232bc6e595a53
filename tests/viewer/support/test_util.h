#pragma once
// Helpers the viewer's tests share: scratch folders, a direct replay (the replay engine playing from the
// capture start on a device of the test's, the way `reel replay --stop-at` replays, none of the
// checkpoints and continued steps behind the viewer's stepping), running reel-viewer under xvfb-run, and
// reading its --screenshot-info JSON.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reel/image/image.h"
#include "reel/runtime/device.h"
#include "reel/runtime/enums.h"
#include "reel/runtime/result.h"
#include "xvfb.h"

namespace reel::viewer::testing {

// A fresh folder under the test temp dir, named after the running test.
std::filesystem::path testFolder();

// A Vulkan device as the viewer picks it by default (REEL_DEVICE, a discrete GPU, else lavapipe).
Result<std::unique_ptr<Device>> vulkanDevice();

// Replays frames [0, frameIndex] of a trace on `device` (the last with stopAfterPackets), then reads
// `texture` (mip 0) back.
Result<std::vector<std::byte>> directReplay(const std::string& trace, Device& device, size_t frameIndex,
                                            uint64_t stopAfterPackets, uint32_t texture);

// The replay engine as `reel replay` drives it (replayFrame): it starts over for every frame it goes back
// to, so each call is a fresh replay to compare the viewer's stepping with, independent of the engine's
// checkpoints and continued steps.
class ReferenceReplay {
 public:
  explicit ReferenceReplay(const std::string& trace, const std::string& device = "", bool validate = false);
  ~ReferenceReplay();
  image::Image texture(size_t frame, uint64_t stop, uint32_t texture);
  image::Image target(size_t frame, uint64_t stop, uint32_t renderTarget, uint32_t attachment = 0);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// RGBA8 texels as an image.
image::Image rgbaImage(const std::vector<std::byte>& texels, uint32_t width, uint32_t height);

struct CommandResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr
};
// Runs a shell command line, capturing what it prints.
CommandResult runCommand(const std::string& commandLine);
using test::findXvfbRun;
// `xvfb` (findXvfbRun) followed by `arguments`, run as runCommand runs it.
CommandResult runUnderXvfb(const std::string& xvfb, const std::string& arguments);

// Minimal reading of the flat JSON reel-viewer writes: a number, a string or an object's text by key.
std::optional<long long> jsonNumber(const std::string& json, const std::string& key);
std::optional<std::string> jsonString(const std::string& json, const std::string& key);
std::optional<std::string> jsonObject(const std::string& json, const std::string& key);
std::string readText(const std::filesystem::path& path);

}  // namespace reel::viewer::testing
