// The container side of the reader: header frame, index frame or a scan of the chunks, chunk loading.
// The layout is in reel/schema/container.h; every zstd frame goes through schema::ChunkDecompressor.

#include "reel/trace/reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <new>
#include <optional>
#include <utility>

#include "decode.h"
#include "reel/schema/compression.h"

namespace reel::trace {
namespace {

constexpr uint64_t kMaxHeaderBytes = 64ull << 20;

// The bytes of the file: mapped read-only, or owned (fromBytes).
class FileBytes {
 public:
  FileBytes() = default;
  explicit FileBytes(std::vector<std::byte> owned) : owned_(std::move(owned)) {
    data_ = owned_.data();
    size_ = owned_.size();
  }
  FileBytes(void* mapped, size_t size)
      : mapped_(mapped), data_(static_cast<const std::byte*>(mapped)), size_(size) {}
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() {
    if (mapped_) ::munmap(mapped_, size_);
  }
  const std::byte* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  std::vector<std::byte> owned_;
  void* mapped_ = nullptr;
  const std::byte* data_ = nullptr;
  uint64_t size_ = 0;
};

// A decompressed chunk: 16-byte aligned (detail::allocateLarge), so that 8-byte aligned message offsets
// are aligned addresses.
struct ChunkBuffer {
  std::unique_ptr<std::byte[], detail::FreeBytes> bytes;
  uint64_t capacity = 0;
};
struct Chunk {
  ChunkBuffer buffer;
  uint64_t size = 0;  // bytes decompressed into it
  const std::byte* data() const { return buffer.bytes.get(); }
};

}  // namespace

struct TraceReader::Impl {
  std::string name;
  ReaderOptions options;
  std::unique_ptr<FileBytes> file;
  TraceHeader header;
  std::vector<std::string> warnings;
  bool hasIndex = false;
  bool complete = false;
  uint64_t headerEnd = 0;
  std::vector<ChunkInfo> chunks;
  std::vector<MessageInfo> messages;
  std::vector<uint32_t> frames;  // message index of each frame, in frame order
  std::map<uint64_t, size_t> frameByNumber;
  schema::ChunkDecompressor decompressor;
  uint32_t cachedChunk = UINT32_MAX;
  std::shared_ptr<Chunk> cached;
  // A chunk's buffer nothing refers to any more, for the next chunk: a fresh multi-megabyte allocation
  // is fresh pages, and faulting them in cost as much as decompressing into them.
  ChunkBuffer spare;
  // The largest chunk the index (or scan) names: chunk buffers are allocated this large, so that any
  // chunk fits the spare and a replay moving from chunk to chunk allocates once.
  uint64_t largestChunk = 0;
  Decoder decoder;

  const std::byte* data() const { return file->data(); }
  uint64_t size() const { return file->size(); }

  template <typename... Parts>
  Error at(uint64_t offset, Parts&&... parts) const {
    return fail(name, ": byte ", offset, ": ", std::forward<Parts>(parts)...);
  }
  template <typename... Parts>
  void warn(Parts&&... parts) {
    warnings.push_back(fail(name, ": ", std::forward<Parts>(parts)...).message);
  }

