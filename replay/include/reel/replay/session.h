#pragma once
// The replay engine: one replay of one trace on one device, which `reel replay`, `reel bisect`, the
// golden suite, the viewer and the tests all drive. It owns the device, a Renderer and a FrameFeeder and
// sends the trace's frames through the same sorted-submit path the app used. Two ways to move:
//
// Playing on (replayFrame: `reel replay`, its --loop, the golden suite). Frames not replayed yet up to
// the one asked for are replayed whole, that one stopped after any sorted packet, destroy requests
// included, so each frame starts from whatever the one before it left. Going back (a frame at or before
// the last one played) starts over from the capture start: every resource is destroyed, then the
// capture-start resources are created again on the same renderer, whose frame numbers keep counting up.
//
// Seeking (seek: the viewer's stepping, bisect). The device is left as it is after the frames before the
// one asked for ran whole and that one ran up to `stop` sorted packets, without its destroy requests, so
// that every resource the frame uses stays readable. A replay of every earlier frame for every step
// would cost every pipeline compile and every earlier frame, so the engine keeps a checkpoint:
//  - the capture-start resources are created in a frame of their own when frame 0 is the one sought;
//  - frames before the one sought are replayed whole, once;
//  - at the start of the frame sought it reads back every live buffer and texture (the checkpoint, one
//    at a time: the frame last sought into);
//  - a step forward in the same frame continues from where the last one stopped: one more renderer
//    frame holding the packets from there to the new stop, after a prefix that re-establishes the
//    device's bound state at the old stop (bound_state.h). A step costs its own packets, not the frame's;
//  - a step back restores the checkpoint (destroys what was created since, creates again what was
//    destroyed since, writes the contents back) in one or two renderer frames, then replays the frame
//    again up to the stop. Pipelines, shaders and samplers alive in both states stay;
//  - going back before the checkpoint, or a checkpoint that could not be read back, starts over from the
//    capture start. Stencil is not read back: a D24S8 texture's stencil is restored as 0.
// Key frames (format 1.4, CaptureOptions::keyFrames): both ways start from the trace's nearest key frame
// at or before the frame asked for when it is nearer than where the device is, the checkpoint and the
// capture start. A key frame is a checkpoint from the file, restored the same way (what is alive in both
// states stays). So a frame whose chunk is unreadable fails, as does every frame after it up to the next
// key frame, and from there the replay goes on. A key frame that cannot be read is passed over for the one
// before it.
// Both ways feed the same FrameFeeder and Renderer, so a position reached either way gives the same bits
// (tests/replay/engine_test.cpp, tests/viewer/replay_test.cpp check continued and restored steps against
// replays from the capture start). After a seek, replayFrame first puts the checkpoint back.
//
// Threading: one thread at a time (the viewer's ReplayWorker runs one on a thread of its own).

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
}  // namespace reel

