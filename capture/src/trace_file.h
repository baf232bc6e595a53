#pragma once
// The container side of the writer (schema/include/reel/schema/container.h): the header frame, chunks
// compressed as a stream of messages, and the index frame with its footer. Writer thread only.
//
//   auto file = TraceFile::create("out.reel", settings);
//   file->writeHeader(headerMessage);
//   file->append(frameMessage, kind, frameNumber);  // compressed into the open chunk at once
//   file->frameDone();                              // closes the chunk when it is full: one write()
//   file->finish();                                 // last chunk, index, fdatasync, close

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reel/capture/capture.h"
#include "reel/runtime/result.h"

namespace reel::capture::detail {

class TraceFile {
 public:
  static Result<std::unique_ptr<TraceFile>> create(const std::string& path,
                                                   const CompressionSettings& settings);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  Result<void> writeHeader(std::span<const uint8_t> message);
  // Compresses a message into the open chunk (opening one first when none is).
  Result<void> append(std::span<const uint8_t> message, uint8_t kind, uint64_t frame);
  // Called after each frame message: closes the chunk once it holds chunkBytes or maxFramesPerChunk.
  Result<void> frameDone();
  // Writes the open chunk (if any), the index frame and the footer; syncs and closes the file.
  Result<void> finish();

  bool headerWritten() const { return headerWritten_; }
  uint64_t fileBytes() const { return fileOffset_; }
  uint64_t chunks() const { return chunks_.size(); }
  uint64_t messageBytes() const { return messageBytes_; }

 private:
  struct ChunkEntry {
    uint64_t offset, compressedSize, rawSize;
  };
  struct MessageEntry {
    uint64_t frame;
    uint32_t chunk, offset, size;
    uint8_t kind;
  };

  TraceFile(int fd, std::string path, const CompressionSettings& settings, ZSTD_CCtx* cctx);
  Result<void> closeChunk();
  Result<void> compress(const void* data, size_t size, ZSTD_EndDirective mode);
  Result<void> writeAll(const void* data, size_t size);
  Error ioError(const char* what, int error) const;

  int fd_;
  std::string path_;
  CompressionSettings settings_;
  ZSTD_CCtx* cctx_;
  std::vector<uint8_t> out_;  // the open chunk, compressed
  size_t outUsed_ = 0;
  bool headerWritten_ = false;
  bool chunkOpen_ = false;
  uint64_t chunkRaw_ = 0;
  uint32_t chunkFrames_ = 0;
  uint64_t fileOffset_ = 0;
  uint64_t messageBytes_ = 0;
  std::vector<ChunkEntry> chunks_;
  std::vector<MessageEntry> messages_;
};

}  // namespace reel::capture::detail
