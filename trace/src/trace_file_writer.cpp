// The container side of the writer (reel/schema/container.h): the header frame, chunks compressed as a
// stream of messages, and the index frame with its footer.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "reel/schema/checksum.h"
#include "reel/schema/compression.h"
#include "reel/schema/messages.h"
#include "reel/trace/writer.h"

namespace reel::trace {
namespace {

// A chunk's decompressed bytes are indexed with 32-bit offsets: close a chunk before a message would
// take it past this, whatever chunkBytes says.
constexpr uint64_t kMaxChunkRawBytes = 1ull << 31;
constexpr uint8_t kZeros[schema::kMessageAlignment] = {};

}  // namespace

struct TraceFileWriter::Impl {
  struct ChunkEntry {
    uint64_t offset, compressedSize, rawSize;
  };
  struct MessageEntry {
    uint64_t frame;
    uint32_t chunk, offset, size;
    uint8_t kind;
  };

  Impl(int file, std::string filePath, schema::ChunkCompressor chunkCompressor)
      : fd(file), path(std::move(filePath)), compressor(std::move(chunkCompressor)) {}
  ~Impl() {
    if (fd >= 0) ::close(fd);
  }

  Result<void> closeChunk();
  Result<void> writeAll(const void* data, size_t size);
  Error ioError(const char* what, int error) const {
    return fail(path, ": ", what, " at byte ", fileOffset, ": ", std::strerror(error));
  }
  template <typename T>
  Result<T> located(Result<T> r) const {
    if (r) return r;
    return fail(path, ": ", r.error().message);
  }

  int fd;
  std::string path;
  schema::ChunkCompressor compressor;  // the settings are its own
  bool headerWritten = false;
  bool chunkOpen = false;
  uint64_t chunkRaw = 0;
  uint32_t chunkFrames = 0;
  uint64_t fileOffset = 0;
  std::vector<ChunkEntry> chunks;
  std::vector<MessageEntry> messages;
};

Result<TraceFileWriter> TraceFileWriter::create(const std::string& path,
                                                const CompressionSettings& settings) {
  auto compressor = schema::ChunkCompressor::create(settings);
  if (!compressor) return fail(path, ": ", compressor.error().message);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot create trace ", path, ": ", std::strerror(errno));
  return TraceFileWriter(std::make_unique<Impl>(fd, path, std::move(compressor.value())));
}

TraceFileWriter::TraceFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceFileWriter::TraceFileWriter(TraceFileWriter&&) noexcept = default;
TraceFileWriter& TraceFileWriter::operator=(TraceFileWriter&&) noexcept = default;
TraceFileWriter::~TraceFileWriter() = default;

bool TraceFileWriter::headerWritten() const {
  return impl_->headerWritten;
}
uint64_t TraceFileWriter::fileBytes() const {
  return impl_->fileOffset;
}
uint64_t TraceFileWriter::chunks() const {
  return impl_->chunks.size();
}
uint64_t TraceFileWriter::messageBytes() const {
  return impl_->compressor.stats().rawBytes;
}

Result<void> TraceFileWriter::Impl::writeAll(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ioError("write failed", errno);
    }
    p += n;
    size -= static_cast<size_t>(n);
    fileOffset += static_cast<uint64_t>(n);
  }
  return {};
}

Result<void> TraceFileWriter::writeHeader(std::span<const uint8_t> message) {
  Impl& s = *impl_;
  std::vector<uint8_t> padded(message.begin(), message.end());
  padded.resize(schema::alignMessage(static_cast<uint64_t>(padded.size())));
  std::vector<uint8_t> compressed;
  if (auto r = s.located(s.compressor.compressFrame(padded.data(), padded.size(), compressed)); !r) return r;
  if (auto r = s.writeAll(compressed.data(), compressed.size()); !r) return r;
  s.headerWritten = true;
  return {};
}

Result<void> TraceFileWriter::append(std::span<const uint8_t> message, MessageKind kind, uint64_t frame) {
  Impl& s = *impl_;
  if (s.chunkOpen && s.chunkRaw + message.size() + schema::kMessageAlignment > kMaxChunkRawBytes) {
    if (auto r = s.closeChunk(); !r) return r;
  }
  if (!s.chunkOpen) {
    s.chunkOpen = true;
    s.chunkRaw = 0;
    s.chunkFrames = 0;
    s.compressor.startFrame();
  }
  s.messages.push_back(Impl::MessageEntry{frame, static_cast<uint32_t>(s.chunks.size()),
                                          static_cast<uint32_t>(s.chunkRaw),
                                          static_cast<uint32_t>(message.size()), static_cast<uint8_t>(kind)});
  if (auto r = s.located(s.compressor.add(message.data(), message.size())); !r) return r;
  const uint64_t padding = schema::alignMessage(uint64_t{message.size()}) - message.size();
  if (padding) {
    if (auto r = s.located(s.compressor.add(kZeros, padding)); !r) return r;
  }
  s.chunkRaw += message.size() + padding;
  if (kind == MessageKind::Frame) ++s.chunkFrames;
  return {};
}

Result<void> TraceFileWriter::frameDone() {
  Impl& s = *impl_;
  const CompressionSettings& settings = s.compressor.settings();
  if (s.chunkOpen && (s.chunkRaw >= settings.chunkBytes || s.chunkFrames >= settings.maxFramesPerChunk)) {
    return s.closeChunk();
  }
  return {};
}

Result<void> TraceFileWriter::Impl::closeChunk() {
  if (!chunkOpen) return {};
  if (auto r = located(compressor.endFrame()); !r) return r;
  chunkOpen = false;
  const uint64_t offset = fileOffset;
  // One write per chunk: a reader of a file cut short finds whole chunks and at most one partial one.
  const std::span<const uint8_t> frame = compressor.frame();
  if (auto r = writeAll(frame.data(), frame.size()); !r) return r;
  chunks.push_back(ChunkEntry{offset, frame.size(), chunkRaw});
  compressor.startFrame();
  return {};
}

Result<void> TraceFileWriter::finish() {
  Impl& s = *impl_;
  if (auto r = s.closeChunk(); !r) return r;
  flatbuffers::FlatBufferBuilder fbb(1024 + s.messages.size() * sizeof(fb::MessageEntry));
  std::vector<fb::ChunkEntry> chunks;
  chunks.reserve(s.chunks.size());
  for (const Impl::ChunkEntry& c : s.chunks) chunks.emplace_back(c.offset, c.compressedSize, c.rawSize);
  std::vector<fb::MessageEntry> messages;
  messages.reserve(s.messages.size());
  for (const Impl::MessageEntry& m : s.messages)
    messages.emplace_back(m.frame, m.chunk, m.offset, m.size, m.kind);
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
  schema::storeLE32(footer + 4, schema::crc32(frame.data() + schema::kSkippableHeaderBytes, indexBytes));
  schema::storeLE64(footer + 8, schema::kFooterMagic);
  if (auto r = s.writeAll(frame.data(), frame.size()); !r) return r;

  const int fd = s.fd;
  s.fd = -1;
  if (::fdatasync(fd) != 0 && errno != EINVAL) {
    const int error = errno;
    ::close(fd);
    return s.ioError("fdatasync failed", error);
  }
  if (::close(fd) != 0) return s.ioError("close failed", errno);
  return {};
}

}  // namespace reel::trace
