#pragma once
// "Image after command": what the viewer asks of the replay engine (reel::replay::ReplaySession) and what
// it shows of the answer. A request names a frame, a stop (sorted packets run) and the images and buffers
// to read there; run() seeks the engine there and reads them back, so the image is what
// `reel replay --stop-at` gives. Checkpoints, continued steps, restores and the model of the device's
// bound state are the engine's (session.h); this adapter only turns the viewer's handles (a render
// target's color or depth attachment, a texture, a buffer) into readbacks, and the engine's errors and
// sort checks into what the image panel prints.
//
// Threading: one thread at a time (ReplayWorker runs it on a thread of its own).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reel/replay/session.h"

namespace reel::viewer {

struct DeviceChoice {
  // "null": the null device (no rasterization: only requests and copies change textures);
  // empty: the Vulkan device chosen automatically (REEL_DEVICE, a discrete GPU, else lavapipe), or the
  // null device with a note when Vulkan cannot start; anything else: a part of the Vulkan device's name.
  std::string name;
  bool validate = false;
};

// Which image to read back after the replay.
struct ImageSource {
  enum class Kind : uint8_t { Texture, TargetColor, TargetDepth };
  Kind kind = Kind::TargetColor;
  uint32_t handle = 0;      // a texture, or a render target for TargetColor / TargetDepth
  uint32_t attachment = 0;  // color attachment index for TargetColor (a target with none: its depth)
  friend bool operator==(const ImageSource&, const ImageSource&) = default;
};

struct ReplayRequest {
  size_t frameIndex = 0;                   // in the trace's frame order
  uint64_t stopAfterPackets = UINT64_MAX;  // sorted packets of that frame to run (position + 1)
  std::vector<ImageSource> images;
  std::vector<uint32_t> buffers;  // buffer handles to read back
  friend bool operator==(const ReplayRequest&, const ReplayRequest&) = default;
};

struct ImageReadback {
  ImageSource source;
  uint32_t texture = 0;  // the texture read (resolved from a render target)
  bool depth = false;    // it is the target's depth (asked for, or the target has no color attachment)
  TextureDesc desc{};
  std::vector<std::byte> texels;  // mip 0, tightly packed, the texture's format
  std::string error;              // why there are no texels
};

struct BufferReadback {
  uint32_t buffer = 0;
  std::vector<std::byte> bytes;
  std::string error;
};

// How the engine reached the request's position (continued, restored, forward, from start).
using ReplayPath = replay::SeekPath;
inline const char* replayPathName(ReplayPath path) {
  return replay::seekPathName(path);
}

struct ReplayOutcome {
  ReplayPath path = ReplayPath::FromStart;
  uint32_t framesReplayed = 0;   // trace frames submitted, the partial one included
  uint64_t packetsRun = 0;       // sorted packets of the selected frame the device ran this time
  uint64_t prefixPackets = 0;    // state packets sent again before them (Continued)
  uint64_t checkpointBytes = 0;  // read back at the frame start (0: none taken this time)
  double milliseconds = 0;       // the whole run, readbacks included, of which:
  double restoreMs = 0;          //   restoring the checkpoint (a kick and a flush)
  double earlierFramesMs = 0;    //   frames before the selected one, replayed whole
  double checkpointMs = 0;       //   reading the checkpoint back
  double feedMs = 0;             //   reading the selected frame and recording it into the buckets
  double executeMs = 0;          //   the render thread and the device running it (kick to idle)
  double readbackMs = 0;         //   reading the images and buffers back
  std::vector<ImageReadback> images;
  std::vector<BufferReadback> buffers;
  std::vector<std::string> deviceErrors;    // what the device reported while replaying
  std::vector<std::string> sortMismatches;  // frames whose replayed sorted order differed from the trace's
};

class SteppingReplay {
 public:
  static Result<std::unique_ptr<SteppingReplay>> open(const std::string& tracePath,
                                                      const DeviceChoice& device);
  SteppingReplay(const SteppingReplay&) = delete;
  SteppingReplay& operator=(const SteppingReplay&) = delete;

  Result<ReplayOutcome> run(const ReplayRequest& request);

  const trace::TraceHeader& header() const { return engine_->reader().header(); }
  DeviceInfo deviceInfo() const { return engine_->device().info(); }
  // Why the device is not the one asked for (Vulkan unavailable: the null device), or empty.
  const std::string& deviceNote() const { return deviceNote_; }
  bool rasterizes() const { return !usingNull_; }

 private:
  explicit SteppingReplay(std::unique_ptr<replay::ReplaySession> engine) : engine_(std::move(engine)) {}
  void readBack(const ReplayRequest& request, ReplayOutcome& outcome);

  std::unique_ptr<replay::ReplaySession> engine_;
  std::string deviceNote_;
  bool usingNull_ = false;
  size_t mismatchesSeen_ = 0;
};

}  // namespace reel::viewer
