#pragma once
// Capture: records frames of a running Renderer into a .reel trace, written by reel::trace
// (reel/trace/writer.h).
//
// Usage (given reel::Renderer& renderer):
//   auto capture = reel::capture::Capture::start(renderer, {.path = "out.reel"});  // kick thread
//   if (!capture) {
//     std::fprintf(stderr, "%s\n", capture.error().message.c_str());  // e.g. the file cannot be created
//     return;
//   }
//   renderer.kick();  // each frame kicked from now on is captured
//   if (auto failed = (*capture)->error()) std::fprintf(stderr, "%s\n", failed->c_str());  // disk full, ...
//   if (auto done = (*capture)->finish(); !done) std::fprintf(stderr, "%s\n", done.error().message.c_str());
//
// A capture that cannot write (disk full, a file size limit, an I/O error) stops at once and keeps
// what it wrote readable up to its last whole chunk; the app learns it from error() (poll it any time),
// from CaptureOptions::onError (called once, on the writer thread, when it happens) and from finish().
//
// Or a frame range: {.path = "out.reel", .firstFrame = 500, .lastFrame = 502}; the trace then starts
// with every resource alive at frame 500 (descriptor and contents read back from the device), so it
// replays on its own, and finishes by itself after frame 502.
//
// How the work is split (none of it runs on the recording threads):
//  - the render thread, in onFrame, takes a FrameLease on the frame's streams (frame.h) and queues the
//    frame: a lock or two, no copy. At most kMaxObserverRetainedFrames frames wait; when the encoders are
//    that far behind, CaptureOptions::whenBehind decides: the render thread waits for them (the default,
//    counted in CaptureStats::renderWaits), or the frame is dropped from the capture: its resource
//    requests are copied and written (the resources stay right for the frames after it), its buckets
//    are not, and the trace marks it dropped (FrameRecord::dropped; CaptureStats::framesDropped).
//  - at the first frame, and at each key frame (KeyFrameSettings), onFrameStart copies the live
//    resources and reads their contents back.
//  - encode threads (CaptureOptions::encodeThreads) take the queued frames in frame order, each copies
//    its frame's columns out of the leased streams and ends the lease (the renderer has them back before
//    any encoding), then builds the frame's message, several frames at once: a frame encoded against the
//    frames before it in its chunk (CompressionSettings::predictFrames) needs their copied columns, not
//    their messages. A plan made in frame order says where chunks will close, so a frame knows which
//    frames before it it may predict from while they still encode.
//  - the writer thread appends the messages in frame order, whatever order they were encoded in;
//    compression threads (CompressionSettings::threads) compress whole chunks in parallel, and the
//    chunks reach the file in order. Memory between the render thread and the file is bounded: the
//    leased frames, the frames being encoded (maxEncodeFrames, maxEncodeBytes), the open chunk
//    (chunkBytes) and closed chunks waiting for compression (maxPendingBytes, after which the writer
//    thread waits, and the encoders and the render thread behind it).
//
// Several captures may run on one renderer at once, over the same or different frames: each is an
// observer of its own (Renderer::addObserver), gets every frame of its range and writes its own file.
//
// Crash safety: chunks reach the file whole, one write each, and a chunk closes at the latest
// CompressionSettings::chunkMillis (250 ms) after it opened, frames coming or not. The trace is finished (the
// chunk in hand, then the index) by finish(), by the destructor, at exit(), and, with handleSignals, on
// SIGINT, SIGTERM and abort() (see shutdown.cpp). A process killed with SIGKILL leaves a trace that reads up
// to its last whole chunk: every frame older than chunkMillis plus the compression of its chunk.

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reel/runtime/frame.h"
#include "reel/runtime/renderer.h"
#include "reel/runtime/result.h"
#include "reel/runtime/thread_priority.h"
#include "reel/trace/writer.h"

