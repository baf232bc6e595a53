#pragma once
// Writing a .reel trace, in two steps that the capture tap (reel::capture) runs on its writer thread:
//  - MessageEncoder builds each message (trace/schema/trace.fbs) from what the runtime recorded: the
//    header (the command table, key layouts, app and device), the resources alive at the capture start,
//    a frame's resource requests and buckets (as byte-shuffled columns), markers, the capture's end.
//  - TraceFileWriter frames the messages in the container: the header in a zstd frame of its own, the
//    others compressed into chunks of whole frames as they come, then the index and the footer.
// The encoder reads the streams a frame recorded while they are held (FrameLease), so that they can be
// given back before compression starts.
//
// Usage (given const reel::FrameView& frame):
//   auto file = reel::trace::TraceFileWriter::create("out.reel", {});
//   if (!file) {
//     std::puts(file.error().message.c_str());  // "cannot create trace out.reel: Permission denied"
//     return;
//   }
//   reel::trace::MessageEncoder encoder;
//   reel::trace::HeaderInfo header;
//   header.appName = "app";
//   header.firstFrame = frame.frame;
//   if (auto ok = file->writeHeader(encoder.header(header)); !ok) std::puts(ok.error().message.c_str());
//   std::vector<reel::trace::BucketSource> buckets;
//   for (size_t i = 0; i < frame.buckets.size(); ++i) {
//     const reel::FrameBucketView& b = frame.buckets[i];
//     buckets.push_back({b.bucket, b.stream, b.stream->epoch, static_cast<uint16_t>(i)});
//   }
//   reel::trace::FrameCounts counts;
//   auto message = encoder.frame({frame.frame, frame.sortedOrderHash, frame.requests, buckets}, counts);
//   if (message) (void)file->append(*message, reel::trace::MessageKind::Frame, frame.frame);
//   (void)file->frameDone();
//   if (auto done = file->finish(); !done) std::puts(done.error().message.c_str());
//
// Threading: neither class is thread-safe; each is used by one thread at a time (TraceFileWriter's
// counters excepted, and its compression threads are its own).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/commands.h"
#include "reel/runtime/device.h"
#include "reel/runtime/frame.h"
#include "reel/runtime/resource_context.h"
#include "reel/runtime/result.h"
#include "reel/runtime/thread_priority.h"
#include "reel/trace/file_sink.h"
#include "reel/trace/message_kind.h"