namespace reel::replay {

class BoundState;
class FramePrefetcher;
class RecordedBucket;
class RenderIdleClock;

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
  bool keyFrames = true;        // start from the trace's key frames (false: as if it had none)
  // The windowed path (Vulkan device only): changes the device's options before it is created, e.g. a
  // reel::window::Window's attach(), which hands it the window's surface and size.
  std::function<void(VulkanDeviceOptions&)> configureDevice = {};
  // Windowed: the frame that replayFrame() asks for shows this target in the window (chosen as for a
  // readback); the frames replayed on the way to it, and a frame where the choice fails, show nothing.
  std::optional<TargetChoice> present = {};
  std::string applicationName = "reel replay";  // what the Vulkan device tells the driver
  // Frames replayFrame reads ahead on worker threads (reading, decompressing, decoding; a chunk per
  // worker at a time) while this thread feeds one and the render thread translates the one before: at
  // most this many decoded frames wait, and fewer when the trace's largest frame times them would pass
  // lookaheadBytes. A chunk holds up to 16 frames: a look-ahead of a chunk or more lets the workers
  // decode the next chunk while this one is played. 0 reads each frame in line. Seeks read in line.
  uint32_t lookahead = 32;
  uint64_t lookaheadBytes = 64ull << 20;  // of decoded frames: a few of the largest sample's (stress)
  uint32_t readWorkers = 0;  // threads reading ahead; 0: the cores less two (for this thread and the
                             // render thread), 1 to 4
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

// How seek() reached its position.
enum class SeekPath : uint8_t {
  Continued,  // the packets after the last stop, in a renderer frame of their own
  Restored,   // the checkpoint at the frame's start was restored and the frame replayed again
  Forward,    // earlier frames were replayed whole to reach the frame (after a restore, if one was needed)
  FromStart,  // from the capture start: a new session, or going back before the checkpoint
  KeyFrame,   // from the nearest key frame of the trace at or before the frame (nearer than the others)
};
const char* seekPathName(SeekPath path);

struct SeekResult {
  uint64_t frame = 0;     // frame number in the trace
  uint64_t packets = 0;   // sorted packets in the frame
  uint64_t executed = 0;  // sorted packets of the frame the device has run now (the stop, clamped)
  SeekPath path = SeekPath::FromStart;
  uint32_t framesReplayed = 0;   // trace frames submitted, the partial one included
  uint64_t packetsRun = 0;       // sorted packets of the frame the device ran this time
  uint64_t prefixPackets = 0;    // state packets sent again before them (Continued)
  uint64_t checkpointBytes = 0;  // read back at the frame's start this time (0: none taken)
  double restoreMs = 0;          // putting the checkpoint back, or starting over
  double earlierFramesMs = 0;    // frames before the frame, replayed whole
  double checkpointMs = 0;       // reading the checkpoint back
  double feedMs = 0;             // reading the frame and recording it into the buckets
  double executeMs = 0;          // the render thread and the device running it (kick to idle)
};

// A texture's contents as read back: mip `mip` of `desc`, tightly packed in its format.
struct TextureContents {
  TextureDesc desc{};
  uint32_t mip = 0;
  std::vector<std::byte> texels;
};

// A chosen target read back (TargetChoice), as an image.
struct TargetImage {
  image::Image image;
  std::string name;  // "render_target#2 color 0 (texture#5)", "texture#4"
  TextureHandle texture;
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
  // With SessionOptions::lookahead, frames are read on worker threads: their CPU time is in readCpu (and
  // cpu) too, and their zstd time here (the session's own reader counts the rest). `wall` is then this
  // thread's time feeding and waiting for frames read ahead, of which fetchWait the waiting.
  std::chrono::nanoseconds aheadCpu{0};  // of readCpu: the read-ahead threads'
  std::chrono::nanoseconds aheadDecompressCpu{0};
  std::chrono::nanoseconds fetchWait{0};
  // The render thread's time between the end of one frame and the start of the next (waiting for it to
  // be kicked), and from its first frame's start to its last frame's end: idle / span is the share of
  // the render thread's time that getting frames out of the trace cost it (the critical path).
  std::chrono::nanoseconds renderIdle{0};
  std::chrono::nanoseconds renderSpan{0};
};

class ReplaySession {
 public:
  // A replay of `reader`, which must outlive it.
  static Result<std::unique_ptr<ReplaySession>> create(trace::TraceReader& reader,
                                                       const SessionOptions& options);
  // A replay on a device of the caller's, which must outlive it (tests that inspect the null device's
  // calls); the options' device, validation and configureDevice are not used.
  static Result<std::unique_ptr<ReplaySession>> create(trace::TraceReader& reader, Device& device,
                                                       const SessionOptions& options);
  // Opens the trace at `path` and replays it (the session owns the reader).
  static Result<std::unique_ptr<ReplaySession>> open(const std::string& path, const SessionOptions& options);
  ~ReplaySession();

  // ---- playing on ----
  // Replays frame `index` (a position in the trace, 0 = first captured frame) after every frame before it
  // that has not been replayed yet. With `readback`, reads the chosen target once the frame is done.
  Result<FrameResult> replayFrame(size_t index, uint64_t stopAfterPackets = UINT64_MAX,
                                  std::optional<TargetChoice> readback = std::nullopt);

  // Destroys everything and starts again before the first frame. The checkpoint stays.
  Result<void> restart();

  // ---- seeking ----
  // The device as after frames [0, index) whole and `stopAfterPackets` sorted packets of frame `index`,
  // its destroy requests held back (see above).
  Result<SeekResult> seek(size_t index, uint64_t stopAfterPackets = UINT64_MAX);
  // The frame whose start the checkpoint holds, if there is one.
  std::optional<size_t> checkpointFrame() const;

  // ---- reading back, where the last replayFrame or seek left the device ----
  Result<TargetImage> readTarget(const TargetChoice& choice);
  Result<TextureContents> readTexture(TextureHandle texture, uint32_t mip = 0);
  Result<std::vector<std::byte>> readBuffer(BufferHandle buffer);

  Device& device() { return device_; }
  // The same device when it is the Vulkan device (its counters and timings), else null.
  VulkanDevice* vulkanDevice() { return vulkan_; }
  Renderer& renderer() { return *renderer_; }
  // What is alive (FrameFeeder::live, renderTarget, texture) and whether frames were sorted as recorded.
  const FrameFeeder& feeder() const { return *feeder_; }
  trace::TraceReader& reader() { return reader_; }
  // Problems the device reported (validation messages included), collected so far.
  std::vector<std::string> takeDeviceErrors() { return device_.takeErrors(); }
  // With collectTimings; zero otherwise. Includes the resources read when the session was created.
  const DecodeTimes& decodeTimes() const;