namespace reel::capture {

inline constexpr uint64_t kNextFrame = std::numeric_limits<uint64_t>::max();
inline constexpr uint64_t kNoLastFrame = std::numeric_limits<uint64_t>::max();

// The trace writer's zstd settings and chunk sizes (reel/trace/writer.h says why these defaults).
using CompressionSettings = trace::CompressionSettings;

// CaptureOptions::encodeThreads: min(4, hardware threads).
inline constexpr uint32_t kAutoEncodeThreads = std::numeric_limits<uint32_t>::max();
// CaptureOptions::maxEncodeFrames when it is 0 and there are encode threads.
inline constexpr uint32_t kDefaultMaxEncodeFrames = 256;

// What onFrame does when the encoders are that far behind that every frame it may keep leased waits
// for them (kMaxObserverRetainedFrames, besides the maxEncodeFrames they hold).
enum class WhenBehind : uint8_t {
  Wait,        // the render thread waits for the writer: every frame is captured
  DropFrames,  // the frame's buckets are left out of the trace (its requests are kept), marked dropped
};

// Key frames (format 1.4): a long capture writes every live resource again (create requests and contents
// read back, as at its first frame) at the start of a frame once any limit below is reached since the
// last key frame (or the capture start), so that a replay starts from the nearest key frame instead of
// the capture start (ReplaySession) and a damaged chunk costs only the frames up to the next one. Each
// costs the render thread a readback of every buffer and texture (CaptureStats::keyFrameNs) and the
// trace their compressed bytes; scripts/keyframes.sh measures both. 0 turns a limit off; all 0: none.
// Every 5 s by default: on the cubes sample (docs/measurements/vm-2026-11-25/keyframes.txt) a key frame
// (its textures) weighs as much as a few hundred of its frames, so once a second more than doubled the
// trace, while every 5 s still cut the seek to its 1,000th frame from the capture start's several-fold.
struct KeyFrameSettings {
  uint32_t everyMillis = 5000;  // wall time since the last
  uint64_t everyBytes = 0;      // uncompressed message bytes written since the last
  uint32_t everyFrames = 0;     // frames since the last
};

// Every member has a default, so `{.path = "out.reel", .firstFrame = 5}` leaves the rest as they are.
struct CaptureOptions {
  std::string path = {};
  uint64_t firstFrame = kNextFrame;   // renderer frame number; kNextFrame: the next frame kicked
  uint64_t lastFrame = kNoLastFrame;  // inclusive; kNoLastFrame: until stop(), finish() or destruction
  std::string appName = {};           // empty: taken from /proc/self/cmdline
  std::vector<std::string> appArgs = {};
  CompressionSettings compression = {};
  KeyFrameSettings keyFrames = {};
  WhenBehind whenBehind = WhenBehind::Wait;
  // Threads that encode frame messages, several frames at once (the file gets them in frame order):
  // 0 encodes on the writer thread, one frame at a time.
  uint32_t encodeThreads = kAutoEncodeThreads;
  // Frames between the renderer and the file (taken from the renderer, not yet appended), and their
  // gathered columns' and encoded messages' bytes (one frame always goes): past either, no further
  // frame is taken, and whenBehind decides for the frames the render thread hands over. 0:
  // kDefaultMaxEncodeFrames with encode threads, enough to ride out the writer's slow start and a
  // file's short stalls without holding the app back; one without. The capture start's resources go
  // into the file first, and the frames made meanwhile wait: with 16 a cubes capture on the H100 host
  // filled the queue in its 18th frame (docs/measurements/h100-2026-11-27m-capture-cost), with 64 the
  // render thread waited 3-36 ms at nearly every start of a post (0.42 ms frames) or deferred capture
  // (2.2 ms frames, 58 live resources) on the H200 host (h200-2026-11-28zd, 28ze). Memory
  // stays bounded by maxEncodeBytes, which large frames reach first.
  uint32_t maxEncodeFrames = 0;
  uint64_t maxEncodeBytes = 256ull << 20;
  // The scheduling priority of the capture's threads (encode, writer and compression threads, named
  // reel-cap-encode, reel-cap-writer and reel-compress; it replaces compression.threadPriority).
  // Idle (SCHED_IDLE) runs them only on cores the app's threads leave free: on the H100 host it costs a
  // stress frame a third to a half of what normal priority does (docs/measurements/h100-2026-11-27y-barrier,
  // 27z-priority, 27za-capture-priority, 28z-capture-adaptive). Idle threads get no CPU at all while any
  // other thread, of this process or another, wants every core, so by default they are raised to normal
  // while the capture is behind (normalWhenBehind), before the render thread would wait for them.
  ThreadPriority threadPriority = ThreadPriority::Idle;
  // With threadPriority Idle: the capture's threads run at normal priority while the capture is behind
  // (half of maxEncodeFrames or maxEncodeBytes taken between the renderer and the file, or more than half
  // of the frames it may keep leased not yet gathered), and go back to idle once it has caught up (an
  // eighth of either, at most one leased frame), so that an app that leaves no core free cannot starve
  // them while frames pile up. Checked by the render thread as it hands each frame over; each raise is
  // counted in CaptureStats::priorityRaises. REEL_CAPTURE_PRIORITY=adaptive (the default): Idle with this
  // on; idle: Idle with it off.
  bool normalWhenBehind = true;
  bool handleSignals = true;                       // finish the trace on SIGINT, SIGTERM, abort() and exit()
  std::function<void(std::string_view)> log = {};  // gets a summary line when the trace is finished
  // Called once, on the capture's writer thread, when a write fails and the capture stops: the message
  // names the file and the error ("out.reel: write failed: File too large"). It must not call back
  // into this Capture (error() included) or the renderer.
  std::function<void(std::string_view)> onError = {};
  // Where the trace's bytes go (trace/file_sink.h); empty: the file at `path`. Tests give a file that
  // fails as a disk does.
  trace::FileSinkFactory createFile = {};
};

struct CaptureStats {
  uint64_t firstFrame = 0;
  uint64_t framesCaptured = 0;  // queued by the render thread
  uint64_t framesWritten = 0;
  uint64_t renderWaits = 0;  // onFrame calls that waited for the writer
  // Of those, the ones that found every frame the renderer lets observers keep leased still waiting to
  // be gathered (kMaxObserverRetainedFrames); the others found maxEncodeFrames or maxEncodeBytes taken.
  uint64_t renderWaitsForGathering = 0;
  uint64_t renderWaitNs = 0;
  // onFrame calls that woke a capture thread (a system call on the render thread): with encode threads,
  // only for a frame that the waiting poller would not find soon enough; without, every frame (the
  // writer takes it).
  uint64_t renderWakes = 0;
  // The first and last frame whose onFrame waited (firstWaitFrame UINT64_MAX: none): whether the waits
  // are the capture's start or its steady state.
  uint64_t firstWaitFrame = UINT64_MAX, lastWaitFrame = 0;
  uint64_t framesDropped = 0;   // WhenBehind::DropFrames: frames written without their buckets
  uint64_t priorityRaises = 0;  // CaptureOptions::normalWhenBehind: times the threads went to normal
  uint64_t framesOnDisk = 0;    // frames in chunks written whole: what a SIGKILL now would keep
  uint64_t compressWaits = 0;   // chunk closes that waited for maxPendingBytes (the writer thread)
  uint64_t compressWaitNs = 0;
  uint64_t snapshotNs = 0;    // render-thread time spent reading back resources at the first frame
  uint64_t resources = 0;     // live resources written at the capture start
  uint64_t keyFrames = 0;     // key frames taken after the first frame (KeyFrameSettings)
  uint64_t keyFrameNs = 0;    // render-thread time spent reading them back
  uint64_t packets = 0;       // chain links of every captured bucket
  uint64_t packetBytes = 0;   // keys, payloads and aux data of those packets
  uint64_t messageBytes = 0;  // uncompressed bytes of every message
  uint64_t fileBytes = 0;
  uint64_t chunks = 0;
  uint64_t writerCpuNs = 0;  // CPU time of the writer thread
  uint32_t encodeThreads = 0;
  uint64_t encodeCpuNs = 0;         // CPU time gathering and encoding frames (the encode threads')
  uint64_t compressCpuNs = 0;       // CPU time of the compression threads (TraceFileWriter)
  uint64_t framesReencoded = 0;     // encoded again by the writer thread: the chunk plan guessed wrong
  uint64_t framesEncodedEarly = 0;  // encoded before the frame before them (the file still gets them after)
  uint64_t peakFramesInFlight = 0;  // taken from the renderer and not yet appended, at most
  uint64_t peakBytesInFlight = 0;   // their gathered columns' bytes, at most
  bool finished = false;
  std::string error;  // the first write error; the capture stopped there
};

class Capture final : public FrameObserver {
 public:
  // Opens options.path, starts the writer thread and adds itself to the renderer's observers (beside
  // any others: other captures, a replay's feeder). Call on the renderer's kick thread. Fails when the
  // file cannot be created or the frame range is over.
  static Result<std::unique_ptr<Capture>> start(Renderer& renderer, CaptureOptions options);