  Result<void> load();
  Result<void> readHeader();
  bool readIndex();
  void scan();
  void finishMessages();
  std::string framesOfChunk(uint32_t chunk) const;
  Result<void> checkFrameHeader(uint64_t offset, uint64_t available, const char* what) const;
  // Decompresses one zstd frame into `capacity` bytes (at most `limit`); `exact`: it must fill them (the
  // size is known).
  Result<std::shared_ptr<Chunk>> decompress(uint64_t offset, uint64_t compressedSize, uint64_t capacity,
                                            const std::string& what, bool exact, uint64_t limit);
  Result<std::shared_ptr<const Chunk>> loadChunk(uint32_t chunk);
  // Drops the cached chunk; its buffer becomes the spare when no record holds it any more.
  void recycleCached();
  Result<const fb::Message*> message(size_t index, std::shared_ptr<const Chunk>& chunk);
};

Result<void> TraceReader::Impl::checkFrameHeader(uint64_t offset, uint64_t available,
                                                 const char* what) const {
  if (auto r = schema::ChunkDecompressor::checkFrameHeader(data() + offset, available); !r)
    return at(offset, what, ": ", r.error().message);
  return {};
}

Result<std::shared_ptr<Chunk>> TraceReader::Impl::decompress(uint64_t offset, uint64_t compressedSize,
                                                             uint64_t capacity, const std::string& what,
                                                             bool exact, uint64_t limit) {
  if (auto r = checkFrameHeader(offset, compressedSize, what.c_str()); !r) return r.error();
  if (capacity > limit)
    return at(offset, what, ": decompresses to ", capacity, " bytes, more than the ", limit, " allowed");
  auto chunk = std::make_shared<Chunk>();
  if (spare.bytes && spare.capacity >= capacity) {
    chunk->buffer = std::exchange(spare, {});
  } else {
    const uint64_t allocate = std::max<uint64_t>({capacity, std::min(largestChunk, limit), 1});
    chunk->buffer = {detail::allocateLarge(allocate), allocate};
    if (!chunk->buffer.bytes)
      return at(offset, what, ": cannot allocate the ", capacity, " bytes it decompresses to");
  }
  auto decompressed =
      decompressor.decompress(data() + offset, compressedSize, chunk->buffer.bytes.get(), capacity);
  if (!decompressed) return at(offset, what, ": ", decompressed.error().message);
  const uint64_t n = decompressed.value();
  if (exact && n != capacity)
    return at(offset, what, ": decompressed to ", n, " bytes, the index says ", capacity);
  chunk->size = n;
  return chunk;
}

Result<void> TraceReader::Impl::readHeader() {
  if (size() == 0) return at(0, "not a reel trace: the file is empty");
  if (size() < 4 || schema::loadLE32(data()) != schema::kZstdFrameMagic) {
    return at(0, "not a reel trace: it does not start with a zstd frame");
  }
  const schema::ChunkDecompressor::Extent extent = schema::ChunkDecompressor::frameExtent(data(), size());
  if (!extent.error.empty()) return at(0, "header frame: ", extent.cutShort ? "cut short" : extent.error);
  const uint64_t frameSize = extent.bytes;
  if (auto r = checkFrameHeader(0, frameSize, "header frame"); !r) return r;
  const std::optional<uint64_t> rawSize = schema::ChunkDecompressor::contentBound(data(), frameSize);
  if (!rawSize || *rawSize > kMaxHeaderBytes) {
    return at(0, "header frame: implausible size ", rawSize ? std::to_string(*rawSize) : "(none given)");
  }
  auto chunk = decompress(0, frameSize, *rawSize, "header frame", false, kMaxHeaderBytes);
  if (!chunk) return chunk.error();
  const Chunk& raw = *chunk.value();
  if (raw.size < schema::kSizePrefixBytes + 8 || !fb::SizePrefixedMessageBufferHasIdentifier(raw.data())) {
    return at(0, "not a reel trace: its first zstd frame holds no REEL message");
  }
  uint32_t messageSize = 0;
  auto message = verifyMessage(raw.data(), raw.size, messageSize);
  if (!message) return at(0, "header message: ", message.error().message);
  const fb::Header* h = message.value()->body_as_Header();
  if (!h)
    return at(0, "not a reel trace: its first message is ",
              messageKindName(static_cast<uint8_t>(message.value()->body_type())), ", not a header");
  if (h->format_major() > schema::kFormatMajor) {
    return at(0, "written in trace format ", h->format_major(), ".", h->format_minor(),
              ", newer than this reader (format ", schema::kFormatMajor, ".", schema::kFormatMinor,
              "): read it with a newer reel");
  }
  if (h->format_major() == 0) return at(0, "header says trace format 0, which does not exist");
  if (h->format_major() == schema::kFormatMajor && h->format_minor() > schema::kFormatMinor) {
    warn("written in trace format ", h->format_major(), ".", h->format_minor(), ", newer than this reader (",
         schema::kFormatMajor, ".", schema::kFormatMinor, "): what this reader does not know is skipped");
  }
  auto decoded = decodeHeader(*h);
  if (!decoded) return at(0, "header: ", decoded.error().message);
  header = std::move(decoded.value());
  headerEnd = frameSize;
  return {};
}

bool TraceReader::Impl::readIndex() {
  const uint64_t fixed = schema::kSkippableHeaderBytes + schema::kFooterBytes;
  if (size() < headerEnd + fixed || schema::loadLE64(data() + size() - 8) != schema::kFooterMagic) {
    warn(
        "no index (the writer did not finish: it crashed, was killed, or still writes): rebuilt by reading "
        "the chunks");
    return false;
  }
  const uint64_t footer = size() - schema::kFooterBytes;
  const uint32_t indexBytes = schema::loadLE32(data() + footer);
  auto invalid = [&](uint64_t offset, auto&&... why) {
    warn("byte ", offset, ": index is invalid (", why..., "): rebuilt by reading the chunks");
    chunks.clear();
    messages.clear();
    return false;
  };
  if (indexBytes % schema::kMessageAlignment != 0 || indexBytes > size() - headerEnd - fixed) {
    return invalid(footer, "footer gives ", indexBytes, " index bytes");
  }
  const uint64_t start = footer - indexBytes - schema::kSkippableHeaderBytes;
  if (schema::loadLE32(data() + start) != schema::kIndexFrameMagic ||
      schema::loadLE32(data() + start + 4) != indexBytes + schema::kFooterBytes) {
    return invalid(start, "its skippable frame header does not match the footer");
  }
  // Copied out: in the file the message may sit at any alignment.
  std::vector<uint64_t> aligned(indexBytes / 8);
  std::memcpy(aligned.data(), data() + start + schema::kSkippableHeaderBytes, indexBytes);
  uint32_t messageSize = 0;
  auto message = verifyMessage(reinterpret_cast<const std::byte*>(aligned.data()), indexBytes, messageSize);
  if (!message) return invalid(start, message.error().message);
  const fb::Index* index = message.value()->body_as_Index();
  if (!index) return invalid(start, "it holds no Index message");

  uint64_t expected = headerEnd;
  if (const auto* v = index->chunks()) {
    for (uint32_t i = 0; i < v->size(); ++i) {
      fb::ChunkEntry entry;
      std::memcpy(&entry, v->Data() + uint64_t{i} * sizeof entry, sizeof entry);  // may be unaligned
      const ChunkInfo c{entry.offset(), entry.compressed_size(), entry.raw_size(), true};
      if (c.offset != expected || c.compressedSize < 4 || c.compressedSize > start - c.offset) {
        return invalid(start, "chunk ", i, " at byte ", c.offset, " of ", c.compressedSize,
                       " bytes does not follow byte ", expected);
      }
      if (schema::loadLE32(data() + c.offset) != schema::kZstdFrameMagic)
        return invalid(start, "chunk ", i, " is not a zstd frame");
      if (c.rawSize > options.maxChunkBytes)
        return invalid(start, "chunk ", i, " claims ", c.rawSize, " bytes");
      chunks.push_back(c);
      expected = c.offset + c.compressedSize;
    }
  }
  if (expected != start)
    return invalid(start, "the chunks end at byte ", expected, ", the index frame starts at ", start);
  if (const auto* v = index->messages()) {
    for (uint32_t i = 0; i < v->size(); ++i) {
      fb::MessageEntry entry;
      std::memcpy(&entry, v->Data() + uint64_t{i} * sizeof entry, sizeof entry);
      const MessageInfo m{entry.kind(), entry.frame(), entry.chunk(), entry.offset(), entry.size()};
      if (m.chunk >= chunks.size() || m.offset % schema::kMessageAlignment != 0 || m.size < 8 ||
          uint64_t{m.offset} + m.size > chunks[m.chunk].rawSize) {
        return invalid(start, "message ", i, " (chunk ", m.chunk, ", offset ", m.offset, ", ", m.size,
                       " bytes) lies outside its chunk");
      }
      messages.push_back(m);
    }
  }
  hasIndex = true;
  return true;
}

void TraceReader::Impl::scan() {
  uint64_t offset = headerEnd;
  while (offset < size()) {
    const uint64_t remaining = size() - offset;
    const uint32_t chunkIndex = static_cast<uint32_t>(chunks.size());
    if (remaining < 8) {
      warn("byte ", offset, ": ", remaining, " bytes left after the last whole chunk: ignored");
      break;
    }
    const uint32_t magic = schema::loadLE32(data() + offset);
    if ((magic & schema::kSkippableMagicMask) == schema::kSkippableMagicBase) {
      const uint64_t length = schema::kSkippableHeaderBytes + uint64_t{schema::loadLE32(data() + offset + 4)};
      if (length > remaining) {
        warn("byte ", offset, ": skippable frame cut short: the file ends inside it");
        break;
      }
      offset += length;  // the (unreadable) index, or a frame of a newer writer
      continue;
    }
    if (magic != schema::kZstdFrameMagic) {
      warn("byte ", offset, ": not a zstd frame where chunk ", chunkIndex,
           " should start: the rest of the file is ignored");
      break;
    }
    const schema::ChunkDecompressor::Extent extent =
        schema::ChunkDecompressor::frameExtent(data() + offset, remaining);
    if (!extent.error.empty()) {
      std::string readable = chunkIndex == 0 ? "no chunk is readable"
                                             : "chunks 0.." + std::to_string(chunkIndex - 1) +
                                                   framesOfChunk(UINT32_MAX) + " are readable";
      warn("byte ", offset, ": truncated in chunk ", chunkIndex, " (", extent.error, "): ", readable);
      break;
    }
    const uint64_t compressed = extent.bytes;
    ChunkInfo info{offset, compressed, 0, false};
    const std::string what = "chunk " + std::to_string(chunkIndex);
    const std::optional<uint64_t> bound =
        schema::ChunkDecompressor::contentBound(data() + offset, compressed);
    if (!bound || *bound > options.maxChunkBytes) {
      warn("byte ", offset, ": ", what, ": implausible size: its frames are skipped");
      chunks.push_back(info);
      offset += compressed;
      continue;
    }
    recycleCached();
    auto chunk = decompress(offset, compressed, *bound, what, false, options.maxChunkBytes);
    if (!chunk) {
      warnings.push_back(chunk.error().message + ": its frames are skipped");
      chunks.push_back(info);
      offset += compressed;
      continue;
    }
    const std::shared_ptr<Chunk> raw = chunk.value();
    info.rawSize = raw->size;
    info.readable = true;
    chunks.push_back(info);
    for (uint64_t at = 0; at < raw->size;) {
      if (raw->size - at < 8 && std::all_of(raw->data() + at, raw->data() + raw->size,
                                            [](std::byte b) { return b == std::byte{0}; })) {
        break;  // padding
      }
      uint32_t messageSize = 0;
      auto message = verifyMessage(raw->data() + at, raw->size - at, messageSize);
      if (!message) {
        warn("byte ", offset, ": ", what, ": message at offset ", at, ": ", message.error().message,
             ": the rest of the chunk is skipped");
        break;
      }
      MessageInfo m{static_cast<uint8_t>(message.value()->body_type()), 0, chunkIndex,
                    static_cast<uint32_t>(at), messageSize};
      if (!messageFrame(*message.value(), m.frame)) m.frame = UINT64_MAX;  // filled in by finishMessages
      messages.push_back(m);
      at = schema::alignMessage(at + messageSize);
    }
    cachedChunk = chunkIndex;
    cached = raw;
    offset += compressed;
  }
}

// Frames in file order. A rebuilt index knows the frame of Frame, Resources and Marker messages from
// their bodies; the others (KeyLayouts, CaptureEnd) belong to the next frame, as the writer files them,
// and a CaptureEnd after the last frame to the frame after it.
void TraceReader::Impl::finishMessages() {
  uint64_t next = header.firstFrame;
  for (const MessageInfo& m : messages) {
    if (m.kind == static_cast<uint8_t>(fb::Body::Frame)) next = m.frame + 1;
  }
  for (size_t i = messages.size(); i-- > 0;) {
    MessageInfo& m = messages[i];
    if (m.kind == static_cast<uint8_t>(fb::Body::Frame)) {
      next = m.frame;
    } else if (m.frame == UINT64_MAX) {
      m.frame = next;
    }
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const MessageInfo& m = messages[i];
    if (m.kind == static_cast<uint8_t>(fb::Body::CaptureEnd)) complete = true;
    if (m.kind != static_cast<uint8_t>(fb::Body::Frame)) continue;
    if (!frames.empty() && m.frame <= messages[frames.back()].frame) {
      warn("frame ", m.frame, " (chunk ", m.chunk, ") comes after frame ", messages[frames.back()].frame,
           ": skipped");
      continue;
    }
    frameByNumber[m.frame] = frames.size();
    frames.push_back(static_cast<uint32_t>(i));
  }
}

std::string TraceReader::Impl::framesOfChunk(uint32_t chunk) const {
  // chunk == UINT32_MAX: every chunk so far.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const MessageInfo& m : messages) {
    if (m.kind != static_cast<uint8_t>(fb::Body::Frame) || (chunk != UINT32_MAX && m.chunk != chunk))
      continue;
    lo = std::min(lo, m.frame);
    hi = std::max(hi, m.frame);
  }
  if (lo == UINT64_MAX) return " (no frames)";
  return " (frames " + std::to_string(lo) + ".." + std::to_string(hi) + ")";
}

