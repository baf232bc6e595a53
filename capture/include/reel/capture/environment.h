#pragma once
// Capture from the environment: an app that calls installFromEnvironment once, right after it creates
// its Renderer, can then be captured by setting variables, with no further code for it:
//
//   REEL_CAPTURE=out.reel           capture to out.reel, from the first frame until the end
//   REEL_CAPTURE_FRAMES=10-12       only frames 10 to 12 (inclusive); "10" = frame 10 alone,
//                                   "10-" = from frame 10 until the end
//   REEL_CAPTURE_KEY_FRAMES=500ms   a key frame every 500 ms (KeyFrameSettings); "30f": every 30 frames,
//                                   "0": none; unset: the default
//   REEL_CAPTURE_ENCODE_THREADS=2   threads that encode frames (CaptureOptions::encodeThreads); "0": the
//                                   writer thread alone; unset: the default
//   REEL_CAPTURE_COMPRESS_THREADS=2 threads that compress chunks (CompressionSettings::threads); "0":
//                                   the writer thread
//   REEL_CAPTURE_PRIORITY=idle      the capture threads' priority (CaptureOptions::threadPriority):
//                                   adaptive (the default: idle, normal while the capture is
//                                   behind, CaptureOptions::normalWhenBehind), normal, background or idle
//   REEL_CAPTURE_LEVEL=-3           zstd's level (CompressionSettings::level, default 1): kMinCaptureLevel
//                                   to -1 (zstd's --fast=N: faster, larger files) or 1 to kMaxCaptureLevel
//
// Without that call the variables do nothing: the runtime cannot start a capture itself, since it must
// not depend on capture (ARCHITECTURE.md: runtime <- capture, one way). A hook in RendererConfig (a
// factory the runtime calls) would hide the dependency behind a function pointer and still need a call to
// set it, and a self-registering static initializer is dropped by the linker from a static library that
// nothing references.
//
// Where reel makes the call: reel-sample does, in samples/src/run.cpp right after creating its Renderer,
// unless --capture-out is given (the command line wins over the environment). reel's own tools do not:
// `reel replay`, `reel trim`, `reel golden` and reel-viewer ignore REEL_CAPTURE (to capture a replay's
// frames, `reel trim` writes a trace of chosen frames).
//
// Usage (given reel::Device& device):
//   reel::Renderer renderer(device);
//   auto capture = reel::capture::installFromEnvironment(renderer);  // keep it; destroy it before renderer
//   if (!capture) std::fprintf(stderr, "%s\n", capture.error().message.c_str());

#include <memory>
#include <optional>
#include <string_view>

#include "reel/capture/capture.h"

namespace reel::capture {

// REEL_CAPTURE_LEVEL's range: zstd's fast levels down to -7 and its ordinary ones up to 19 (above 19 zstd
// wants --ultra, and its tables outgrow what a capture should take from the app).
inline constexpr int kMinCaptureLevel = -7;
inline constexpr int kMaxCaptureLevel = 19;

struct FrameRange {
  uint64_t first = 0;
  uint64_t last = kNoLastFrame;  // inclusive
};

// "A-B", "A" or "A-": decimal frame numbers, A <= B.
Result<FrameRange> parseFrameRange(std::string_view text);

// Starts a capture when REEL_CAPTURE is set and not empty, with `defaults` for everything else (the
// summary goes to stderr unless defaults.log says otherwise). Returns a null capture when REEL_CAPTURE
// is unset, an error when a variable is malformed or the file cannot be created. Call it on the kick
// thread, before the first frame to capture is kicked.
Result<std::unique_ptr<Capture>> installFromEnvironment(Renderer& renderer, CaptureOptions defaults = {});

// What installFromEnvironment would start the capture with, without starting it: nothing when
// REEL_CAPTURE is unset, an error when a variable is malformed. For an app that starts its captures
// itself (reel-sample --ab starts one per block) with the settings the environment gives.
Result<std::optional<CaptureOptions>> optionsFromEnvironment(CaptureOptions defaults = {});

}  // namespace reel::capture
