#pragma once
// Chunk compression: the one place reel calls zstd. Every zstd frame of a trace (the header frame and
// each chunk, container.h) is written by a ChunkCompressor and read by a ChunkDecompressor.
//
// A frame is always written with its content checksum (zstd's default is off) and never with a
// dictionary, and the decompressor refuses frames that lack the one or need the other: the FlatBuffers
// verifier checks offsets, not payload bytes, so the checksum is what catches a corrupt chunk, and a
// chunk must decompress on its own.
//
//   auto compressor = ChunkCompressor::create(settings);   // writer thread
//   compressor->add(message.data(), message.size());        // into the open frame, as messages come
//   compressor->endFrame();                                 // frame() is now one whole zstd frame
//   write(compressor->frame());
//   compressor->startFrame();
//
//   ChunkDecompressor decompressor;                         // reader
//   decompressor.checkFrameHeader(data, size);              // a frame reel writes, or why not
//   auto n = decompressor.decompress(data, size, out, capacity);  // "checksum mismatch", ...

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reel/runtime/result.h"
#include "reel/trace/reader.h"
#include "reel/trace/writer.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace reel::schema {

class ChunkCompressor {
 public:
  // Every zstd frame carries its content checksum.
  static constexpr bool kChecksum = true;

  // Uses settings.level, longDistanceMatching and windowLog (the chunk sizes are the file writer's).
  static Result<ChunkCompressor> create(const trace::CompressionSettings& settings);
  ChunkCompressor(ChunkCompressor&&) noexcept;
  ChunkCompressor& operator=(ChunkCompressor&&) noexcept;
  ~ChunkCompressor();

  // One whole frame of `size` bytes at once, appended to `out`; its header records the content size.
  // `frames`: the trace frames in it (a chunk's), by which, with its size, settings.hashLog kAutoHashLog
  // chooses the match table.
  Result<void> compressFrame(const void* data, size_t size, std::vector<uint8_t>& out, uint64_t frames = 0);

  // A frame compressed as its bytes come (a chunk, message by message): add() each piece, then
  // endFrame(); frame() is then the whole zstd frame, until startFrame() begins the next one.
  Result<void> add(const void* data, size_t size);
  Result<void> endFrame();
  std::span<const uint8_t> frame() const { return {out_.data(), outUsed_}; }
  void startFrame();

  struct Stats {
    uint64_t frames = 0;           // zstd frames finished
    uint64_t rawBytes = 0;         // bytes compressed
    uint64_t compressedBytes = 0;  // bytes of the finished frames
  };
  const Stats& stats() const { return stats_; }
  const trace::CompressionSettings& settings() const { return settings_; }

 private:
  struct FreeContext {
    void operator()(ZSTD_CCtx_s* cctx) const;
  };
  ChunkCompressor(std::unique_ptr<ZSTD_CCtx_s, FreeContext> cctx, const trace::CompressionSettings& settings);
  Result<void> stream(const void* data, size_t size, bool end);

  std::unique_ptr<ZSTD_CCtx_s, FreeContext> cctx_;
  trace::CompressionSettings settings_;
  int hashLog_ = 0;           // the match table the context has (kAutoHashLog's choice; 0: the level's own)
  std::vector<uint8_t> out_;  // the open frame, compressed so far
  size_t outUsed_ = 0;
  // compressFrame's output, then copied to the caller's: room for the largest frame so far, kept, and
  // never cleared (a vector's resize would write every byte of a chunk's bound before zstd does).
  std::unique_ptr<uint8_t[]> scratch_;
  size_t scratchBytes_ = 0;
  Stats stats_;
};

class ChunkDecompressor {
 public:
  ChunkDecompressor();
  ChunkDecompressor(ChunkDecompressor&&) noexcept;
  ChunkDecompressor& operator=(ChunkDecompressor&&) noexcept;
  ~ChunkDecompressor();

  // Where the zstd frame at `data` ends, looking at no more than `available` bytes. On failure `error`
  // is zstd's reason, and `cutShort` says that the frame runs past `available`.
  struct Extent {
    uint64_t bytes = 0;
    std::string error;  // empty: `bytes` is the frame's compressed size
    bool cutShort = false;
  };
  static Extent frameExtent(const std::byte* data, uint64_t available);
  // What the whole frame of `size` bytes at `data` decompresses to: the size its header declares, else
  // an upper bound from its blocks; nothing when the frame says neither.
  static std::optional<uint64_t> contentBound(const std::byte* data, uint64_t size);
  // Whether the frame at `data` is one reel writes: a zstd frame (not a skippable one) with its content
  // checksum and no dictionary. The error says what it is instead.
  static Result<void> checkFrameHeader(const std::byte* data, uint64_t available);

  // Decompresses the one frame of `size` bytes at `data` into `capacity` bytes at `out`: the bytes it
  // decompressed to, or zstd's reason ("checksum mismatch" for a frame whose content is corrupt).
  Result<uint64_t> decompress(const std::byte* data, uint64_t size, std::byte* out, uint64_t capacity);

  // zstd's own share of reading: frames decompressed, their bytes, and the thread CPU time spent.
  const trace::TraceReader::DecompressStats& stats() const { return stats_; }

 private:
  struct FreeContext {
    void operator()(ZSTD_DCtx_s* dctx) const;
  };
  std::unique_ptr<ZSTD_DCtx_s, FreeContext> dctx_;  // made on the first decompress()
  trace::TraceReader::DecompressStats stats_;
};

}  // namespace reel::schema
