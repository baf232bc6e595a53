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

#include "frame_ticket.h"
#include "reel/runtime/cpu_time.h"
#include "reel/trace/writer.h"
#include "shutdown.h"

namespace reel::capture {

using detail::BucketTicket;
using detail::DroppedFrame;
using detail::FrameTicket;
using detail::Snapshot;
using detail::SnapshotResource;

namespace {

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
  std::condition_variable workReady;   // the writer waits for work
  std::condition_variable spaceFreed;  // the render thread waits for a free ring slot
  std::condition_variable done;        // finish() and shutdown wait for the writer to end
  std::array<FrameTicket, kMaxObserverRetainedFrames> ring;
  uint32_t ringHead = 0;
  uint32_t ringCount = 0;
  // WhenBehind::DropFrames: frames left out while the ring was full, in frame order. The writer takes
  // whichever of the ring's head and this one's comes first.
  std::deque<DroppedFrame> dropped;
  std::unique_ptr<Snapshot> snapshot;
  // Key frames taken by the render thread, in frame order; each is written right before its frame.
  std::deque<std::unique_ptr<Snapshot>> keyFrames;
  std::vector<std::pair<uint64_t, std::string>> markers;  // (frame, text) not yet handed over
  std::string endReason;
  bool shutdown = false;
  bool writerDone = false;
  CaptureStats stats;
  std::thread writer;

  void writerLoop();
  Result<void> writeFrame(trace::MessageEncoder& builder, FrameTicket& ticket);
  Result<void> writeDropped(trace::MessageEncoder& builder, DroppedFrame& frame);
  Result<void> writeMarkersAndKeyTypes(trace::MessageEncoder& builder, const FrameTicket* ticket,
                                       uint64_t frame, const std::vector<std::string>& texts);
  Result<void> appendFrame(trace::MessageEncoder& builder, const trace::FrameSource& source,
                           trace::FrameCounts& counts, const std::function<void()>& release);
  void updateFileStats();
  Result<void> writeHeaderAndResources(trace::MessageEncoder& builder, const FrameTicket* firstTicket);
  Result<void> writeKeyFrames(trace::MessageEncoder& builder, uint64_t frame);
  bool keyFrameDue(uint64_t frame);
  void releaseStreams(FrameTicket& ticket);
  void popTicket();
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
  auto file = trace::TraceFileWriter::create(options.path, options.compression, options.createFile);
  if (!file) return file.error();
  state->file = std::move(file.value());
  state->captureTimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  state->nextFrame = state->first;
  state->stats.firstFrame = state->first;
  state->options = std::move(options);

