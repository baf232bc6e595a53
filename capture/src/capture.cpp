#include "reel/capture/capture.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "frame_ticket.h"
#include "reel/runtime/cpu_time.h"
#include "reel/trace/frame_encoding.h"
#include "reel/trace/writer.h"
#include "shutdown.h"

namespace reel::capture {

using detail::BucketTicket;
using detail::DroppedFrame;
using detail::FrameTicket;
using detail::Snapshot;
using detail::SnapshotResource;

namespace {

// How often a waiting encode thread (the first) looks for frames the render thread handed over without
// waking it (onFrame): at most this late a frame starts encoding, far within a chunk's time limit.
constexpr std::chrono::microseconds kClaimPoll{1000};

uint64_t nanosecondsSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

// The application's name and arguments, when the app did not give them: /proc/self/cmdline holds them
// NUL-separated.
void commandLine(std::string& name, std::vector<std::string>& args) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> parts;
  for (size_t start = 0; start < all.size();) {
    const size_t end = all.find('\0', start);
    parts.push_back(all.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (parts.empty()) return;
  name = parts[0];
  args.assign(parts.begin() + 1, parts.end());
}

// What a snapshot's messages take, bounded from above (the chunk plan counts them).
uint64_t snapshotBytes(const Snapshot& snapshot) {
  uint64_t bytes = 0;
  for (const SnapshotResource& r : snapshot.resources) {
    bytes += r.create.size() + r.code.size() + r.readbackError.size() + 128;
    for (const auto& c : r.contents) bytes += c.bytes.size() + 32;
  }
  return bytes;
}

}  // namespace

struct Capture::State {
  CaptureOptions options;
  std::optional<trace::TraceFileWriter> file;
  uint64_t first = 0;
  int64_t captureTimeNs = 0;

  // Read by the render thread without the lock, to return at once for frames outside the capture.
  std::atomic<uint64_t> endBefore{kNoLastFrame};  // frames in [first, endBefore) are captured
  std::atomic<bool> closed{false};                // no frame is taken any more

  std::mutex mutex;
  std::condition_variable workReady;   // the writer waits for work (a frame encoded, a snapshot, the end)
  std::condition_variable spaceFreed;  // the render thread waits for a free ticket
  std::condition_variable claimable;   // encode threads wait for a frame to take
  // Encode threads waiting on claimable, and whether the first of them (which looks for frames every
  // kClaimPoll while it waits, so that the render thread need not wake it) is one of them.
  uint32_t encodersWaiting = 0;
  bool pollerWaiting = false;
  std::condition_variable planned;  // encode threads wait for the frame before theirs to be planned
  std::condition_variable done;     // finish() and shutdown wait for the writer to end
  // Frames the render thread handed over with their streams leased: at most kMaxObserverRetainedFrames
  // (the renderer's bound on leased frames). A ticket is free again once its frame is gathered.
  std::array<FrameTicket, kMaxObserverRetainedFrames> tickets;
  std::vector<uint32_t> freeTickets;
  std::deque<uint32_t> queued;  // tickets handed over and not yet taken by an encoder, in frame order
  // WhenBehind::DropFrames: frames left out while every ticket was taken, in frame order. Encoders take
  // whichever of queued's front and this one's comes first.
  std::deque<DroppedFrame> dropped;
  std::unique_ptr<Snapshot> snapshot;
  // Key frames taken by the render thread, in frame order; each is written right before its frame.
  std::deque<std::unique_ptr<Snapshot>> keyFrames;
  std::vector<std::pair<uint64_t, std::string>> markers;  // (frame, text) not yet handed over
  std::string endReason;
  std::string priorityError;  // why a thread could not take options.threadPriority (the first one)
  // The capture's own threads (writer, encoders), at options.threadPriority, or Normal while
  // normalWhenBehind has them raised. Changed under the mutex (changePriority).
  ThreadPriorityGroup ownThreads{ThreadPriority::Normal};
  bool shutdown = false;
  bool writerDone = false;
  CaptureStats stats;
  std::thread writer;

  // ---- frames between the renderer and the file ----
  // A frame's columns, gathered out of its streams; `users` counts the jobs (and the planner) that read
  // it: its own job, the one or two after it that predict from it. Under the mutex.
  struct Gathered {
    trace::GatheredFrame frame;
    uint32_t users = 0;
  };
  // One frame on its way: taken (in frame order), gathered, planned (in frame order), encoded (any
  // order, on any encode thread), then appended by the writer thread (in frame order).
  struct Job {
    uint64_t seq = 0;  // the order taken: frame order
    uint64_t frame = 0;
    uint32_t ticket = UINT32_MAX;  // the leased frame it gathers from (none for a dropped frame)
    DroppedFrame droppedFrame;     // a dropped frame's requests and markers
    std::vector<std::string> markers;
    Gathered* gathered = nullptr;
    Gathered* previous = nullptr;        // the frame before, when the planned chunk holds it
    Gathered* beforePrevious = nullptr;  // the one before that, likewise
    trace::FrameEncoder* encoder = nullptr;
    bool chunkStart = false;  // the plan: this frame's messages open a chunk
    bool encoded = false;
    bool abandoned = false;      // the writer stopped first
    bool reencoded = false;      // the plan guessed its chunk wrong: encoded again by the writer thread
    uint64_t reservedBytes = 0;  // counted in bytesInFlight
    std::string error;
  };
  std::deque<std::unique_ptr<Job>> jobs;  // taken and not yet appended, in frame order
  std::vector<std::unique_ptr<Gathered>> gatheredPool;
  std::vector<Gathered*> spareGathered;
  std::vector<std::unique_ptr<trace::FrameEncoder>> encoderPool;
  std::vector<trace::FrameEncoder*> spareEncoders;
  std::vector<std::thread> encodeThreads;
  uint64_t jobsTaken = 0;
  uint64_t jobsPlanned = 0;
  uint64_t bytesInFlight = 0;  // gathered bytes of the jobs not yet appended
  bool stopEncoding = false;
  uint32_t encodeThreadCount = 0;  // set by start(), before any thread or frame reads it
  uint64_t startBytes = 0;         // the capture start's snapshot (snapshotBytes)
  // The planner (in frame order, under the mutex): the chunks the writer will make, guessed before the
  // messages exist so that frames can predict from the frames before them while those still encode.
  // The writer closes a chunk where the plan starts one; where the file closed one the plan did not see
  // (its time limit while no frame came), the writer encodes that frame again without prediction.
  struct Plan {
    uint32_t frames = 0;  // frames in the planned chunk
    uint64_t bytes = 0;   // its messages' bytes, bounded from above
    std::chrono::steady_clock::time_point openedAt{};
    Gathered* last[2] = {nullptr, nullptr};  // the frames just planned, newest first
    std::vector<uint64_t> lastEpoch;         // per bucket index (trace::markRetained)
  } plan;