void TraceReader::Impl::recycleCached() {
  // use_count() == 1: no record keeps the chunk alive, and none can get hold of it but through us.
  if (cached && cached.use_count() == 1 && (!spare.bytes || cached->buffer.capacity > spare.capacity)) {
    spare = std::exchange(cached->buffer, {});
  }
  cached.reset();
  cachedChunk = UINT32_MAX;
}

Result<std::shared_ptr<const Chunk>> TraceReader::Impl::loadChunk(uint32_t chunk) {
  if (chunk == cachedChunk && cached) return std::shared_ptr<const Chunk>(cached);
  const ChunkInfo& c = chunks[chunk];
  const std::string what = "chunk " + std::to_string(chunk) + framesOfChunk(chunk);
  if (!c.readable) return at(c.offset, what, ": corrupt");
  // The index's sizes are claims: the frame must end exactly where the index says.
  const schema::ChunkDecompressor::Extent extent =
      schema::ChunkDecompressor::frameExtent(data() + c.offset, c.compressedSize);
  if (!extent.error.empty() || extent.bytes != c.compressedSize) {
    return at(c.offset, what, ": zstd frame does not span the ", c.compressedSize, " bytes the index gives",
              extent.error.empty() ? std::string() : " (" + extent.error + ")");
  }
  recycleCached();
  auto raw = decompress(c.offset, c.compressedSize, c.rawSize, what, true, options.maxChunkBytes);
  if (!raw) return raw.error();
  cachedChunk = chunk;
  cached = raw.value();
  return std::shared_ptr<const Chunk>(cached);
}

