#include "capture_hotkey.h"

#include <filesystem>

namespace reel::samples {

std::string hotkeyTracePath(const std::string& captureOut, uint64_t frame) {
  const std::string suffix = "_frame" + std::to_string(frame) + ".reel";
  if (captureOut.empty()) return "reel-sample" + suffix;
  std::filesystem::path path(captureOut);
  if (path.extension() == ".reel") path.replace_extension();
  return path.string() + suffix;
}

std::optional<CaptureRequest> captureRequestFor(const window::KeyEvent& event, const std::string& captureOut,
                                                uint64_t nextFrame, uint32_t frames) {
  if (event.key != window::Key::F12 || event.action != window::KeyAction::Press || frames == 0) {
    return std::nullopt;
  }
  return CaptureRequest{hotkeyTracePath(captureOut, nextFrame), nextFrame, nextFrame + frames - 1};
}

}  // namespace reel::samples