  void enterThread(const char* name);  // first thing on each of the capture's own threads
  void leaveThread();                  // and the last: its priority is no longer changed
  // normalWhenBehind with threadPriority Idle: the threads' priority follows how far behind it is.
  bool adaptive() const { return options.normalWhenBehind && options.threadPriority == ThreadPriority::Idle; }
  // adaptive(): the priority the frames between the renderer and the file call for, where it is not the
  // current one (under the mutex).
  std::optional<ThreadPriority> priorityFor() const;
  // Moves the capture's threads and its compression threads to `to`; `lock` holds the mutex and is
  // released while the compression threads change.
  void changePriority(std::unique_lock<std::mutex>& lock, ThreadPriority to);
  void writerLoop();
  void encodeLoop(bool polls);
  bool canTake() const;
  uint32_t maxFrames() const;
  bool full() const;  // the render thread waits (or drops the frame)
  Job& take();
  void runJob(std::unique_lock<std::mutex>& lock, Job& job, trace::FrameGatherer& gatherer);
  void planJob(Job& job);
  void unref(Gathered*& gathered);
  void endJob(Job& job);
  void stopEncoders(std::unique_lock<std::mutex>& lock);
  Result<void> appendJob(trace::MessageEncoder& builder, trace::FrameEncoder& again, Job& job);
  Result<void> writeMarkersAndKeyTypes(trace::MessageEncoder& builder, const trace::GatheredFrame* frame,
                                       uint64_t number, const std::vector<std::string>& texts);
  void updateFileStats();
  Result<void> writeHeaderAndResources(trace::MessageEncoder& builder, const trace::GatheredFrame* first);
  Result<void> writeKeyFrames(trace::MessageEncoder& builder, uint64_t frame);
  bool keyFrameDue(uint64_t frame);
  std::string summary() const;

  // Render thread only: where the last snapshot (the first frame's or a key frame) was taken.
  uint64_t keyFrameFrame = 0;
  std::chrono::steady_clock::time_point keyFrameTime{};
  uint64_t keyFrameBytes = 0;  // stats.messageBytes then