Result<const fb::Message*> TraceReader::Impl::message(size_t index, std::shared_ptr<const Chunk>& chunk) {
  const MessageInfo& m = messages[index];
  auto raw = loadChunk(m.chunk);
  if (!raw) return raw.error();
  chunk = raw.value();
  uint32_t size = 0;
  auto message = verifyMessage(chunk->data() + m.offset, m.size, size);
  if (!message || size != m.size) {
    return at(chunks[m.chunk].offset, "chunk ", m.chunk, ": message at offset ", m.offset, ": ",
              message ? "size differs from the index" : message.error().message);
  }
  if (static_cast<uint8_t>(message.value()->body_type()) != m.kind) {
    return at(chunks[m.chunk].offset, "chunk ", m.chunk, ": message at offset ", m.offset, " is not the ",
              messageKindName(m.kind), " the index says");
  }
  return message;
}

Result<void> TraceReader::Impl::load() {
  if (auto r = readHeader(); !r) return r;
  if (!readIndex()) scan();
  finishMessages();
  for (const ChunkInfo& c : chunks) {
    if (c.readable) largestChunk = std::max(largestChunk, c.rawSize);
  }
  // Key types first seen after the header: the header's layouts are not complete without them.
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].kind != static_cast<uint8_t>(fb::Body::KeyLayouts)) continue;
    std::shared_ptr<const Chunk> chunk;
    auto message = this->message(i, chunk);
    if (!message) {
      warnings.push_back(message.error().message);
      continue;
    }
    if (const auto* layouts = message.value()->body_as_KeyLayouts()) {
      if (auto r = addKeyLayouts(header, *layouts); !r)
        return at(chunks[messages[i].chunk].offset, "key layouts: ", r.error().message);
    }
  }
  return {};
}