  std::unique_ptr<Capture> capture(new Capture(renderer, std::move(state)));
  State& s = *capture->state_;
  s.writer = std::thread([&s] {
    detail::markCaptureThread();
    s.writerLoop();
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
  if (s.ringCount == s.ring.size() && s.options.whenBehind == WhenBehind::DropFrames && !s.closed.load()) {
    // The writer is kMaxObserverRetainedFrames frames behind, and the app asked not to wait: the frame's
    // requests are kept (later frames need the resources they make), its buckets are not.
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
    lock.unlock();
    s.workReady.notify_one();
    return;
  }
  if (s.ringCount == s.ring.size()) {
    // The writer is kMaxObserverRetainedFrames frames behind: wait for it rather than drop the frame.
    const auto began = std::chrono::steady_clock::now();
    s.spaceFreed.wait(lock, [&] { return s.ringCount < s.ring.size() || s.closed.load(); });
    ++s.stats.renderWaits;
    s.stats.renderWaitNs += nanosecondsSince(began);
  }
  if (s.closed.load()) return;
  FrameTicket& ticket = s.ring[(s.ringHead + s.ringCount) % s.ring.size()];
  // A lease instead of a copy (FrameLease): the writer reads the streams, then ends the lease.
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
  ++s.ringCount;
  ++s.stats.framesCaptured;
  lock.unlock();
  s.workReady.notify_one();
}

// ---- writer thread ----

void Capture::State::releaseStreams(FrameTicket& ticket) {
  ticket.lease.reset();
  ticket.requests = nullptr;
  ticket.buckets.clear();
}

void Capture::State::popTicket() {
  std::lock_guard lock(mutex);
  ringHead = (ringHead + 1) % ring.size();
  --ringCount;
  spaceFreed.notify_one();
}

Result<void> Capture::State::writeHeaderAndResources(trace::MessageEncoder& builder,
                                                     const FrameTicket* firstTicket) {
  if (!file->headerWritten()) {
    trace::HeaderInfo info;
    info.appName = options.appName;
    info.appArgs = options.appArgs;
    if (pendingSnapshot) info.device = pendingSnapshot->device;
    info.captureTimeNs = captureTimeNs;
    info.firstFrame = first;
    if (firstTicket) {
      for (const BucketTicket& b : firstTicket->buckets) {
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
                                                     const FrameTicket* ticket, uint64_t frame,
                                                     const std::vector<std::string>& texts) {
  if (auto r = writeHeaderAndResources(builder, ticket); !r) return r;
  std::vector<const CommandBucketBase*> newKeyTypes;
  if (ticket) {
    for (const BucketTicket& b : ticket->buckets) {
      const std::string keyType = b.bucket->keyTypeName();
      if (std::find(knownKeyTypes.begin(), knownKeyTypes.end(), keyType) != knownKeyTypes.end()) continue;
      knownKeyTypes.push_back(keyType);
      newKeyTypes.push_back(b.bucket);
    }
  }
  if (!newKeyTypes.empty()) {
    if (auto r = file->append(builder.keyLayouts(newKeyTypes), trace::MessageKind::KeyLayouts, frame); !r) {
      return r;
    }
  }
  for (const std::string& text : texts) {
    if (auto r = file->append(builder.marker(frame, text), trace::MessageKind::Marker, frame); !r) return r;
  }
  return writeKeyFrames(builder, frame);
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

Result<void> Capture::State::appendFrame(trace::MessageEncoder& builder, const trace::FrameSource& source,
                                         trace::FrameCounts& counts, const std::function<void()>& release) {
  trace::FrameSource s = source;
  // A frame may encode what did not change since the frame before it only within one chunk: chunks
  // decode on their own.
  s.predict = options.compression.predictFrames && file->chunkFrames() > 0;
  auto message = builder.frame(s, counts);
  if (message && s.predict && !file->continuesChunk(message.value().size())) {
    // This message would open a new chunk (the 2 GiB limit of one chunk): encode it whole instead.
    s.predict = false;
    counts = {};
    message = builder.frame(s, counts);
  }
  // The message is built: the render thread may have the streams back before compression starts.
  release();
  if (!message) return fail(options.path, ": ", message.error().message);
  if (auto r = file->append(message.value(), trace::MessageKind::Frame, source.frame); !r) return r;
  if (auto r = file->frameDone(); !r) return r;
  return file->tick();
}

void Capture::State::updateFileStats() {
  stats.messageBytes = file->messageBytes();
  stats.fileBytes = file->fileBytes();
  stats.chunks = file->chunks();
  stats.framesOnDisk = file->framesOnDisk();
  stats.compressWaits = file->compressWaits();
  stats.compressWaitNs = file->compressWaitNs();
  stats.writerCpuNs = static_cast<uint64_t>(threadCpuTime().count());
}

Result<void> Capture::State::writeFrame(trace::MessageEncoder& builder, FrameTicket& ticket) {
  if (auto r = writeMarkersAndKeyTypes(builder, &ticket, ticket.frame, ticket.markers); !r) return r;
  trace::FrameCounts counts;
  auto r = appendFrame(builder, {ticket.frame, ticket.sortedOrderHash, ticket.requests, ticket.buckets},
                       counts, [&] {
                         releaseStreams(ticket);
                         popTicket();
                       });
  if (!r) return r;
  std::lock_guard lock(mutex);
  ++stats.framesWritten;
  stats.packets += counts.packets;
  stats.packetBytes += counts.packetBytes;
  updateFileStats();
  return {};
}

Result<void> Capture::State::writeDropped(trace::MessageEncoder& builder, DroppedFrame& d) {
  if (auto r = writeMarkersAndKeyTypes(builder, nullptr, d.frame, d.markers); !r) return r;
  trace::FrameCounts counts;
  trace::FrameSource source{d.frame, d.sortedOrderHash, d.requests.get(), {}};
  source.dropped = true;
  auto r = appendFrame(builder, source, counts, [] {});
  {
    std::lock_guard lock(mutex);
    dropped.pop_front();
    if (r) {
      ++stats.framesWritten;
      updateFileStats();
    }
  }
  return r;
}

std::string Capture::State::summary() const {
  char line[512];
  char frames[64] = "no frames";
  if (stats.framesWritten > 0) {
    std::snprintf(frames, sizeof frames, "frames %llu-%llu", static_cast<unsigned long long>(first),
                  static_cast<unsigned long long>(nextFrame - 1));
  }
  const double ratio = stats.fileBytes ? double(stats.messageBytes) / double(stats.fileBytes) : 0.0;
  if (!stats.error.empty()) {
    std::snprintf(line, sizeof line, "reel capture: %s: failed after %llu frames: %s", options.path.c_str(),
                  static_cast<unsigned long long>(stats.framesWritten), stats.error.c_str());
  } else {
    std::snprintf(
        line, sizeof line,
        "reel capture: %s (%llu) to %s: %.1f MiB in %.1f MiB (%.1fx), %llu resources, "
        "%llu key frames (%.2f ms), render thread waited %llu times (%.2f ms), %llu frames dropped [%s]",
        frames, static_cast<unsigned long long>(stats.framesWritten), options.path.c_str(),
        double(stats.messageBytes) / 1048576.0, double(stats.fileBytes) / 1048576.0, ratio,
        static_cast<unsigned long long>(stats.resources), static_cast<unsigned long long>(stats.keyFrames),
        double(stats.keyFrameNs) / 1e6, static_cast<unsigned long long>(stats.renderWaits),
        double(stats.renderWaitNs) / 1e6, static_cast<unsigned long long>(stats.framesDropped),
        endReason.c_str());
  }
  return line;
}

void Capture::State::writerLoop() {
  trace::MessageEncoder builder;
  Result<void> status;
  for (;;) {
    std::unique_lock lock(mutex);
    const auto ready = [&] {
      return snapshot || ringCount > 0 || !dropped.empty() || nextFrame >= endBefore.load() || shutdown;
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
    // Frames in frame order, whether queued with their streams or dropped.
    const bool ringFirst = ringCount > 0 && (dropped.empty() || ring[ringHead].frame < dropped.front().frame);
    if (ringFirst) {
      FrameTicket& ticket = ring[ringHead];
      lock.unlock();
      nextFrame = ticket.frame + 1;
      status = writeFrame(builder, ticket);
      if (!status) break;
      continue;
    }
    if (!dropped.empty()) {
      DroppedFrame& d = dropped.front();
      lock.unlock();
      nextFrame = d.frame + 1;
      status = writeDropped(builder, d);
      if (!status) break;
      continue;
    }
    break;  // every frame of the range is written, or a shutdown asked for the end
  }

  // Finish: the frames queued so far are written (or, after an error, given back), then the end.
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
    while (ringCount > 0) {
      releaseStreams(ring[ringHead]);
      ringHead = (ringHead + 1) % ring.size();
      --ringCount;
    }
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
