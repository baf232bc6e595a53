#pragma once
// A replay of one trace on one device: what `reel replay`, `reel bisect`, the golden tests and the viewer
// drive. It owns the device, a Renderer and a FrameFeeder, replays frames in order through the same
// sorted-submit path the app used, can stop a frame after its N-th sorted packet, and reads back a
// render target at the end of a frame.
//
// Going back (a frame at or before the last one replayed) starts over: every resource is destroyed,
// then the trace is replayed from its first frame, so each frame always starts from the state the app
// had (state written by the GPU in earlier frames included). The renderer goes on: its frame numbers
// keep counting up across restarts.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "reel/image/image.h"
#include "reel/replay/frame_feeder.h"
#include "reel/replay/frame_order.h"
#include "reel/trace/reader.h"

namespace reel {
struct VulkanDeviceOptions;
class VulkanDevice;
}

namespace reel::replay {

// Which image to read back or present at the end of a frame.
struct TargetChoice {
  enum class Kind { LastPass, RenderTarget, Texture } kind = Kind::LastPass;
  uint32_t index = 0;       // handle slot of the render target or texture ("render_target#3" -> 3)
  uint32_t attachment = 0;  // color attachment of a render target
};

struct SessionOptions {
  std::string device = {};      // substring of a device name; "null": the null device (no GPU, no pixels)
  bool validate = false;        // the Khronos validation layer (REEL_VALIDATE=1 also turns it on)
  uint32_t framesInFlight = 2;  // 1..4, for the render thread and the device
  bool collectTimings = false;  // per-frame sort / translate / submit and GPU times (Vulkan device), and
                                // the time spent reading the trace (decodeTimes())
  PacketEdit edit = {};         // changes packets on their way in (FrameFeeder)
  KeyEdit keyEdit = {};         // changes keys on their way in
  // The windowed path (Vulkan device only): changes the device's options before it is created, e.g. a
  // reel::window::Window's attach(), which hands it the window's surface and size.
  std::function<void(VulkanDeviceOptions&)> configureDevice = {};
  // Windowed: the frame that replayFrame() asks for shows this target in the window (chosen as for a
  // readback); the frames replayed on the way to it, and a frame where the choice fails, show nothing.
  std::optional<TargetChoice> present = {};
};
// "last" (default: the render target of the frame's last render pass that ran), "rt:N[.A]" or
// "render_target#N" (render target slot N, color attachment A), "tex:N" or "texture#N".
Result<TargetChoice> parseTarget(std::string_view text);

struct FrameResult {
  uint64_t frame = 0;     // frame number in the trace
  uint64_t packets = 0;   // sorted packets in the frame
  uint64_t executed = 0;  // sorted packets translated (fewer with stopAfterPackets)
  std::optional<image::Image> image;
  std::string target;      // what was read back: "render_target#2 color 0 (texture#5)"
  bool presented = false;  // SessionOptions::present: the frame's target went to the window
};

// Time spent getting frames and resources out of the trace and into the renderer, on the thread that
// calls replayFrame (and create / restart): reading, decompressing, verifying and decoding the trace
// (TraceReader) and refilling buckets and resource requests (FrameFeeder). `cpu` is that thread's CPU
// time (CLOCK_THREAD_CPUTIME_ID) in those calls, `wall` their steady-clock time.
struct DecodeTimes {
  std::chrono::nanoseconds cpu{0};  // readCpu + feedCpu
  std::chrono::nanoseconds wall{0};
  std::chrono::nanoseconds readCpu{0};  // TraceReader: read, decompress, verify, decode
  std::chrono::nanoseconds feedCpu{0};  // FrameFeeder: resource requests, bucket refills
  uint64_t frames = 0;                  // frames read and fed
  uint64_t resources = 0;               // resource snapshots read and fed (at the start and every restart)
};

class ReplaySession {
 public:
  static Result<std::unique_ptr<ReplaySession>> create(trace::TraceReader& reader,
                                                       const SessionOptions& options);
  ~ReplaySession();

  // Replays frame `index` (a position in the trace, 0 = first captured frame) after every frame before it
  // that has not been replayed yet. With `readback`, reads the chosen target once the frame is done.
  Result<FrameResult> replayFrame(size_t index, uint64_t stopAfterPackets = UINT64_MAX,
                                  std::optional<TargetChoice> readback = std::nullopt);

  // Destroys everything and starts again before the first frame.
  Result<void> restart();

  Device& device() { return *device_; }
  // The same device when it is the Vulkan device (its counters and timings), else null.
  VulkanDevice* vulkanDevice() { return vulkan_; }
  Renderer& renderer() { return *renderer_; }
  const FrameFeeder& feeder() const { return *feeder_; }
  trace::TraceReader& reader() { return reader_; }
  // Problems the device reported (validation messages included), collected so far.
  std::vector<std::string> takeDeviceErrors() { return device_->takeErrors(); }
  // With collectTimings; zero otherwise. Includes the resources read when the session was created.
  const DecodeTimes& decodeTimes() const { return decodeTimes_; }

 private:
  ReplaySession(trace::TraceReader& reader, std::unique_ptr<Device> device, const SessionOptions& options);
  Result<void> start();
  // Creates the resources alive at the trace's first frame.
  Result<void> submitStartResources();
  Result<TextureHandle> chooseTexture(const trace::FrameRecord& frame, const FrameOrder& order,
                                      uint64_t stopAfterPackets, const TargetChoice& choice,
                                      std::string& name);
  // Shows the chosen target of the frame about to be kicked in the window; false when it cannot.
  bool present(const trace::FrameRecord& frame, const FrameOrder& order, uint64_t stopAfterPackets,
               const TargetChoice& choice);

  trace::TraceReader& reader_;
  SessionOptions options_;
  std::unique_ptr<Device> device_;
  VulkanDevice* vulkan_ = nullptr;  // device_, when create() made a Vulkan device
  std::unique_ptr<Renderer> renderer_;
  std::unique_ptr<FrameFeeder> feeder_;
  std::optional<size_t> lastReplayed_;
  DecodeTimes decodeTimes_;
  trace::FrameRecord frame_;  // the frame being replayed, decoded into the previous frame's buffers
};

}  // namespace reel::replay