  // Kick thread, with the renderer alive: finish(). A Capture must not outlive its renderer.
  ~Capture() override;
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  // Ends the range after the last frame kicked so far (kick thread); returns at once.
  void stop();
  // Kick thread: stop(), leaves the renderer's observers (after the frames kicked so far, so the trace
  // has each of them that its range names), then waits until the trace is complete on disk. Returns the
  // write error, if there was one. A finished capture is never called by the renderer again.
  Result<void> finish();
  bool finished() const;
  // The write error that stopped the capture, once the writer has given up; nullopt while it writes
  // (or wrote everything). Any thread.
  std::optional<std::string> error() const;

  // An annotation for the frame being recorded: written just before that frame. Any thread that
  // records (not during kick()).
  void marker(std::string text);

  CaptureStats stats() const;
  const std::string& path() const;

  // ---- FrameObserver: render thread ----
  void onFrameStart(const FrameStart& start) override;
  void onFrame(const FrameView& frame) override;

  // Ends the capture without touching the renderer (exit, signals): no new frame is taken, the queued
  // ones are written, then the index. Any thread but the render thread; returns when the file is done,
  // or after 10 s when the writer cannot write.
  void finishForShutdown(const char* reason);

  struct State;  // capture.cpp

 private:
  Capture(Renderer& renderer, std::unique_ptr<State> state);
  Renderer& renderer_;
  std::unique_ptr<State> state_;
  ObserverRegistration registration_;  // last: ends (waiting for frames in flight) before state_ goes
};

}  // namespace reel::capture
