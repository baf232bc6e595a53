#include "reel/schema/compression.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameHeader, ZSTD_decompressBound
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <utility>

#include "reel/runtime/cpu_time.h"

namespace reel::schema {
namespace {

Result<void> zstdCheck(size_t code, const char* what) {
  if (ZSTD_isError(code)) return fail("zstd ", what, ": ", ZSTD_getErrorName(code));
  return {};
}

}  // namespace

// ---- ChunkCompressor ----

void ChunkCompressor::FreeContext::operator()(ZSTD_CCtx_s* cctx) const {
  ZSTD_freeCCtx(cctx);
}

Result<ChunkCompressor> ChunkCompressor::create(const trace::CompressionSettings& settings) {
  std::unique_ptr<ZSTD_CCtx_s, FreeContext> cctx(ZSTD_createCCtx());
  if (!cctx) return fail("cannot create a zstd context");
  for (const auto& [param, value] :
       {std::pair{ZSTD_c_compressionLevel, settings.level}, std::pair{ZSTD_c_checksumFlag, kChecksum ? 1 : 0},
        std::pair{ZSTD_c_enableLongDistanceMatching, settings.longDistanceMatching ? 1 : 0},
        std::pair{ZSTD_c_windowLog, settings.windowLog}, std::pair{ZSTD_c_hashLog, settings.hashLog}}) {
    if ((param == ZSTD_c_windowLog || param == ZSTD_c_hashLog) && value == 0) continue;  // the level's own
    // Chosen by each chunk (compressFrame); the level's own until the first.
    if (param == ZSTD_c_hashLog && value == trace::CompressionSettings::kAutoHashLog) continue;
    if (auto r = zstdCheck(ZSTD_CCtx_setParameter(cctx.get(), param, value), "parameter"); !r)
      return r.error();
  }
  if (settings.zstdWorkers > 0) {
    if (auto r = zstdCheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers, settings.zstdWorkers),
                           "worker count (a libzstd without threads?)");
        !r)
      return r.error();
    // zstd's own job size follows the window (up to 256 MiB with long-distance matching), larger than a
    // chunk: one job, one thread. Jobs of 4 MiB let the workers share a chunk.
    if (auto r = zstdCheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_jobSize, 4 << 20), "job size"); !r)
      return r.error();
  }
  return ChunkCompressor(std::move(cctx), settings);
}

ChunkCompressor::ChunkCompressor(std::unique_ptr<ZSTD_CCtx_s, FreeContext> cctx,
                                 const trace::CompressionSettings& settings)
    : cctx_(std::move(cctx)), settings_(settings) {}
ChunkCompressor::ChunkCompressor(ChunkCompressor&&) noexcept = default;
ChunkCompressor& ChunkCompressor::operator=(ChunkCompressor&&) noexcept = default;
ChunkCompressor::~ChunkCompressor() = default;

Result<void> ChunkCompressor::compressFrame(const void* data, size_t size, std::vector<uint8_t>& out,
                                            uint64_t frames) {
  if (settings_.hashLog == trace::CompressionSettings::kAutoHashLog) {
    const bool large = size >= trace::CompressionSettings::kLargeChunkBytes ||
                       size / std::max<uint64_t>(frames, 1) >= trace::CompressionSettings::kLargeFrameBytes;
    const int hashLog = large ? trace::CompressionSettings::kLargeFrameHashLog : 0;  // 0: the level's own
    if (hashLog != hashLog_) {
      if (auto r = zstdCheck(ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_hashLog, hashLog), "parameter"); !r)
        return r;
      hashLog_ = hashLog;
    }
  }
  const size_t bound = ZSTD_compressBound(size);
  if (scratchBytes_ < bound) {
    scratch_.reset(new uint8_t[bound]);  // uninitialised: zstd writes what is read back
    scratchBytes_ = bound;
  }
  const size_t n = ZSTD_compress2(cctx_.get(), scratch_.get(), scratchBytes_, data, size);
  if (auto r = zstdCheck(n, "compression"); !r) return r;
  out.insert(out.end(), scratch_.get(), scratch_.get() + n);
  ++stats_.frames;
  stats_.rawBytes += size;
  stats_.compressedBytes += n;
  return {};
}

