#include "trace_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "reel/schema/messages.h"

namespace reel::capture::detail {
namespace {

// A chunk's decompressed bytes are indexed with 32-bit offsets: close a chunk before a message would
// take it past this, whatever chunkBytes says.
constexpr uint64_t kMaxChunkRawBytes = 1ull << 31;
constexpr uint8_t kZeros[schema::kMessageAlignment] = {};

Result<void> zstdCheck(size_t code, const char* what) {
  if (ZSTD_isError(code)) return fail("zstd ", what, ": ", ZSTD_getErrorName(code));
  return {};
}

}  // namespace

Result<std::unique_ptr<TraceFile>> TraceFile::create(const std::string& path,
                                                     const CompressionSettings& settings) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (!cctx) return fail(path, ": cannot create a zstd context");
  // The checksum is what catches a corrupt chunk: the FlatBuffers verifier checks offsets, not bytes.
  for (const auto& [param, value] :
       {std::pair{ZSTD_c_compressionLevel, settings.level}, std::pair{ZSTD_c_checksumFlag, 1},
        std::pair{ZSTD_c_enableLongDistanceMatching, settings.longDistanceMatching ? 1 : 0},
        std::pair{ZSTD_c_windowLog, settings.windowLog}}) {
    if (param == ZSTD_c_windowLog && value == 0) continue;  // 0: the level's default
    if (auto r = zstdCheck(ZSTD_CCtx_setParameter(cctx, param, value), "parameter"); !r) {
      ZSTD_freeCCtx(cctx);
      return fail(path, ": ", r.error().message);
    }
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    ZSTD_freeCCtx(cctx);
    return fail("cannot create trace ", path, ": ", std::strerror(error));
  }
  return std::unique_ptr<TraceFile>(new TraceFile(fd, path, settings, cctx));
}

TraceFile::TraceFile(int fd, std::string path, const CompressionSettings& settings, ZSTD_CCtx* cctx)
    : fd_(fd), path_(std::move(path)), settings_(settings), cctx_(cctx) {}

TraceFile::~TraceFile() {
  if (fd_ >= 0) ::close(fd_);
  ZSTD_freeCCtx(cctx_);
}

Error TraceFile::ioError(const char* what, int error) const {
  return fail(path_, ": ", what, " at byte ", fileOffset_, ": ", std::strerror(error));
}

Result<void> TraceFile::writeAll(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ioError("write failed", errno);
    }
    p += n;
    size -= static_cast<size_t>(n);
    fileOffset_ += static_cast<uint64_t>(n);
  }
  return {};
}

Result<void> TraceFile::writeHeader(std::span<const uint8_t> message) {
  // The header is a zstd frame of its own, so that a reader checks the format before any chunk.
  std::vector<uint8_t> padded(message.begin(), message.end());
  padded.resize(schema::alignMessage(static_cast<uint64_t>(padded.size())));
  std::vector<uint8_t> compressed(ZSTD_compressBound(padded.size()));
  const size_t size =
      ZSTD_compress2(cctx_, compressed.data(), compressed.size(), padded.data(), padded.size());
  if (auto r = zstdCheck(size, "header"); !r) return fail(path_, ": ", r.error().message);
  if (auto r = writeAll(compressed.data(), size); !r) return r;
  headerWritten_ = true;
  messageBytes_ += padded.size();
  return {};
}

Result<void> TraceFile::compress(const void* data, size_t size, ZSTD_EndDirective mode) {
  ZSTD_inBuffer in{data, size, 0};
  for (;;) {
    if (out_.size() - outUsed_ < ZSTD_CStreamOutSize()) out_.resize(out_.size() * 2 + ZSTD_CStreamOutSize());
    ZSTD_outBuffer out{out_.data(), out_.size(), outUsed_};
    const size_t remaining = ZSTD_compressStream2(cctx_, &out, &in, mode);
    if (auto r = zstdCheck(remaining, "compression"); !r) return fail(path_, ": ", r.error().message);
    outUsed_ = out.pos;
    const bool done = mode == ZSTD_e_end ? remaining == 0 : in.pos == in.size;
    if (done) return {};
  }
}