namespace reel::trace {

// The zstd settings and chunk sizes of a trace (scripts/codec-benchmark.sh and the README for the
// measurements): a window larger than a chunk, so that each frame of a chunk is matched against the
// frames before it, and chunks of a few frames, so that any frame is one chunk decompression away. Every
// zstd frame carries its content checksum, whatever these say.
//
// Chunks are compressed on worker threads (`threads`), several at once, and written in file order as
// they finish: one zstd stream per chunk keeps every chunk independent, so chunks parallelise without
// costing ratio (zstd's own workers, `zstdWorkers`, split one chunk into jobs instead, and were measured
// slower: docs/measurements, scripts/capture-benchmarks.sh). Closed chunks wait for a worker in memory
// bounded by maxPendingBytes; past that, closing the next chunk waits.
//
// A chunk also closes `chunkMillis` after its first message (TraceFileWriter::tick): what a killed
// process loses is at most that much time of frames, whatever their size.
struct CompressionSettings {
  // A predicted frame (format 1.3) compresses mostly against the frames before it in its chunk, megabytes
  // back. For large frames (stress, 8.4 MB) level 1's own match table (2^13 entries) loses much of that,
  // and with 2^17 it finds it as level 3 does, faster (1.1x level 3's speed on the 2-core VM, 1.3x on the
  // H100 host, the file 1.5% larger; with the level's own table it is 3.7x larger on the VM). Small frames
  // (cubes, 0.24 MB) the level's own table finds as well, for 0.8% more bytes: 1.28x as fast as 2^17 on
  // the VM, and on the H100 host, where one thread's speed moves by 10-20% from call to call, 1.25x and
  // 0.94x in two calls, a cubes capture's threads 15% less CPU (docs/measurements/vm-2026-11-28-codec,
  // h100-2026-11-28a-codec, 28k-codec, 28k-capture-cost).
  // Long-distance matching adds nothing the window does not find.
  int level = 1;
  bool longDistanceMatching = false;
  int windowLog = 26;  // 64 MiB; `zstd -dc` accepts up to 27 without --long
  // log2 of the match table's entries; 0: the level's own; kAutoHashLog: chosen chunk by chunk, 2^17
  // (kLargeFrameHashLog) where the chunk's frames average kLargeFrameBytes or more or the chunk holds
  // kLargeChunkBytes or more (the resources alive at a capture's start: textures lose their repeats in
  // the level's own table, which made a 300-frame `post` capture's first chunk 64 KB larger, 38 B/draw
  // of its frames against 26), the level's own below.
  int hashLog = kAutoHashLog;
  static constexpr int kAutoHashLog = -1;
  static constexpr int kLargeFrameHashLog = 17;
  static constexpr uint64_t kLargeFrameBytes = 1ull << 20;
  static constexpr uint64_t kLargeChunkBytes = 8ull << 20;
  // A chunk's first frame is written whole (nothing before it in the chunk to predict from), and such
  // a frame costs the most to compress and to store: a large frame wants chunks of many frames (stress,
  // 8.4 MB a frame: at 32 MiB 4 frames a chunk, compression 6.3 ms and 1.22 MB of file a frame; at 128
  // MiB 13 frames, 3.4 ms and 0.53 MB; docs/measurements/vm-2026-11-28-codec).
  // The frame count bounds what a seek decodes before its frame (each predicted frame needs the ones
  // before it in its chunk); for an app under 128 frames/s the time limit closes chunks first. A fast
  // app's chunks once closed at 16 frames: stress on the H200 host (9.5 ms a frame) then wrote every
  // 16th frame whole, 13.3 MB of message against 0.65 for a predicted one, and those whole frames were
  // over half of what it compressed (docs/capture-cost.md).
  uint64_t chunkBytes = 128ull << 20;  // a chunk closes after the frame that takes it past this...
  uint32_t maxFramesPerChunk = 32;     // ...or after this many frames...
  uint32_t chunkMillis = 250;          // ...or this long after it opened (0: no time limit)
  // Compression threads: 0 compresses on the thread that closes the chunk; kAutoThreads picks
  // min(4, hardware threads).
  uint32_t threads = kAutoThreads;
  ThreadPriority threadPriority = ThreadPriority::Normal;  // the compression threads' (best effort)
  uint64_t maxPendingBytes = 256ull << 20;  // raw bytes of closed chunks not yet written (at least one)
  int zstdWorkers = 0;                      // ZSTD_c_nbWorkers inside each chunk's compression (0: none)
  // Frames encode what did not change since the previous frame of their chunk as residuals (trace.fbs,
  // Bucket.predictor; format 1.3). False writes every frame whole, as format 1.2 did.
  bool predictFrames = true;

  static constexpr uint32_t kAutoThreads = UINT32_MAX;
};

// ---- what the encoder is given ----

struct HeaderInfo {
  std::string appName;
  std::vector<std::string> appArgs;
  DeviceInfo device;
  int64_t captureTimeNs = 0;  // Unix time of the capture start, nanoseconds
  uint64_t firstFrame = 0;
  std::vector<const CommandBucketBase*> keyTypes;  // one bucket per distinct key type
};

// One bucket's recording of a frame as the render thread left it (FrameBucketView), read in place.
struct BucketSource {
  const CommandBucketBase* bucket = nullptr;
  const BucketStream* stream = nullptr;    // held (FrameLease) until the frame's message is built
  uint64_t epoch = 0;                      // the stream's epoch: unchanged across frames = a retained bucket
  uint16_t index = 0;                      // position among the renderer's buckets
  BucketOrder order = BucketOrder::Scene;  // FrameBucketView::order: the order the frame was sorted with
};

struct FrameSource {
  uint64_t frame = 0;
  uint64_t sortedOrderHash = 0;             // FrameView::sortedOrderHash
  const RequestStream* requests = nullptr;  // held like the bucket streams; null: none
  std::span<const BucketSource> buckets;
  // Left out of the capture (the writer was behind): the requests are written, `buckets` must be empty,
  // and the frame is marked dropped (format 1.3).
  bool dropped = false;
  // May encode its buckets against the previous frame message (format 1.3): only when that message is
  // in the same chunk as this one will be (TraceFileWriter::chunkOpen, continuesChunk).
  bool predict = false;
};

// The resources alive at a capture's first frame, copied (the live table keeps changing), with their
// contents as the device held them.
struct ResourceSnapshot {
  struct Resource {
    CommandType createType = CommandType::Count;
    std::vector<std::byte> create;  // the create packet
    std::vector<std::byte> code;    // a shader's code
    struct Contents {
      uint32_t mip = 0;
      std::vector<std::byte> bytes;
    };
    std::vector<Contents> contents;
    std::string readbackError;
  };
  uint64_t frame = 0;
  DeviceInfo device;
  std::vector<Resource> resources;
};

struct CaptureEndInfo {
  uint64_t frames = 0;
  uint64_t renderWaits = 0;
  uint64_t renderWaitNs = 0;
  std::string reason;
};

struct FrameCounts {
  uint64_t packets = 0;      // chain links
  uint64_t packetBytes = 0;  // keys, payloads and aux data
};

// Builds the messages. Each call returns the finished size-prefixed message, valid until the next call.
// Column buffers are kept between frames, so a steady stream of frames allocates nothing.
class MessageEncoder {
 public:
  MessageEncoder();
  ~MessageEncoder();
  MessageEncoder(const MessageEncoder&) = delete;
  MessageEncoder& operator=(const MessageEncoder&) = delete;