 private:
  // A frame read once for seeking: its packets by sorted position, and for each the position whose edit
  // it gets (a shared packet is recorded once, with the edit of its first link in submission order).
  struct Loaded {
    size_t index = 0;
    trace::FrameRecord record;
    FrameOrder order;
    std::vector<PacketRef> sorted;
    std::vector<uint64_t> editPosition;  // empty without an edit: every packet its own position
    // The frame declares passes: a continued step (continueOpen) cannot rebuild the pass it stopped in,
    // so a seek forward in it replays the frame from its start instead.
    bool declaresPasses = false;
  };
  // Where the last seek stopped: frame `index`, `stop` packets run, its destroy requests held back.
  struct Open {
    size_t index = 0;
    uint64_t stop = 0;
  };
  struct Checkpoint {
    size_t frameIndex = 0;
    FrameFeeder::LiveMap live;  // what was alive
    // By live key: a buffer's bytes, or each mip of a texture.
    std::map<uint64_t, std::vector<std::vector<std::byte>>> contents;
    uint64_t bytes = 0;
  };

  ReplaySession(trace::TraceReader& reader, Device& device, const SessionOptions& options);
  static Result<std::unique_ptr<Device>> makeDevice(const SessionOptions& options, VulkanDevice*& vulkan);
  Result<void> start();
  // Records the resources alive at the trace's first frame into the next kick.
  Result<void> submitStartResources();
  // Kicks what is recorded but not yet kicked (the capture-start resources) in a frame of its own.
  void kickPending();
  // Puts back `from` (the checkpoint when null).
  Result<void> restoreCheckpoint(const Checkpoint* from = nullptr);
  // Where a move to frame `index` would start without key frames (seek: needClean).
  size_t startWithoutKeyFrames(size_t index, bool needClean) const;
  // Starts at the nearest key frame in (position, index]; false when there is none it can start at.
  bool startAtNearestKeyFrame(size_t index, size_t position);
  // Before a move to frame `index`: starts at the nearest key frame when it is nearer than the start at
  // hand (true); fails when frames between that start and `index` are missing from the trace (a chunk
  // lost while rebuilding the index) and no key frame after them can be read.
  Result<bool> startNearKeyFrame(size_t index, bool needClean);
  Result<void> startAtKeyFrame(size_t index);
  Result<void> takeCheckpoint(size_t index);
  Result<void> load(size_t index);
  Result<void> replayPartial(uint64_t stopAfterPackets, SeekResult& result);
  Result<void> continueOpen(uint64_t stopAfterPackets, SeekResult& result);
  // The packet at a sorted position of the loaded frame, as the feeder records it.
  Result<FrameFeeder::Prepared> preparedAt(uint64_t position);
  // The texture `choice` names in `frame` after `stopAfterPackets` of its sorted packets.
  Result<TextureHandle> chooseTexture(const trace::FrameRecord& frame, const FrameOrder& order,
                                      uint64_t stopAfterPackets, const TargetChoice& choice,
                                      std::string& name);
  // Shows the chosen target of the frame about to be kicked in the window; false when it cannot.
  bool present(const trace::FrameRecord& frame, const FrameOrder& order, uint64_t stopAfterPackets,
               const TargetChoice& choice);

  std::unique_ptr<trace::TraceReader> ownedReader_;  // open(): declared first, destroyed last
  trace::TraceReader& reader_;
  SessionOptions options_;
  std::unique_ptr<Device> ownedDevice_;  // the device create() made, if it made one
  Device& device_;
  VulkanDevice* vulkan_ = nullptr;  // device_, when it is the Vulkan device
  std::unique_ptr<Renderer> renderer_;
  std::unique_ptr<FrameFeeder> feeder_;
  DecodeTimes decodeTimes_;
  trace::FrameRecord frame_;  // the frame being played, decoded into the previous frame's buffers

  // Where the device is: frames [0, next_) were kicked; clean_: each of them ran whole.
  size_t next_ = 0;
  bool clean_ = true;
  bool pending_ = false;  // recorded requests not kicked yet (the capture-start resources)
  bool broken_ = false;   // a failure left a state no checkpoint can undo: the next move starts over
  std::optional<uint64_t> playedStop_;  // replayFrame: frame next_ - 1 (in frame_) ran this many packets
  std::optional<Open> open_;
  std::unique_ptr<Loaded> loaded_;
  std::unique_ptr<BoundState> bound_;  // the open frame's bound state, up to bound_->position()
  std::optional<Checkpoint> checkpoint_;
  RecordedBucket* stepBucket_ = nullptr;  // continued steps' packets, keyed by their order
  // Pipelined replay (SessionOptions::lookahead) and its clocks; after renderer_, which they observe.
  std::unique_ptr<FramePrefetcher> prefetch_;
  std::unique_ptr<RenderIdleClock> idleClock_;
  ObserverRegistration idleWatch_;
  mutable DecodeTimes timesWithAhead_;  // decodeTimes_ with the worker's share added when asked
};

}  // namespace reel::replay