// ---- TraceReader ----

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;
TraceReader::~TraceReader() = default;

Result<TraceReader> TraceReader::open(const std::string& path, const ReaderOptions& options) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(path, ": cannot open: ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return fail(path, ": cannot stat: ", std::strerror(error));
  }
  auto impl = std::make_unique<Impl>();
  impl->name = path;
  impl->options = options;
  if (st.st_size == 0) {
    impl->file = std::make_unique<FileBytes>();
  } else {
    void* mapped = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      return fail(path, ": cannot map: ", std::strerror(error));
    }
    impl->file = std::make_unique<FileBytes>(mapped, static_cast<size_t>(st.st_size));
  }
  ::close(fd);
  if (auto r = impl->load(); !r) return r.error();
  return TraceReader(std::move(impl));
}

Result<TraceReader> TraceReader::fromBytes(std::vector<std::byte> bytes, std::string name,
                                           const ReaderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->options = options;
  impl->file = std::make_unique<FileBytes>(std::move(bytes));
  if (auto r = impl->load(); !r) return r.error();
  return TraceReader(std::move(impl));
}

const std::string& TraceReader::name() const {
  return impl_->name;
}
const TraceHeader& TraceReader::header() const {
  return impl_->header;
}
const std::vector<std::string>& TraceReader::warnings() const {
  return impl_->warnings;
}
bool TraceReader::hasIndex() const {
  return impl_->hasIndex;
}
bool TraceReader::complete() const {
  return impl_->complete;
}
std::span<const ChunkInfo> TraceReader::chunks() const {
  return impl_->chunks;
}
std::span<const MessageInfo> TraceReader::messages() const {
  return impl_->messages;
}
size_t TraceReader::frameCount() const {
  return impl_->frames.size();
}
const TraceReader::DecompressStats& TraceReader::decompressStats() const {
  return impl_->decompressor.stats();
}

