#pragma once
// TraceReader: opens a .reel trace (the container: trace/internal/reel/schema/container.h), checks its
// header, reads its index or, when the writer did not finish, rebuilds it by walking the chunks, and
// gives random access to every frame. No Vulkan here: replay, the CLI and the viewer all read through
// this.
//
// Usage (given const char* path):
//   auto reader = reel::trace::TraceReader::open(path);
//   if (!reader) {
//     std::puts(reader.error().message.c_str());  // "out.reel: byte 0: not a reel trace ..."
//     return;
//   }
//   for (const std::string& w : reader->warnings()) std::puts(w.c_str());  // "truncated: frames 0..11 ..."
//   auto resources = reader->readResources();  // alive at the capture start
//   if (!resources) std::puts(resources.error().message.c_str());
//   for (size_t i = 0; i < reader->frameCount(); ++i) {
//     auto frame = reader->readFrame(i);  // decompress, verify, check
//     if (!frame) std::puts(frame.error().message.c_str());  // "... chunk 3 ...: checksum mismatch"
//   }
//
// The file is hostile until checked: every message passes the FlatBuffers verifier before use, every
// chunk's zstd checksum is checked, and no size or offset read from the file is used before it is checked
// against what it points into. Errors name the file, the byte offset and what is wrong; they come back
// as Results, never as exceptions or crashes.
//
// The index is never worth a frame: an index whose checksum fails (format 1.1 on), that breaks what the
// writer always does, or that disagrees with a chunk read through it (frame number, sizes, offsets,
// kinds) is dropped for a scan of the chunks, with one warning; a 1.0 index, which has no checksum, is
// compared with every chunk when the trace opens. After such a rebuild, frame and message positions
// count the scan's list (frameCount() may change once, on the read that found the disagreement).
//
// open() takes regular files only: a directory, a FIFO, a device or a socket is refused at once, before
// any byte is read (a FIFO is opened without blocking), because the reader maps the file and reads it
// at random. A trace coming through a pipe must be saved to a file first.
//
// Not thread-safe: one reader per thread (records it returned may be used from any thread). open() maps
// the file: a capture still writing it only appends (the reader sees what was there when it opened),
// but another process truncating it under the reader would fault the mapping.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reel/runtime/result.h"
#include "reel/trace/header.h"
#include "reel/trace/message_kind.h"
#include "reel/trace/records.h"

namespace reel::trace {

struct ReaderOptions {
  // A chunk that would decompress to more than this is refused (a hostile file can claim anything).
  uint64_t maxChunkBytes = 4ull << 30;
};

struct ChunkInfo {
  uint64_t offset = 0;  // of its zstd frame in the file
  uint64_t compressedSize = 0;
  uint64_t rawSize = 0;
  bool readable = true;  // false: found corrupt while rebuilding the index (its messages are lost)
};

struct MessageInfo {
  uint8_t kind = 0;    // a MessageKind, or a newer one; messageKindName() names it
  uint64_t frame = 0;  // the frame it belongs to
  uint32_t chunk = 0;
  uint32_t offset = 0;  // in the chunk's decompressed bytes
  uint32_t size = 0;
};

class TraceReader {
 public:
  static Result<TraceReader> open(const std::string& path, const ReaderOptions& options = {});
  // A trace already in memory; `name` stands for the file in messages.
  static Result<TraceReader> fromBytes(std::vector<std::byte> bytes, std::string name,
                                       const ReaderOptions& options = {});

  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  ~TraceReader();

  const std::string& name() const;
  const TraceHeader& header() const;
  // What was wrong but did not stop the reader: no index (rebuilt), a file cut short (readable up to
  // the cut), a corrupt chunk skipped while rebuilding, a newer minor version.
  const std::vector<std::string>& warnings() const;
  bool hasIndex() const;  // the writer's index was read, not rebuilt
  bool complete() const;  // the trace ends with its CaptureEnd message

  std::span<const ChunkInfo> chunks() const;
  std::span<const MessageInfo> messages() const;  // in file order

  size_t frameCount() const;
  uint64_t frameNumber(size_t index) const;
  std::optional<size_t> findFrame(uint64_t number) const;
  Result<FrameRecord> readFrame(size_t index);
  // The same into a record read before (or a new one), reusing its buffers: what a replay calls frame
  // after frame, so that decoding allocates nothing once the buffers have grown. On failure `into` is
  // left half decoded: read another frame into it before using it again.
  Result<void> readFrame(size_t index, FrameRecord& into);

  Result<std::vector<ResourcesRecord>> readResources();
  // Frames (positions, ascending) with a key frame (format 1.4): every resource alive at the frame's start,
  // written again by a long capture, so that a replay can start there. A key frame whose messages may be
  // incomplete (an unreadable chunk among or just before them, found while rebuilding the index) is not
  // listed.
  std::vector<size_t> keyFrames() const;
  // The key frame of frame `index` (one of keyFrames()), as readResources gives the capture start's.
  Result<std::vector<ResourcesRecord>> readKeyFrame(size_t index);
  Result<std::vector<MarkerRecord>> readMarkers();
  Result<std::optional<CaptureEndRecord>> readCaptureEnd();

  // zstd's own share of reading: the floor under readFrame, whatever the decoding costs.
  struct DecompressStats {
    uint64_t chunks = 0;              // zstd frames decompressed (the header and the index included)
    uint64_t bytes = 0;               // bytes they decompressed to
    std::chrono::nanoseconds cpu{0};  // thread CPU time inside zstd's decompression
  };
  const DecompressStats& decompressStats() const;

  struct Impl;

 private:
  explicit TraceReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace reel::trace