Result<void> TraceFile::append(std::span<const uint8_t> message, uint8_t kind, uint64_t frame) {
  if (chunkOpen_ && chunkRaw_ + message.size() + schema::kMessageAlignment > kMaxChunkRawBytes) {
    if (auto r = closeChunk(); !r) return r;
  }
  if (!chunkOpen_) {
    chunkOpen_ = true;
    chunkRaw_ = 0;
    chunkFrames_ = 0;
    outUsed_ = 0;
  }
  messages_.push_back(MessageEntry{frame, static_cast<uint32_t>(chunks_.size()),
                                   static_cast<uint32_t>(chunkRaw_), static_cast<uint32_t>(message.size()),
                                   kind});
  if (auto r = compress(message.data(), message.size(), ZSTD_e_continue); !r) return r;
  const uint64_t padding = schema::alignMessage(uint64_t{message.size()}) - message.size();
  if (padding) {
    if (auto r = compress(kZeros, padding, ZSTD_e_continue); !r) return r;
  }
  chunkRaw_ += message.size() + padding;
  messageBytes_ += message.size() + padding;
  if (kind == static_cast<uint8_t>(fb::Body::Frame)) ++chunkFrames_;
  return {};
}

Result<void> TraceFile::frameDone() {
  if (chunkOpen_ && (chunkRaw_ >= settings_.chunkBytes || chunkFrames_ >= settings_.maxFramesPerChunk)) {
    return closeChunk();
  }
  return {};
}

Result<void> TraceFile::closeChunk() {
  if (!chunkOpen_) return {};
  if (auto r = compress(nullptr, 0, ZSTD_e_end); !r) return r;
  chunkOpen_ = false;
  const uint64_t offset = fileOffset_;
  // One write per chunk: a reader of a file cut short finds whole chunks and at most one partial one.
  if (auto r = writeAll(out_.data(), outUsed_); !r) return r;
  chunks_.push_back(ChunkEntry{offset, outUsed_, chunkRaw_});
  // A chunk of a burst (the resources at the start) may have grown the buffer far beyond a frame's.
  if (out_.size() > (64u << 20)) std::vector<uint8_t>().swap(out_);
  outUsed_ = 0;
  return {};
}

Result<void> TraceFile::finish() {
  if (auto r = closeChunk(); !r) return r;
  flatbuffers::FlatBufferBuilder fbb(1024 + messages_.size() * sizeof(fb::MessageEntry));
  std::vector<fb::ChunkEntry> chunks;
  chunks.reserve(chunks_.size());
  for (const ChunkEntry& c : chunks_) chunks.emplace_back(c.offset, c.compressedSize, c.rawSize);
  std::vector<fb::MessageEntry> messages;
  messages.reserve(messages_.size());
  for (const MessageEntry& m : messages_) messages.emplace_back(m.frame, m.chunk, m.offset, m.size, m.kind);
  const auto index =
      fb::CreateIndex(fbb, fbb.CreateVectorOfStructs(chunks), fbb.CreateVectorOfStructs(messages));
  fb::MessageBuilder message(fbb);
  message.add_body_type(fb::Body::Index);
  message.add_body(index.Union());
  fb::FinishSizePrefixedMessageBuffer(fbb, message.Finish());

  const uint32_t indexBytes = schema::alignMessage(static_cast<uint32_t>(fbb.GetSize()));
  std::vector<uint8_t> frame(schema::kSkippableHeaderBytes + indexBytes + schema::kFooterBytes, 0);
  schema::storeLE32(frame.data(), schema::kIndexFrameMagic);
  schema::storeLE32(frame.data() + 4, indexBytes + schema::kFooterBytes);
  std::memcpy(frame.data() + schema::kSkippableHeaderBytes, fbb.GetBufferPointer(), fbb.GetSize());
  uint8_t* footer = frame.data() + schema::kSkippableHeaderBytes + indexBytes;
  schema::storeLE32(footer, indexBytes);
  schema::storeLE32(footer + 4, 0);
  schema::storeLE64(footer + 8, schema::kFooterMagic);
  if (auto r = writeAll(frame.data(), frame.size()); !r) return r;

  const int fd = fd_;
  fd_ = -1;
  if (::fdatasync(fd) != 0 && errno != EINVAL) {
    const int error = errno;
    ::close(fd);
    return ioError("fdatasync failed", error);
  }
  if (::close(fd) != 0) return ioError("close failed", errno);
  return {};
}

}  // namespace reel::capture::detail