Result<void> ChunkCompressor::stream(const void* data, size_t size, bool end) {
  ZSTD_inBuffer in{data, size, 0};
  const ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_continue;
  for (;;) {
    if (out_.size() - outUsed_ < ZSTD_CStreamOutSize()) out_.resize(out_.size() * 2 + ZSTD_CStreamOutSize());
    ZSTD_outBuffer out{out_.data(), out_.size(), outUsed_};
    const size_t remaining = ZSTD_compressStream2(cctx_.get(), &out, &in, mode);
    if (auto r = zstdCheck(remaining, "compression"); !r) return r;
    outUsed_ = out.pos;
    if (end ? remaining == 0 : in.pos == in.size) return {};
  }
}

Result<void> ChunkCompressor::add(const void* data, size_t size) {
  if (auto r = stream(data, size, false); !r) return r;
  stats_.rawBytes += size;
  return {};
}

Result<void> ChunkCompressor::endFrame() {
  if (auto r = stream(nullptr, 0, true); !r) return r;
  ++stats_.frames;
  stats_.compressedBytes += outUsed_;
  return {};
}

void ChunkCompressor::startFrame() {
  // A burst (the resources at a capture's start) may have grown the buffer far beyond a frame's.
  if (out_.size() > (64u << 20)) std::vector<uint8_t>().swap(out_);
  outUsed_ = 0;
}

// ---- ChunkDecompressor ----

void ChunkDecompressor::FreeContext::operator()(ZSTD_DCtx_s* dctx) const {
  ZSTD_freeDCtx(dctx);
}

ChunkDecompressor::ChunkDecompressor() = default;
ChunkDecompressor::ChunkDecompressor(ChunkDecompressor&&) noexcept = default;
ChunkDecompressor& ChunkDecompressor::operator=(ChunkDecompressor&&) noexcept = default;
ChunkDecompressor::~ChunkDecompressor() = default;

ChunkDecompressor::Extent ChunkDecompressor::frameExtent(const std::byte* data, uint64_t available) {
  const size_t n = ZSTD_findFrameCompressedSize(data, available);
  if (!ZSTD_isError(n)) return {n, {}, false};
  return {0, ZSTD_getErrorName(n), ZSTD_getErrorCode(n) == ZSTD_error_srcSize_wrong};
}

std::optional<uint64_t> ChunkDecompressor::contentBound(const std::byte* data, uint64_t size) {
  unsigned long long bytes = ZSTD_getFrameContentSize(data, size);
  if (bytes == ZSTD_CONTENTSIZE_UNKNOWN || bytes == ZSTD_CONTENTSIZE_ERROR)
    bytes = ZSTD_decompressBound(data, size);
  if (bytes == ZSTD_CONTENTSIZE_ERROR) return std::nullopt;
  return bytes;
}

Result<void> ChunkDecompressor::checkFrameHeader(const std::byte* data, uint64_t available) {
  ZSTD_frameHeader fh{};
  const size_t r = ZSTD_getFrameHeader(&fh, data, available);
  if (ZSTD_isError(r)) return fail("bad zstd frame header: ", ZSTD_getErrorName(r));
  if (r != 0) return fail("zstd frame header cut short");
  if (fh.frameType != ZSTD_frame) return fail("a skippable frame where a zstd frame belongs");
  if (!fh.checksumFlag) return fail("zstd frame without a content checksum");
  if (fh.dictID != 0) return fail("zstd frame needs dictionary ", fh.dictID);
  return {};
}

Result<uint64_t> ChunkDecompressor::decompress(const std::byte* data, uint64_t size, std::byte* out,
                                               uint64_t capacity) {
  if (!dctx_) dctx_.reset(ZSTD_createDCtx());
  if (!dctx_) return fail("cannot create a zstd context");
  const std::chrono::nanoseconds cpu0 = threadCpuTime();
  const size_t n = ZSTD_decompressDCtx(dctx_.get(), out, capacity, data, size);
  stats_.cpu += threadCpuTime() - cpu0;
  ++stats_.chunks;
  if (ZSTD_isError(n)) {
    if (ZSTD_getErrorCode(n) == ZSTD_error_checksum_wrong) return fail("checksum mismatch");
    return fail(ZSTD_getErrorName(n));
  }
  stats_.bytes += n;
  return uint64_t{n};
}

}  // namespace reel::schema