  // Writer thread only.
  std::unique_ptr<Snapshot> pendingSnapshot;
  std::vector<std::string> knownKeyTypes;
  uint64_t nextFrame = 0;
};

Result<std::unique_ptr<Capture>> Capture::start(Renderer& renderer, CaptureOptions options) {
  if (options.path.empty()) return fail("capture: no output path");
  auto state = std::make_unique<State>();
  const uint64_t next = renderer.recordingFrame();
  state->first = options.firstFrame == kNextFrame ? next : std::max(options.firstFrame, next);
  if (options.lastFrame != kNoLastFrame) {
    if (options.lastFrame < options.firstFrame && options.firstFrame != kNextFrame) {
      return fail("capture: frame range ", options.firstFrame, "-", options.lastFrame, " is empty");
    }
    if (options.lastFrame < state->first) {
      return fail("capture: frame range ends at ", options.lastFrame, ", but frame ", next,
                  " is the next one the renderer kicks");
    }
    state->endBefore = options.lastFrame + 1;
  }
  if (options.appName.empty()) commandLine(options.appName, options.appArgs);
  options.compression.threadPriority = options.threadPriority;
  auto file = trace::TraceFileWriter::create(options.path, options.compression, options.createFile);
  if (!file) return file.error();
  state->file = std::move(file.value());
  state->captureTimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  state->nextFrame = state->first;
  for (uint32_t i = 0; i < kMaxObserverRetainedFrames; ++i) state->freeTickets.push_back(i);
  // Known before the first frame comes: the bound on frames in flight follows it (maxFrames), and the
  // writer thread, which starts the encode threads, may not have run yet when it does.
  state->encodeThreadCount = options.encodeThreads == kAutoEncodeThreads
                                 ? std::min(4u, std::max(1u, std::thread::hardware_concurrency()))
                                 : options.encodeThreads;
  state->stats.encodeThreads = state->encodeThreadCount;
  state->stats.firstFrame = state->first;
  (void)state->ownThreads.setPriority(options.threadPriority);  // no thread in it yet: nothing to refuse
  state->options = std::move(options);

  std::unique_ptr<Capture> capture(new Capture(renderer, std::move(state)));
  State& s = *capture->state_;
  s.writer = std::thread([&s] {
    s.enterThread("reel-cap-writer");
    s.writerLoop();
    s.leaveThread();
  });
  if (s.options.handleSignals) detail::registerForShutdown(capture.get());
  capture->registration_ = renderer.addObserver(*capture);
  return capture;
}

Capture::Capture(Renderer& renderer, std::unique_ptr<State> state)
    : renderer_(renderer), state_(std::move(state)) {}

Capture::~Capture() {
  State& s = *state_;
  if (s.options.handleSignals) detail::unregisterForShutdown(this);
  {
    std::lock_guard lock(s.mutex);
    if (s.endReason.empty()) s.endReason = "capture destroyed";
  }
  // finish() also ends the registration: no frame in flight calls this observer once it is gone.
  (void)finish();
  s.writer.join();
}

const std::string& Capture::path() const {
  return state_->options.path;
}

void Capture::stop() {
  State& s = *state_;
  const uint64_t kicked = renderer_.recordingFrame();  // frames before this one are kicked
  {
    std::lock_guard lock(s.mutex);
    if (kicked < s.endBefore.load()) {
      s.endBefore.store(kicked);
      if (s.endReason.empty()) s.endReason = "stopped";
    }
  }
  s.workReady.notify_all();
}

Result<void> Capture::finish() {
  stop();
  // Every frame kicked so far reaches onFrame before this returns (ObserverRegistration), so the writer
  // gets every frame of the range that stop() just closed; later frames never call this capture again.
  registration_.reset();
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  // The app now waits for the capture: idle threads need not leave it the cores any more.
  if (s.adaptive() && s.ownThreads.priority() == ThreadPriority::Idle && !s.writerDone) {
    s.changePriority(lock, ThreadPriority::Normal);
  }
  s.done.wait(lock, [&] { return s.writerDone; });
  if (!s.stats.error.empty()) return Error{s.stats.error};
  return {};
}

bool Capture::finished() const {
  std::lock_guard lock(state_->mutex);
  return state_->writerDone;
}

std::optional<std::string> Capture::error() const {
  std::lock_guard lock(state_->mutex);
  if (state_->stats.error.empty()) return std::nullopt;
  return state_->stats.error;
}

void Capture::finishForShutdown(const char* reason) {
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  if (!s.writerDone) {
    if (s.endReason.empty()) s.endReason = reason;
    s.shutdown = true;
    s.closed = true;
  }
  s.workReady.notify_all();
  s.claimable.notify_all();
  s.spaceFreed.notify_all();
  // Bounded: a writer stuck in write() (a FIFO nobody reads, a hung network disk) must not keep a
  // process that is ending from ending.
  s.done.wait_for(lock, std::chrono::seconds(10), [&] { return s.writerDone; });
}

void Capture::marker(std::string text) {
  State& s = *state_;
  const uint64_t frame = renderer_.recordingFrame();
  std::lock_guard lock(s.mutex);
  s.markers.emplace_back(frame, std::move(text));
}

CaptureStats Capture::stats() const {
  std::lock_guard lock(state_->mutex);
  CaptureStats stats = state_->stats;
  // Chunks reach the file on compression threads, between the writer thread's updates.
  const trace::TraceFileWriter& file = *state_->file;
  stats.fileBytes = file.fileBytes();
  stats.chunks = file.chunks();
  stats.framesOnDisk = file.framesOnDisk();
  stats.compressCpuNs = file.compressionThreadsCpuNs();
  return stats;
}

// ---- render thread ----

bool Capture::State::keyFrameDue(uint64_t frame) {
  const KeyFrameSettings& k = options.keyFrames;
  if (k.everyFrames && frame - keyFrameFrame >= k.everyFrames) return true;
  if (k.everyMillis &&
      std::chrono::steady_clock::now() - keyFrameTime >= std::chrono::milliseconds(k.everyMillis)) {
    return true;
  }
  if (k.everyBytes) {
    // What the writer has built so far: it runs a few frames behind, so this lags by as much.
    std::lock_guard lock(mutex);
    return stats.messageBytes - keyFrameBytes >= k.everyBytes;
  }
  return false;
}

void Capture::onFrameStart(const FrameStart& start) {
  State& s = *state_;
  if (start.frame < s.first || s.closed.load(std::memory_order_acquire) ||
      start.frame >= s.endBefore.load(std::memory_order_acquire)) {
    return;
  }
  const bool keyFrame = start.frame != s.first;
  if (keyFrame && !s.keyFrameDue(start.frame)) return;
  // The capture's first frame, or a key frame: what a replay needs to start here is every resource alive
  // now. The create requests come from LiveResources; buffer and texture contents from the device, since
  // the GPU may have written them (render targets, compute outputs, copies).
  const auto began = std::chrono::steady_clock::now();
  auto snapshot = std::make_unique<Snapshot>();
  snapshot->frame = start.frame;
  snapshot->device = start.device->info();
  start.live->forEach([&](const LiveResources::Entry& entry) {
    SnapshotResource& r = snapshot->resources.emplace_back();
    r.createType = entry.createType;
    r.create = entry.payload;
    r.code = entry.aux;
    auto contents = readContents(*start.device, entry.createType, entry.payload);
    if (!contents) {
      r.readbackError = contents.error().message;
      return;
    }
    for (uint32_t mip = 0; mip < contents->size(); ++mip)
      r.contents.push_back({mip, std::move((*contents)[mip])});
  });
  {
    std::lock_guard lock(s.mutex);
    s.keyFrameFrame = start.frame;
    s.keyFrameTime = std::chrono::steady_clock::now();
    s.keyFrameBytes = s.stats.messageBytes;
    if (keyFrame) {
      // Written with its frame (writeKeyFrames), after the frames before it still in the ring.
      ++s.stats.keyFrames;
      s.stats.keyFrameNs += nanosecondsSince(began);
      s.keyFrames.push_back(std::move(snapshot));
      return;
    }
    s.stats.resources = snapshot->resources.size();
    s.startBytes = snapshotBytes(*snapshot);
    s.snapshot = std::move(snapshot);
    s.stats.snapshotNs = nanosecondsSince(began);
  }
  s.workReady.notify_one();
}

void Capture::onFrame(const FrameView& view) {
  State& s = *state_;
  if (view.frame < s.first || view.frame >= s.endBefore.load(std::memory_order_acquire) ||
      s.closed.load(std::memory_order_acquire)) {
    return;
  }
  std::unique_lock lock(s.mutex);
  // normalWhenBehind: a capture about to wait or drop frames gets the cores of normal priority first (an
  // idle thread may get none while the app's threads want them all).
  if (const auto to = s.priorityFor()) s.changePriority(lock, *to);
  if (s.full() && s.options.whenBehind == WhenBehind::DropFrames && !s.closed.load()) {
    // The encoders hold maxEncodeFrames frames and kMaxObserverRetainedFrames more wait for them, and the
    // app asked not to wait: the frame's requests are kept (later frames need the resources they make),
    // its buckets are not.
    DroppedFrame& d = s.dropped.emplace_back();
    d.frame = view.frame;
    d.sortedOrderHash = view.sortedOrderHash;
    if (view.requests && !view.requests->requests.empty()) {
      d.requests = std::make_unique<RequestStream>();
      d.requests->bytes.assign(view.requests->bytes.begin(), view.requests->bytes.end());
      d.requests->requests = view.requests->requests;
    }
    auto it = s.markers.begin();
    for (; it != s.markers.end() && it->first <= view.frame; ++it) d.markers.push_back(std::move(it->second));
    s.markers.erase(s.markers.begin(), it);
    ++s.stats.framesCaptured;
    ++s.stats.framesDropped;
    ++s.stats.renderWakes;
    lock.unlock();
    s.claimable.notify_one();
    s.workReady.notify_one();
    return;
  }
  if (s.full()) {
    // The encoders are that far behind: wait for them rather than drop the frame.
    // Counted as it starts: stats() shows a wait in progress.
    const auto began = std::chrono::steady_clock::now();
    ++s.stats.renderWaits;
    // Which bound held it: the renderer's leased frames, none gathered yet, or the frames on their way
    // to the file.
    if (s.freeTickets.empty()) ++s.stats.renderWaitsForGathering;
    s.stats.firstWaitFrame = std::min(s.stats.firstWaitFrame, view.frame);
    s.stats.lastWaitFrame = std::max(s.stats.lastWaitFrame, view.frame);
    s.spaceFreed.wait(lock, [&] { return !s.full() || s.closed.load(); });
    s.stats.renderWaitNs += nanosecondsSince(began);
  }
  if (s.closed.load()) return;
  const uint32_t slot = s.freeTickets.back();
  s.freeTickets.pop_back();
  FrameTicket& ticket = s.tickets[slot];
  // A lease instead of a copy (FrameLease): an encode thread gathers the streams, then ends the lease.
  ticket.lease = view.lease();
  ticket.frame = view.frame;
  ticket.sortedOrderHash = view.sortedOrderHash;
  ticket.requests = view.requests;
  ticket.buckets.clear();
  for (size_t i = 0; i < view.buckets.size(); ++i) {
    const FrameBucketView& b = view.buckets[i];
    ticket.buckets.push_back(
        BucketTicket{b.bucket, b.stream, b.stream->epoch, static_cast<uint16_t>(i), b.order});
  }
  ticket.markers.clear();
  auto it = s.markers.begin();
  // Markers made before the first captured frame come with it.
  for (; it != s.markers.end() && it->first <= view.frame; ++it)
    ticket.markers.push_back(std::move(it->second));
  s.markers.erase(s.markers.begin(), it);
  s.queued.push_back(slot);
  ++s.stats.framesCaptured;
  if (const auto to = s.priorityFor()) s.changePriority(lock, *to);
  // Waking a thread costs the render thread a system call, and on a virtual machine an interrupt to
  // another core: 2-3 us a frame each on the 2-core VM, where a cubes frame takes 450 us on the H200
  // host. A waiting poller finds a lone frame within kClaimPoll instead; a busy one, or a frame queued
  // behind one the poller has not taken yet, has an encoder woken, so that an app of short frames does
  // not keep more of its few leased frames (kMaxObserverRetainedFrames) than one poll's worth. The
  // writer needs waking only where it takes the frames itself (no encode threads); encoders wake it
  // with each frame encoded.
  const bool wakeEncoder = s.encodersWaiting > 0 && (!s.pollerWaiting || s.queued.size() > 1);
  const bool wakeWriter = s.encodeThreadCount == 0;
  s.stats.renderWakes += wakeEncoder || wakeWriter;
  lock.unlock();
  if (wakeEncoder) s.claimable.notify_one();
  if (wakeWriter) s.workReady.notify_one();
}

// ---- encode threads (and the writer thread, when there are none) ----

uint32_t Capture::State::maxFrames() const {
  if (options.maxEncodeFrames) return options.maxEncodeFrames;
  return encodeThreadCount ? std::max(kDefaultMaxEncodeFrames, encodeThreadCount) : 1;
}

bool Capture::State::full() const {
  // Leased frames are at most kMaxObserverRetainedFrames (the renderer's bound), and the frames between
  // the renderer and the file at most one more than the encoders may hold: more queued frames would not
  // encode sooner, and a stalled file holds the app back as soon as it did with one writer thread.
  return freeTickets.empty() || queued.size() + dropped.size() + jobs.size() > maxFrames();
}

bool Capture::State::canTake() const {
  if (stopEncoding || (queued.empty() && dropped.empty())) return false;
  if (jobs.size() >= maxFrames()) return false;
  // Bounded memory: the gathered columns of the frames in flight (one frame always goes).
  return jobs.empty() || bytesInFlight < options.maxEncodeBytes;
}

Capture::State::Job& Capture::State::take() {
  auto job = std::make_unique<Job>();
  job->seq = ++jobsTaken;
  const bool ticketFirst =
      !queued.empty() && (dropped.empty() || tickets[queued.front()].frame < dropped.front().frame);
  if (ticketFirst) {
    job->ticket = queued.front();
    queued.pop_front();
    FrameTicket& ticket = tickets[job->ticket];
    job->frame = ticket.frame;
    job->markers = std::move(ticket.markers);
    // Counted from now, so that the frames taken while this one is gathered see it (its streams'
    // bytes, about what the gather copies; the gathered bytes replace them).
    for (const BucketTicket& b : ticket.buckets)
      job->reservedBytes += b.stream->packets.used() + b.stream->keys.used();
  } else {
    job->droppedFrame = std::move(dropped.front());
    dropped.pop_front();
    job->frame = job->droppedFrame.frame;
    job->markers = std::move(job->droppedFrame.markers);
  }
  if (spareGathered.empty())
    spareGathered.push_back(gatheredPool.emplace_back(std::make_unique<Gathered>()).get());
  job->gathered = spareGathered.back();
  spareGathered.pop_back();
  job->gathered->users = 1;
  if (spareEncoders.empty()) {
    spareEncoders.push_back(encoderPool.emplace_back(std::make_unique<trace::FrameEncoder>()).get());
  }
  job->encoder = spareEncoders.back();
  spareEncoders.pop_back();
  bytesInFlight += job->reservedBytes;
  jobs.push_back(std::move(job));
  stats.peakFramesInFlight = std::max<uint64_t>(stats.peakFramesInFlight, jobs.size());
  return *jobs.back();
}

void Capture::State::runJob(std::unique_lock<std::mutex>& lock, Job& job, trace::FrameGatherer& gatherer) {
  const uint64_t cpuStart = static_cast<uint64_t>(threadCpuTime().count());
  trace::FrameSource source;
  if (job.ticket != UINT32_MAX) {
    const FrameTicket& t = tickets[job.ticket];
    source = {t.frame, t.sortedOrderHash, t.requests, t.buckets};
  } else {
    source = {job.frame, job.droppedFrame.sortedOrderHash, job.droppedFrame.requests.get(), {}};
    source.dropped = true;
  }
  Gathered& gathered = *job.gathered;
  // The only step that reads the renderer's streams: they go back as soon as it is done.
  lock.unlock();
  auto read = gatherer.gather(source, gathered.frame);
  if (job.ticket != UINT32_MAX) {
    FrameTicket& t = tickets[job.ticket];
    t.lease.reset();
    t.requests = nullptr;
    t.buckets.clear();
  }
  job.droppedFrame.requests.reset();
  lock.lock();
  if (job.ticket != UINT32_MAX) {
    freeTickets.push_back(job.ticket);
    job.ticket = UINT32_MAX;
    spaceFreed.notify_one();
  }
  if (!read) job.error = options.path + ": " + read.error().message;
  bytesInFlight = bytesInFlight - job.reservedBytes + gathered.frame.gatheredBytes;
  job.reservedBytes = gathered.frame.gatheredBytes;
  stats.peakBytesInFlight = std::max(stats.peakBytesInFlight, bytesInFlight);
  // Planned in frame order: each frame's plan follows from the one before.
  planned.wait(lock, [&] { return jobsPlanned + 1 == job.seq || stopEncoding; });
  if (stopEncoding) {
    job.abandoned = true;
    workReady.notify_all();
    return;
  }
  if (job.error.empty()) planJob(job);
  ++jobsPlanned;
  planned.notify_all();
  if (job.error.empty()) {
    const trace::GatheredFrame* previous = job.previous ? &job.previous->frame : nullptr;
    const trace::GatheredFrame* beforePrevious = job.beforePrevious ? &job.beforePrevious->frame : nullptr;
    trace::FrameEncoder& encoder = *job.encoder;
    // Any number of frames encode at once: each reads only its own columns and those of the frames
    // before it, which nobody writes any more.
    lock.unlock();
    encoder.encode(gathered.frame, previous, beforePrevious);
    lock.lock();
  }
  job.encoded = true;
  if (job.error.empty()) {
    // The message waits for the writer as long as the columns do: both count against maxEncodeBytes.
    const uint64_t message = job.encoder->message().size();
    bytesInFlight += message;
    job.reservedBytes += message;
    stats.peakBytesInFlight = std::max(stats.peakBytesInFlight, bytesInFlight);
  }
  // Finished before the frame before it (still in `jobs`, from its front on): the writer waits.
  const uint64_t position = job.seq - jobs.front()->seq;
  if (position > 0 && !jobs[position - 1]->encoded) ++stats.framesEncodedEarly;
  stats.encodeCpuNs += static_cast<uint64_t>(threadCpuTime().count()) - cpuStart;
  workReady.notify_all();
}

void Capture::State::planJob(Job& job) {
  Plan& p = plan;
  const trace::CompressionSettings& c = options.compression;
  const auto now = std::chrono::steady_clock::now();
  // What the writer puts in the chunk with the frame: its markers, its key frame (which starts the chunk)
  // and, with the capture's first frame, the resources alive at the start.
  uint64_t bytes = job.gathered->frame.messageBytesBound();
  for (const std::string& m : job.markers) bytes += m.size() + 128;
  bool keyFrame = false;
  for (const auto& k : keyFrames) {
    if (k->frame != job.frame) continue;
    keyFrame = true;
    bytes += snapshotBytes(*k);
  }
  if (job.seq == 1) bytes += startBytes + (64ull << 10);  // and the key layouts: small
  const bool start = p.frames == 0 || keyFrame || p.frames >= c.maxFramesPerChunk ||
                     p.bytes >= c.chunkBytes ||
                     (c.chunkMillis != 0 && now - p.openedAt >= std::chrono::milliseconds(c.chunkMillis));
  if (start) {
    p.frames = 0;
    p.bytes = 0;
    p.openedAt = now;
  }
  job.chunkStart = start;
  const uint32_t depth = c.predictFrames ? std::min<uint32_t>(p.frames, 2) : 0;
  if (depth >= 1 && p.last[0]) {
    job.previous = p.last[0];
    ++job.previous->users;
    if (depth >= 2 && p.last[1]) {
      job.beforePrevious = p.last[1];
      ++job.beforePrevious->users;
    }
  }
  trace::markRetained(job.gathered->frame, p.lastEpoch);
  unref(p.last[1]);
  p.last[1] = p.last[0];
  p.last[0] = job.gathered;
  ++job.gathered->users;
  ++p.frames;
  p.bytes += bytes;
}

void Capture::State::unref(Gathered*& gathered) {
  if (gathered && --gathered->users == 0) spareGathered.push_back(gathered);
  gathered = nullptr;
}

void Capture::State::endJob(Job& job) {
  bytesInFlight -= job.reservedBytes;
  unref(job.gathered);
  unref(job.previous);
  unref(job.beforePrevious);
  if (job.encoder) spareEncoders.push_back(job.encoder);
  job.encoder = nullptr;
  if (job.ticket != UINT32_MAX) {
    FrameTicket& t = tickets[job.ticket];
    t.lease.reset();
    t.requests = nullptr;
    t.buckets.clear();
    freeTickets.push_back(job.ticket);
    job.ticket = UINT32_MAX;
  }
  spaceFreed.notify_all();
  claimable.notify_all();
}

void Capture::State::encodeLoop(bool polls) {
  trace::FrameGatherer gatherer;
  std::unique_lock lock(mutex);
  const auto workOrStop = [&] { return stopEncoding || canTake(); };
  for (;;) {
    if (!workOrStop()) {
      ++encodersWaiting;
      if (polls) {
        pollerWaiting = true;
        while (!claimable.wait_for(lock, kClaimPoll, workOrStop)) {
        }
        pollerWaiting = false;
      } else {
        claimable.wait(lock, workOrStop);
      }
      --encodersWaiting;
    }
    if (stopEncoding) return;
    runJob(lock, take(), gatherer);
  }
}

void Capture::State::stopEncoders(std::unique_lock<std::mutex>& lock) {
  stopEncoding = true;
  claimable.notify_all();
  planned.notify_all();
  lock.unlock();
  for (std::thread& t : encodeThreads) t.join();
  encodeThreads.clear();
  lock.lock();
}

void Capture::State::enterThread(const char* name) {
  nameThisThread(name);
  detail::markCaptureThread();
  // At the priority the capture's threads have now (normalWhenBehind may have raised them).
  if (auto r = ownThreads.enter(); !r) {
    std::lock_guard lock(mutex);
    if (priorityError.empty()) priorityError = r.error().message;
  }
}

void Capture::State::leaveThread() {
  ownThreads.leave();
}

std::optional<ThreadPriority> Capture::State::priorityFor() const {
  if (!adaptive()) return std::nullopt;
  // Behind: half of any bound taken (the frames and bytes between the renderer and the file, the leased
  // frames not yet gathered), well before the render thread would wait. Caught up: far below them all,
  // so that a capture near one bound does not switch back and forth.
  const size_t waiting = queued.size() + dropped.size() + jobs.size();
  const size_t leased = kMaxObserverRetainedFrames - freeTickets.size();
  const ThreadPriority currentPriority = ownThreads.priority();
  if (currentPriority != ThreadPriority::Normal &&
      (waiting > maxFrames() / 2 || bytesInFlight > options.maxEncodeBytes / 2 ||
       leased > kMaxObserverRetainedFrames / 2 || full())) {
    return ThreadPriority::Normal;
  }
  if (currentPriority == ThreadPriority::Normal && waiting <= maxFrames() / 8 &&
      bytesInFlight <= options.maxEncodeBytes / 8 && leased <= 1) {
    return ThreadPriority::Idle;
  }
  return std::nullopt;
}

void Capture::State::changePriority(std::unique_lock<std::mutex>& lock, ThreadPriority to) {
  if (to == ThreadPriority::Normal) ++stats.priorityRaises;
  // Under the mutex, so that the render thread and finish() decide from the priority set here. Best
  // effort, as at the threads' start: the first refusal is reported in the summary.
  std::string failed;
  if (auto r = ownThreads.setPriority(to); !r) failed = r.error().message;
  lock.unlock();
  if (auto r = file->setThreadPriority(to); !r && failed.empty()) failed = r.error().message;
  lock.lock();
  if (!failed.empty() && priorityError.empty()) priorityError = failed;
}

// ---- writer thread ----

Result<void> Capture::State::writeHeaderAndResources(trace::MessageEncoder& builder,
                                                     const trace::GatheredFrame* firstFrame) {
  if (!file->headerWritten()) {
    trace::HeaderInfo info;
    info.appName = options.appName;
    info.appArgs = options.appArgs;
    if (pendingSnapshot) info.device = pendingSnapshot->device;
    info.captureTimeNs = captureTimeNs;
    info.firstFrame = first;
    if (firstFrame) {
      for (const trace::GatheredBucket& b : firstFrame->activeBuckets()) {
        const std::string keyType = b.bucket->keyTypeName();
        if (std::find(knownKeyTypes.begin(), knownKeyTypes.end(), keyType) != knownKeyTypes.end()) continue;
        knownKeyTypes.push_back(keyType);
        info.keyTypes.push_back(b.bucket);
      }
    }
    if (auto r = file->writeHeader(builder.header(info)); !r) return r;
  }
  if (pendingSnapshot) {
    const Snapshot& resources = *pendingSnapshot;
    size_t next = 0;
    do {
      const auto message = builder.resources(resources, next);
      if (auto r = file->append(message, trace::MessageKind::Resources, resources.frame); !r) return r;
    } while (next < resources.resources.size());
    pendingSnapshot.reset();
  }
  return {};
}

Result<void> Capture::State::writeMarkersAndKeyTypes(trace::MessageEncoder& builder,
                                                     const trace::GatheredFrame* frame, uint64_t number,
                                                     const std::vector<std::string>& texts) {
  if (auto r = writeHeaderAndResources(builder, frame); !r) return r;
  std::vector<const CommandBucketBase*> newKeyTypes;
  if (frame) {
    for (const trace::GatheredBucket& b : frame->activeBuckets()) {
      const std::string keyType = b.bucket->keyTypeName();
      if (std::find(knownKeyTypes.begin(), knownKeyTypes.end(), keyType) != knownKeyTypes.end()) continue;
      knownKeyTypes.push_back(keyType);
      newKeyTypes.push_back(b.bucket);
    }
  }
  if (!newKeyTypes.empty()) {
    if (auto r = file->append(builder.keyLayouts(newKeyTypes), trace::MessageKind::KeyLayouts, number); !r) {
      return r;
    }
  }
  for (const std::string& text : texts) {
    if (auto r = file->append(builder.marker(number, text), trace::MessageKind::Marker, number); !r) return r;
  }
  return writeKeyFrames(builder, number);
}

Result<void> Capture::State::writeKeyFrames(trace::MessageEncoder& builder, uint64_t frame) {
  for (;;) {
    std::unique_ptr<Snapshot> key;
    {
      std::lock_guard lock(mutex);
      if (keyFrames.empty() || keyFrames.front()->frame > frame) return {};
      key = std::move(keyFrames.front());
      keyFrames.pop_front();
    }
    // Right before the frame's own message, so that the reader finds them together (TraceReader::keyFrames).
    if (key->frame != frame) continue;
    if (auto r = file->closeChunk(); !r) return r;
    size_t next = 0;
    do {
      const auto message = builder.keyFrame(*key, next);
      if (auto r = file->append(message, trace::MessageKind::KeyFrame, key->frame); !r) return r;
    } while (next < key->resources.size());
  }
}

Result<void> Capture::State::appendJob(trace::MessageEncoder& builder, trace::FrameEncoder& again, Job& job) {
  if (!job.error.empty()) return Error{job.error};
  const trace::GatheredFrame& frame = job.gathered->frame;
  if (job.chunkStart) {
    if (auto r = file->closeChunk(); !r) return r;
  }
  if (auto r = writeMarkersAndKeyTypes(builder, &frame, job.frame, job.markers); !r) return r;
  std::span<const uint8_t> message = job.encoder->message();
  // A frame decodes only after the frames it predicts from, in its own chunk: the plan guessed the chunk;
  // the file says what it is. Where the file closed a chunk the plan did not foresee (its time limit while
  // no frame came, the 2 GiB limit of one chunk), the frame is encoded again with what its chunk holds.
  const uint32_t allowed = options.compression.predictFrames && file->continuesChunk(message.size())
                               ? std::min<uint32_t>(file->chunkFrames(), 2)
                               : 0;
  if (job.encoder->depthUsed() > allowed) {
    const trace::GatheredFrame* previous = allowed >= 1 && job.previous ? &job.previous->frame : nullptr;
    const trace::GatheredFrame* beforePrevious =
        allowed >= 2 && job.beforePrevious ? &job.beforePrevious->frame : nullptr;
    message = again.encode(frame, previous, beforePrevious);
    job.reencoded = true;
  }
  if (auto r = file->append(message, trace::MessageKind::Frame, job.frame); !r) return r;
  return file->frameDone();
}

void Capture::State::updateFileStats() {
  stats.messageBytes = file->messageBytes();
  stats.fileBytes = file->fileBytes();
  stats.chunks = file->chunks();
  stats.framesOnDisk = file->framesOnDisk();
  stats.compressWaits = file->compressWaits();
  stats.compressWaitNs = file->compressWaitNs();
  stats.compressCpuNs = file->compressionThreadsCpuNs();
  stats.writerCpuNs = static_cast<uint64_t>(threadCpuTime().count());
}

std::string Capture::State::summary() const {
  char line[1024];
  char frames[64] = "no frames";
  if (stats.framesWritten > 0) {
    std::snprintf(frames, sizeof frames, "frames %llu-%llu", static_cast<unsigned long long>(first),
                  static_cast<unsigned long long>(nextFrame - 1));
  }
  const double ratio = stats.fileBytes ? double(stats.messageBytes) / double(stats.fileBytes) : 0.0;
  char threads[32] = "the writer thread";
  if (stats.encodeThreads > 0) std::snprintf(threads, sizeof threads, "%u threads", stats.encodeThreads);
  std::string priority = std::string(threadPriorityName(options.threadPriority)) + " priority";
  if (adaptive()) {
    priority = "idle priority, normal while behind (" + std::to_string(stats.priorityRaises) + " times)";
  }
  if (!priorityError.empty()) priority = "normal priority (" + priority + " refused: " + priorityError + ")";
  char waitFrames[96] = "";
  if (stats.renderWaits > 0) {
    std::snprintf(waitFrames, sizeof waitFrames, ", frames %llu-%llu, %llu for gathering",
                  static_cast<unsigned long long>(stats.firstWaitFrame),
                  static_cast<unsigned long long>(stats.lastWaitFrame),
                  static_cast<unsigned long long>(stats.renderWaitsForGathering));
  }
  auto perFrame = [&](uint64_t ns) {
    return stats.framesWritten ? double(ns) / 1e6 / double(stats.framesWritten) : 0.0;
  };
  // Every capture thread's CPU: the writer's own holds the encoding where there are no encode threads.
  const uint64_t allThreadsNs =
      stats.writerCpuNs + (stats.encodeThreads > 0 ? stats.encodeCpuNs : 0) + stats.compressCpuNs;
  if (!stats.error.empty()) {
    std::snprintf(line, sizeof line, "reel capture: %s: failed after %llu frames: %s", options.path.c_str(),
                  static_cast<unsigned long long>(stats.framesWritten), stats.error.c_str());
  } else {
    std::snprintf(
        line, sizeof line,
        "reel capture: %s (%llu) to %s: %.1f MiB in %.1f MiB (%.1fx), %llu resources, "
        "%llu key frames (%.2f ms), render thread waited %llu times (%.2f ms%s), %llu frames dropped, "
        "encoded on %s at %s (%.2f ms CPU a frame; %.2f ms with compressing and writing) [%s]",
        frames, static_cast<unsigned long long>(stats.framesWritten), options.path.c_str(),
        double(stats.messageBytes) / 1048576.0, double(stats.fileBytes) / 1048576.0, ratio,
        static_cast<unsigned long long>(stats.resources), static_cast<unsigned long long>(stats.keyFrames),
        double(stats.keyFrameNs) / 1e6, static_cast<unsigned long long>(stats.renderWaits),
        double(stats.renderWaitNs) / 1e6, waitFrames, static_cast<unsigned long long>(stats.framesDropped),
        threads, priority.c_str(), perFrame(stats.encodeCpuNs), perFrame(allThreadsNs), endReason.c_str());
  }
  return line;
}

void Capture::State::writerLoop() {
  trace::MessageEncoder builder;
  trace::FrameEncoder again;      // frames whose chunk the plan guessed wrong
  trace::FrameGatherer gatherer;  // no encode threads: this thread takes the frames itself
  Result<void> status;
  {
    std::lock_guard lock(mutex);
    for (uint32_t i = 0; i < encodeThreadCount; ++i) {
      encodeThreads.emplace_back([this, polls = i == 0] {
        enterThread("reel-cap-encode");
        encodeLoop(polls);
        leaveThread();
      });
    }
  }
  for (;;) {
    std::unique_lock lock(mutex);
    const auto frontEncoded = [&] {
      return !jobs.empty() && (jobs.front()->encoded || jobs.front()->abandoned);
    };
    const auto ready = [&] {
      return snapshot || frontEncoded() || (encodeThreadCount == 0 && canTake()) ||
             (jobs.empty() && queued.empty() && dropped.empty() &&
              (nextFrame >= endBefore.load() || shutdown));
    };
    // An open chunk closes at its deadline even when no frame comes: a killed app loses at most that.
    if (const auto deadline = file->chunkDeadline()) {
      if (!workReady.wait_until(lock, *deadline, ready)) {
        lock.unlock();
        status = file->tick();
        if (!status) break;
        lock.lock();
        updateFileStats();
        continue;
      }
    } else {
      workReady.wait(lock, ready);
    }
    if (snapshot) {
      pendingSnapshot = std::move(snapshot);
      continue;
    }
    // Frames in frame order, whatever order their encoders finish in.
    if (frontEncoded()) {
      Job& job = *jobs.front();
      lock.unlock();
      nextFrame = job.frame + 1;
      status = appendJob(builder, again, job);
      lock.lock();
      if (status) {
        ++stats.framesWritten;
        stats.packets += job.gathered->frame.counts.packets;
        stats.packetBytes += job.gathered->frame.counts.packetBytes;
        stats.framesReencoded += job.reencoded;
        updateFileStats();
      }
      endJob(job);
      jobs.pop_front();
      if (!status) break;
      continue;
    }
    if (encodeThreadCount == 0 && canTake()) {
      runJob(lock, take(), gatherer);
      continue;
    }
    break;  // every frame of the range is written, or a shutdown asked for the end
  }

  // Finish: the frames queued so far are written (or, after an error, given back), then the end.
  {
    std::unique_lock lock(mutex);
    stopEncoders(lock);
    while (!jobs.empty()) {
      endJob(*jobs.front());
      jobs.pop_front();
    }
  }
  if (status) status = writeHeaderAndResources(builder, nullptr);
  if (status) {
    std::unique_lock lock(mutex);
    const trace::CaptureEndInfo end{stats.framesWritten, stats.renderWaits, stats.renderWaitNs,
                                    endReason.empty() ? "frame range complete" : endReason};
    if (endReason.empty()) endReason = end.reason;
    lock.unlock();
    status = file->append(builder.captureEnd(end), trace::MessageKind::CaptureEnd, nextFrame);
  }
  if (status) status = file->finish();
  std::unique_lock lock(mutex);
  closed = true;
  if (!status) {
    stats.error = status.error().message;
    // The render thread must not wait for a writer that stopped: give every queued frame back.
    for (const uint32_t slot : queued) {
      FrameTicket& t = tickets[slot];
      t.lease.reset();
      t.requests = nullptr;
      t.buckets.clear();
      freeTickets.push_back(slot);
    }
    queued.clear();
  }
  stats.finished = true;
  dropped.clear();
  updateFileStats();
  const std::string line = summary();
  const std::string error = stats.error;
  lock.unlock();
  spaceFreed.notify_all();
  if (!error.empty() && options.onError) options.onError(error);
  // Before writerDone: a process that exits once finishForShutdown returns still prints the line.
  if (options.log) options.log(line);
  lock.lock();
  writerDone = true;
  lock.unlock();
  done.notify_all();
}

}  // namespace reel::capture
