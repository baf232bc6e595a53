#pragma once
// F12 in the sample's window captures the next frame(s) to a trace, like RenderDoc's F12. The key event
// becomes a request here, with no window and no renderer involved, so that the mapping is tested on its
// own; run.cpp starts the capture (reel::capture) at the next frame kicked.

#include <cstdint>
#include <optional>
#include <string>

#include "reel/window/window.h"

namespace reel::samples {

struct CaptureRequest {
  std::string path;
  uint64_t firstFrame = 0, lastFrame = 0;  // renderer frame numbers, inclusive
};

// "<captureOut without its .reel>_frame<N>.reel" beside captureOut, else "reel-sample_frame<N>.reel" in the
// working folder.
std::string hotkeyTracePath(const std::string& captureOut, uint64_t frame);

// A capture of `frames` frames from `nextFrame` (the frame about to be recorded) when `event` presses F12;
// nullopt for any other key, a key held down (repeats) or a release.
std::optional<CaptureRequest> captureRequestFor(const window::KeyEvent& event, const std::string& captureOut,
                                                uint64_t nextFrame, uint32_t frames = 1);

}  // namespace reel::samples