uint64_t TraceReader::frameNumber(size_t index) const {
  return impl_->messages[impl_->frames.at(index)].frame;
}

std::optional<size_t> TraceReader::findFrame(uint64_t number) const {
  const auto it = impl_->frameByNumber.find(number);
  if (it == impl_->frameByNumber.end()) return std::nullopt;
  return it->second;
}

Result<FrameRecord> TraceReader::readFrame(size_t index) {
  FrameRecord record;
  if (auto ok = readFrame(index, record); !ok) return ok.error();
  return record;
}

Result<void> TraceReader::readFrame(size_t index, FrameRecord& into) {
  if (index >= impl_->frames.size())
    return fail(impl_->name, ": no frame ", index, " (", impl_->frames.size(), " frames)");
  // Let go of the chunk the record held, so that its buffer can take the next chunk.
  into.keepAlive.reset();
  const size_t m = impl_->frames[index];
  std::shared_ptr<const Chunk> chunk;
  auto message = impl_->message(m, chunk);
  if (!message) return message.error();
  const MessageInfo& info = impl_->messages[m];
  const fb::Frame* frame = message.value()->body_as_Frame();
  if (!frame)
    return impl_->at(impl_->chunks[info.chunk].offset, "chunk ", info.chunk,
                     ": frame message without a body");
  if (auto ok = impl_->decoder.frame(*frame, impl_->header, chunk, into); !ok) {
    return impl_->at(impl_->chunks[info.chunk].offset, "chunk ", info.chunk, ": message at offset ",
                     info.offset, ": ", ok.error().message);
  }
  if (into.number != info.frame) {
    return impl_->at(impl_->chunks[info.chunk].offset, "chunk ", info.chunk, ": frame ", into.number,
                     " where the index has frame ", info.frame);
  }
  return {};
}