  std::span<const uint8_t> header(const HeaderInfo& info);
  std::span<const uint8_t> keyLayouts(std::span<const CommandBucketBase* const> keyTypes);
  // Resources from snapshot.resources[next...]: as many as fit one message (at least one). Advances `next`;
  // call again until it reaches the end.
  std::span<const uint8_t> resources(const ResourceSnapshot& snapshot, size_t& next);
  // The same as a KeyFrame message (format 1.4): the resources alive at the start of snapshot.frame, a
  // frame after the capture's first.
  std::span<const uint8_t> keyFrame(const ResourceSnapshot& snapshot, size_t& next);
  // Reads the frame's streams; they may be released as soon as this returns. Fails for a frame too large
  // for one message.
  Result<std::span<const uint8_t>> frame(const FrameSource& frame, FrameCounts& counts);
  std::span<const uint8_t> marker(uint64_t frame, std::string_view text);
  std::span<const uint8_t> captureEnd(const CaptureEndInfo& info);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Writes the container. Errors name the file.
class TraceFileWriter {
 public:
  // `createFile`: where the bytes go (default: createFileSink, the file at `path`).
  static Result<TraceFileWriter> create(const std::string& path, const CompressionSettings& settings,
                                        const FileSinkFactory& createFile = {});
  TraceFileWriter(TraceFileWriter&&) noexcept;
  TraceFileWriter& operator=(TraceFileWriter&&) noexcept;
  ~TraceFileWriter();

  // The header message, in a zstd frame of its own: a reader checks the format before any chunk.
  Result<void> writeHeader(std::span<const uint8_t> message);
  // Compresses a message into the open chunk (opening one first when none is), filed in the index under
  // its kind and the frame it belongs to.
  Result<void> append(std::span<const uint8_t> message, MessageKind kind, uint64_t frame);
  // Whether a chunk is open, and whether a message of this many bytes would still go into it: a frame
  // that predicts from the frame before it (CompressionSettings::predictFrames) must share its chunk.
  bool chunkOpen() const;
  bool continuesChunk(uint64_t messageBytes) const;
  // Frame messages in the open chunk (0: none open, or only other messages so far). A frame predicts
  // only from a frame of its own chunk, so a chunk opened by a marker or a key frame has none to use.
  uint32_t chunkFrames() const;
  // Closes the open chunk now: a key frame starts a chunk of its own, so that reading it and the frames
  // after it needs no chunk before it.
  Result<void> closeChunk();
  // Called after each frame message: closes the chunk once it holds chunkBytes or maxFramesPerChunk.
  Result<void> frameDone();
  // Closes the open chunk when chunkMillis have passed since it opened. The caller decides when time
  // counts (the capture: after each frame, and when no frame came by chunkDeadline()); a writer that
  // never calls it chunks by size and frame count alone, the same way every run.
  Result<void> tick();
  // When the open chunk must close; nullopt when none is open or there is no time limit.
  std::optional<std::chrono::steady_clock::time_point> chunkDeadline() const;
  // Writes the open chunk (if any), the index frame and the footer; syncs and closes the file.
  Result<void> finish();

  bool headerWritten() const;
  // What has reached the file so far (chunks finish on worker threads): any thread may ask.
  uint64_t fileBytes() const;
  uint64_t chunks() const;
  uint64_t framesOnDisk() const;   // frame messages in chunks written whole: what a SIGKILL now keeps
  uint64_t messageBytes() const;   // uncompressed bytes of every message, padding included
  uint64_t compressWaits() const;  // closes that waited for maxPendingBytes to drain
  uint64_t compressWaitNs() const;
  // CPU time the compression threads spent on chunks (0 without them: the appending thread compresses,
  // in its own time).
  uint64_t compressionThreadsCpuNs() const;
  // Moves the compression threads to `priority` (from any thread; those still starting take it as they
  // start): Normal returns Idle threads to the normal policy (setThreadPriority). The first refusal.
  Result<void> setThreadPriority(ThreadPriority priority);

  struct Impl;

 private:
  explicit TraceFileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace reel::trace
