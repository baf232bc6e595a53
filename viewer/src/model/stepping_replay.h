#pragma once
// "Image after command": replays a trace on a device of the viewer's own up to the N-th sorted packet
// of a frame and reads textures back, through the public replay path (reel::replay::FrameFeeder feeding
// a Renderer, FrameOptions::stopAfterPackets), so the image is what `reel replay --stop-at` gives.
//
// Stepping is the common case (the next command of the same frame), and a replay from the capture
// start for every step would cost a device, every pipeline compile and every earlier frame. So the
// session keeps its renderer and device and a checkpoint of the frame it steps in:
//  - the capture-start resources are created in a frame of their own, before the first trace frame;
//  - frames before the selected one are replayed whole, once;
//  - at the start of the selected frame it reads back every live buffer and texture (the checkpoint);
//  - a step replays the selected frame up to the packet, without the frame's destroy requests (so every
//    resource the frame uses stays readable after it);
//  - a step forward in the same frame continues from there: one more renderer frame holding the packets
//    from the last step's end to the new one, after a prefix that re-establishes what the device's
//    per-frame state was at the last step's end (the render pass still open, begun again with load ops
//    LOAD; the last pipeline of each kind, the last buffer/texture bound to each slot, viewport,
//    scissor, every push constant write, the debug markers still open). The device starts a frame with
//    nothing bound and ends a stopped frame by closing its pass (its clear included), so that prefix is all
//    it needs; the tests check every continued step against a fresh replay. A step costs its own packets, not
//    the frame's;
//  - a step back first restores the checkpoint (destroys what the partial frame created, writes the
//    checkpoint's contents back) in one extra frame, then replays the frame again up to the packet.
//    Pipelines, shaders and samplers never change, so they stay.
//  - going back to an earlier frame starts over (a new device), as does a checkpoint that could not be
//    read back (stencil is not read back; a D24S8 texture's stencil is lost, so is restored as 0).
//
// Why not reel::replay::ReplaySession (what `reel replay` drives): it starts over from the capture start
// whenever it goes back, which is every step within a frame; this one restores a checkpoint instead.
// Both feed the same FrameFeeder and Renderer, so both give the same bits (tests/viewer/replay_test.cpp).
//
// Threading: one thread at a time (ReplayWorker runs it on a thread of its own).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/frame_table.h"
#include "reel/replay/frame_feeder.h"
#include "reel/replay/recorded_bucket.h"
#include "reel/runtime/device.h"
#include "reel/runtime/renderer.h"
#include "reel/trace/reader.h"

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
  uint32_t attachment = 0;  // color attachment index for TargetColor
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
  TextureDesc desc{};
  std::vector<std::byte> texels;  // mip 0, tightly packed, the texture's format
  std::string error;              // why there are no texels
};

struct BufferReadback {
  uint32_t buffer = 0;
  std::vector<std::byte> bytes;
  std::string error;
};

enum class ReplayPath : uint8_t {
  Continued,  // the packets after the last step's end, in a frame of their own
  Restored,   // the frame's checkpoint was restored and the frame replayed again
  Forward,    // earlier frames were replayed whole to reach the frame
  FromStart,  // a new device and renderer, from the capture start
};
const char* replayPathName(ReplayPath path);

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
  ~SteppingReplay();
  SteppingReplay(const SteppingReplay&) = delete;
  SteppingReplay& operator=(const SteppingReplay&) = delete;

  Result<ReplayOutcome> run(const ReplayRequest& request);

  const trace::TraceHeader& header() const { return reader_.header(); }
  DeviceInfo deviceInfo() const { return device_ ? device_->info() : DeviceInfo{}; }
  // Why the device is not the one asked for (Vulkan unavailable: the null device), or empty.
  const std::string& deviceNote() const { return deviceNote_; }
  bool rasterizes() const { return !usingNull_; }

 private:
  struct Live {
    CommandType createType = CommandType::Count;
    std::vector<std::byte> create;
    std::vector<std::byte> data;  // shader code
  };
  struct Checkpoint {
    bool valid = false;
    size_t frameIndex = 0;
    std::map<uint64_t, std::vector<std::vector<std::byte>>>
        contents;  // live key -> buffer bytes, or each mip
    uint64_t bytes = 0;
  };

  SteppingReplay(trace::TraceReader reader, DeviceChoice choice)
      : reader_(std::move(reader)), choice_(std::move(choice)) {}
  Result<void> start();  // device, renderer, feeder, capture-start resources
  void stop();
  Result<void> replayWhole(size_t frameIndex);
  Result<void> replayPartial(size_t frameIndex, uint64_t stopAfterPackets, ReplayOutcome& outcome);
  Result<void> continueFrame(uint64_t stopAfterPackets, ReplayOutcome& outcome);
  Result<void> loadFrame(size_t frameIndex);
  Result<void> takeCheckpoint(size_t frameIndex);
  Result<void> restoreCheckpoint();
  void readBack(const ReplayRequest& request, ReplayOutcome& outcome);
  // Device errors, sort mismatches and the time: the end of every run.
  ReplayOutcome finish(ReplayOutcome& outcome, std::chrono::steady_clock::time_point started);
  std::optional<CommandType> mapType(uint16_t traceType) const;
  // Tracks creates (and destroys, when `destroys`) of a frame's requests in live_.
  void applyRequests(const trace::FrameRecord& frame, bool destroys, std::vector<uint64_t>* created);
  static uint64_t liveKey(ResourceKind kind, uint32_t handle) { return uint64_t(kind) << 32 | handle; }

  trace::TraceReader reader_;
  DeviceChoice choice_;
  std::vector<trace::ResourcesRecord> captureStart_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<Renderer> renderer_;
  std::unique_ptr<replay::FrameFeeder> feeder_;
  std::string deviceNote_;
  bool usingNull_ = false;

  size_t completed_ = 0;  // trace frames replayed whole
  bool dirty_ = false;    // a partial replay of frame completed_ was applied
  bool broken_ = true;    // a failure left a state nothing can restore: start over
  bool freshStart_ = false;
  std::vector<uint64_t> partialCreated_;  // live keys the partial frame created
  uint64_t partialStop_ = 0;              // sorted packets of frame completed_ run so far (when dirty_)
  // The selected frame, read once: stepping re-reads nothing.
  std::optional<size_t> loadedIndex_;
  trace::FrameRecord loaded_;
  std::unique_ptr<FrameTable> loadedTable_;
  replay::RecordedBucket* stepBucket_ = nullptr;  // continued packets go here, keyed by their order
  std::map<uint64_t, Live> live_;  // resources alive at the start of frame completed_ (+ partial creates)
  Checkpoint checkpoint_;
  size_t mismatchesSeen_ = 0;
};

}  // namespace reel::viewer