Result<std::vector<ResourcesRecord>> TraceReader::readResources() {
  std::vector<ResourcesRecord> out;
  for (size_t i = 0; i < impl_->messages.size(); ++i) {
    const MessageInfo& info = impl_->messages[i];
    if (info.kind != static_cast<uint8_t>(fb::Body::Resources)) continue;
    std::shared_ptr<const Chunk> chunk;
    auto message = impl_->message(i, chunk);
    if (!message) return message.error();
    const fb::Resources* resources = message.value()->body_as_Resources();
    if (!resources) continue;
    auto record = decodeResources(*resources, impl_->header, chunk);
    if (!record) {
      return impl_->at(impl_->chunks[info.chunk].offset, "chunk ", info.chunk, ": resources at offset ",
                       info.offset, ": ", record.error().message);
    }
    out.push_back(std::move(record.value()));
  }
  return out;
}

Result<std::vector<MarkerRecord>> TraceReader::readMarkers() {
  std::vector<MarkerRecord> out;
  for (size_t i = 0; i < impl_->messages.size(); ++i) {
    if (impl_->messages[i].kind != static_cast<uint8_t>(fb::Body::Marker)) continue;
    std::shared_ptr<const Chunk> chunk;
    auto message = impl_->message(i, chunk);
    if (!message) return message.error();
    if (const fb::Marker* marker = message.value()->body_as_Marker()) {
      out.push_back(MarkerRecord{marker->frame(), marker->text() ? marker->text()->str() : std::string()});
    }
  }
  return out;
}

Result<std::optional<CaptureEndRecord>> TraceReader::readCaptureEnd() {
  for (size_t i = impl_->messages.size(); i-- > 0;) {
    if (impl_->messages[i].kind != static_cast<uint8_t>(fb::Body::CaptureEnd)) continue;
    std::shared_ptr<const Chunk> chunk;
    auto message = impl_->message(i, chunk);
    if (!message) return message.error();
    if (const fb::CaptureEnd* end = message.value()->body_as_CaptureEnd()) {
      return std::optional<CaptureEndRecord>(
          CaptureEndRecord{end->frames(), end->render_waits(), end->render_wait_ns(),
                           end->reason() ? end->reason()->str() : std::string()});
    }
  }
  return std::optional<CaptureEndRecord>();
}

}  // namespace reel::trace
