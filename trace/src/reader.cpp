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
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "decode.h"
#include "reel/schema/checksum.h"
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
// Buffers of chunks nothing refers to any more, for the next chunks: a fresh multi-megabyte allocation
// is fresh pages, and faulting them in cost as much as decompressing into them. A chunk gives its buffer
// back when its last holder lets go, which may be after the reader moved on (a replay's read-ahead keeps
// several frames, each holding its chunk) and on another thread: hence a shared list under a lock.
struct SpareBuffers {
  static constexpr size_t kMax = 2;
  std::mutex mutex;
  std::vector<ChunkBuffer> buffers;
};
struct Chunk {
  ChunkBuffer buffer;
  uint64_t size = 0;  // bytes decompressed into it
  std::shared_ptr<SpareBuffers> home;
  const std::byte* data() const { return buffer.bytes.get(); }
  Chunk() = default;
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;
  ~Chunk() {
    if (!home || !buffer.bytes) return;
    std::lock_guard lock(home->mutex);
    if (home->buffers.size() < SpareBuffers::kMax) home->buffers.push_back(std::move(buffer));
  }
};

// One chunk read on its own, from its zstd frame alone: what a scan finds there.
struct ChunkScan {
  ChunkInfo info;  // readable: false when it does not decompress
  std::vector<MessageInfo> messages;
  std::shared_ptr<Chunk> raw;
  std::string problem;  // the warning: why it is unreadable, or where its walk stopped; empty: read whole
};

// The 'what' of a special file given as a trace.
const char* fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

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
  std::shared_ptr<SpareBuffers> spares = std::make_shared<SpareBuffers>();
  // The largest chunk the index (or scan) names: chunk buffers are allocated this large, so that any
  // chunk fits the spare and a replay moving from chunk to chunk allocates once.
  uint64_t largestChunk = 0;
  Decoder decoder;
  // The chunk in which the last read through the index failed (UINT32_MAX: none, or not in a chunk):
  // where to look whether the index or the chunk is to blame.
  uint32_t failedChunk = UINT32_MAX;
  // Where the footer says the index frame starts (UINT64_MAX: no footer): a scan that reaches it finds
  // the index frame, whose damage readIndex has already reported, and not another chunk.
  uint64_t indexFrameStart = UINT64_MAX;

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
  ChunkScan scanChunk(uint64_t offset, uint64_t compressedSize, uint32_t chunk);
  // The start of the first zstd frame at or after `from` that decompresses whole, checksum and all:
  // where a scan goes on after a damaged chunk.
  std::optional<uint64_t> nextWholeChunk(uint64_t from);
  void finishMessages();
  // Whether chunk `chunk`, read on its own, says something other than the index does (why, if so): a
  // chunk that does not read on its own is damaged itself, and the index is not to blame.
  std::optional<std::string> disagreement(uint32_t chunk);
  // Drops the index for a scan of the chunks.
  void rebuildIndex(uint32_t chunk, const std::string& why);
  // Runs `read`, which reads through the index; when it fails in a chunk the index misdescribes, the
  // index is rebuilt and `read` runs again (message and frame positions may have changed: `read` looks
  // them up afresh).
  template <typename Read>
  auto withIndexFallback(Read&& read) -> decltype(read());
  Result<void> readKeyLayouts();
  Result<void> readFrameAt(size_t index, FrameRecord& into);
  // A frame encoded against the frames before it in its chunk (format 1.3) needs them decoded first.
  Result<void> decodeFramesBefore(size_t index, uint32_t chunk);
  FrameRecord scratchFrame;  // what decodeFramesBefore decodes into
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
  chunk->home = spares;
  {
    std::lock_guard lock(spares->mutex);
    auto fits = std::find_if(spares->buffers.begin(), spares->buffers.end(),
                             [&](const ChunkBuffer& b) { return b.capacity >= capacity; });
    if (fits != spares->buffers.end()) {
      chunk->buffer = std::move(*fits);
      spares->buffers.erase(fits);
    }
  }
  if (!chunk->buffer.bytes) {
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
  indexFrameStart = start;
  if (schema::loadLE32(data() + start) != schema::kIndexFrameMagic ||
      schema::loadLE32(data() + start + 4) != indexBytes + schema::kFooterBytes) {
    return invalid(start, "its skippable frame header does not match the footer");
  }
  // Format 1.0 wrote no checksum (container.h): load() compares its index with every chunk instead.
  if (header.formatMinor >= 1) {
    const uint32_t stored = schema::loadLE32(data() + footer + 4);
    const uint32_t computed = schema::crc32(data() + start + schema::kSkippableHeaderBytes, indexBytes);
    if (stored != computed) return invalid(footer + 4, "checksum mismatch");
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
  // What the writer does, and so what the index must say (a scan is never wrong, only slower, so an
  // index that breaks any of these is not used): a chunk's messages lie back to back, each at the next
  // aligned offset after the one before, and fill the chunk; no chunk is empty; frames come in
  // increasing order; and a trace this reader's version or older holds no message kind it does not know.
  const bool newerMinor = header.formatMinor > schema::kFormatMinor;
  uint32_t chunk = 0;
  uint64_t end = 0;  // of the message before, aligned
  std::optional<uint64_t> lastFrame;
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
      if (m.chunk != chunk && !(m.chunk == chunk + 1 && i > 0 && end == chunks[chunk].rawSize)) {
        return invalid(start, "message ", i, " is in chunk ", m.chunk, " after a message of chunk ", chunk,
                       " that ends at ", end, " of its ", chunks[chunk].rawSize, " bytes");
      }
      if (m.chunk != chunk) {
        chunk = m.chunk;
        end = 0;
      }
      if (m.offset != end) {
        return invalid(start, "message ", i, " starts at offset ", m.offset, " of chunk ", m.chunk,
                       ", the message before it ends at ", end);
      }
      end = schema::alignMessage(uint64_t{m.offset} + m.size);
      const auto kind = static_cast<fb::Body>(m.kind);
      if (kind == fb::Body::NONE || kind == fb::Body::Header || kind == fb::Body::Index ||
          (m.kind > static_cast<uint8_t>(fb::Body::MAX) && !newerMinor)) {
        return invalid(start, "message ", i, " is of kind ", messageKindName(m.kind));
      }
      if (kind == fb::Body::Frame) {
        if (lastFrame && m.frame <= *lastFrame)
          return invalid(start, "message ", i, ": frame ", m.frame, " after frame ", *lastFrame);
        lastFrame = m.frame;
      }
      messages.push_back(m);
    }
  }
  if (messages.empty() ? !chunks.empty() : chunk + 1 != chunks.size() || end != chunks.back().rawSize) {
    return invalid(start, "its messages end at offset ", end, " of chunk ", chunk,
                   ", not at the end of chunk ", chunks.size() - 1);
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
    // (Unless the footer itself lied: a zstd frame there is a chunk, and read as one.)
    if (offset == indexFrameStart && magic != schema::kZstdFrameMagic) break;
    if ((magic & schema::kSkippableMagicMask) == schema::kSkippableMagicBase) {
      const uint64_t length = schema::kSkippableHeaderBytes + uint64_t{schema::loadLE32(data() + offset + 4)};
      if (length > remaining) {
        warn("byte ", offset, ": skippable frame cut short: the file ends inside it");
        break;
      }
      offset += length;  // the (unreadable) index, or a frame of a newer writer
      continue;
    }
    const schema::ChunkDecompressor::Extent extent =
        magic == schema::kZstdFrameMagic ? schema::ChunkDecompressor::frameExtent(data() + offset, remaining)
                                         : schema::ChunkDecompressor::Extent{};
    if (magic != schema::kZstdFrameMagic || !extent.error.empty()) {
      // A damaged frame header, or the end of a file cut short: whole chunks after it mean the former.
      if (const std::optional<uint64_t> next = nextWholeChunk(offset + 1)) {
        warn("byte ", offset, ": chunk ", chunkIndex, " is damaged (",
             magic != schema::kZstdFrameMagic ? "not a zstd frame" : extent.error, "): its frames are lost; ",
             "reading goes on with the next whole chunk, at byte ", *next);
        chunks.push_back(ChunkInfo{offset, *next - offset, 0, false});
        offset = *next;
        continue;
      }
      if (magic != schema::kZstdFrameMagic) {
        warn("byte ", offset, ": not a zstd frame where chunk ", chunkIndex,
             " should start: the rest of the file is ignored");
        break;
      }
      std::string readable = chunkIndex == 0 ? "no chunk is readable"
                                             : "chunks 0.." + std::to_string(chunkIndex - 1) +
                                                   framesOfChunk(UINT32_MAX) + " are readable";
      warn("byte ", offset, ": truncated in chunk ", chunkIndex, " (", extent.error, "): ", readable);
      break;
    }
    recycleCached();
    ChunkScan chunk = scanChunk(offset, extent.bytes, chunkIndex);
    if (!chunk.problem.empty()) warnings.push_back(std::move(chunk.problem));
    chunks.push_back(chunk.info);
    messages.insert(messages.end(), chunk.messages.begin(), chunk.messages.end());
    if (chunk.raw) {
      cachedChunk = chunkIndex;
      cached = std::move(chunk.raw);
    }
    offset += extent.bytes;
  }
}

std::optional<uint64_t> TraceReader::Impl::nextWholeChunk(uint64_t from) {
  const uint8_t magic[4] = {0x28, 0xB5, 0x2F, 0xFD};  // kZstdFrameMagic, little-endian
  static_assert(schema::kZstdFrameMagic == 0xFD2FB528u);
  const auto* bytes = reinterpret_cast<const uint8_t*>(data());
  for (uint64_t at = from; at + 4 <= size();) {
    const uint8_t* found = std::search(bytes + at, bytes + size(), magic, magic + 4);
    if (found == bytes + size()) break;
    at = static_cast<uint64_t>(found - bytes);
    const schema::ChunkDecompressor::Extent extent =
        schema::ChunkDecompressor::frameExtent(data() + at, size() - at);
    if (extent.error.empty()) {
      recycleCached();
      // Whole means it decompresses and its content checksum holds: four bytes of compressed data that
      // happen to read as a frame's magic never pass that.
      const ChunkScan chunk = scanChunk(at, extent.bytes, UINT32_MAX);
      if (chunk.info.readable) return at;
    }
    ++at;
  }
  return std::nullopt;
}

ChunkScan TraceReader::Impl::scanChunk(uint64_t offset, uint64_t compressedSize, uint32_t chunkIndex) {
  ChunkScan out;
  out.info = ChunkInfo{offset, compressedSize, 0, false};
  const std::string what = "chunk " + std::to_string(chunkIndex);
  const std::optional<uint64_t> bound =
      schema::ChunkDecompressor::contentBound(data() + offset, compressedSize);
  if (!bound || *bound > options.maxChunkBytes) {
    out.problem = at(offset, what, ": implausible size: its frames are skipped").message;
    return out;
  }
  auto chunk = decompress(offset, compressedSize, *bound, what, false, options.maxChunkBytes);
  if (!chunk) {
    out.problem = chunk.error().message + ": its frames are skipped";
    return out;
  }
  out.raw = std::move(chunk.value());
  const Chunk& raw = *out.raw;
  out.info.rawSize = raw.size;
  out.info.readable = true;
  for (uint64_t at = 0; at < raw.size;) {
    if (raw.size - at < 8 &&
        std::all_of(raw.data() + at, raw.data() + raw.size, [](std::byte b) { return b == std::byte{0}; })) {
      break;  // padding
    }
    uint32_t messageSize = 0;
    auto message = verifyMessage(raw.data() + at, raw.size - at, messageSize);
    if (!message) {
      out.problem = this->at(offset, what, ": message at offset ", at, ": ", message.error().message,
                             ": the rest of the chunk is skipped")
                        .message;
      break;
    }
    MessageInfo m{static_cast<uint8_t>(message.value()->body_type()), 0, chunkIndex,
                  static_cast<uint32_t>(at), messageSize};
    if (!messageFrame(*message.value(), m.frame)) m.frame = UINT64_MAX;  // filled in by finishMessages
    out.messages.push_back(m);
    at = schema::alignMessage(at + messageSize);
  }
  return out;
}

std::optional<std::string> TraceReader::Impl::disagreement(uint32_t chunk) {
  const ChunkInfo c = chunks[chunk];
  const schema::ChunkDecompressor::Extent extent =
      schema::ChunkDecompressor::frameExtent(data() + c.offset, size() - c.offset);
  // Only a chunk that is whole on its own can prove the index wrong. A damaged one is the chunk's fault:
  // blaming the index would trade it for a scan, which stops at a damaged frame header and so could lose
  // every chunk after it. (Its extent cannot make the index wrong either: readIndex checked that the
  // chunks follow each other up to the index frame, so a frame of another length is a damaged one.)
  if (!extent.error.empty() || extent.bytes != c.compressedSize) return std::nullopt;
  recycleCached();
  ChunkScan scanned = scanChunk(c.offset, extent.bytes, chunk);
  if (!scanned.info.readable || !scanned.problem.empty()) return std::nullopt;
  if (scanned.info.rawSize != c.rawSize)
    return fail("it decompresses to ", scanned.info.rawSize, " bytes, the index says ", c.rawSize).message;
  std::vector<const MessageInfo*> indexed;
  for (const MessageInfo& m : messages) {
    if (m.chunk == chunk) indexed.push_back(&m);
  }
  for (size_t i = 0; i < indexed.size() || i < scanned.messages.size(); ++i) {
    if (i >= scanned.messages.size() || i >= indexed.size())
      return fail("it holds ", scanned.messages.size(), " messages, the index lists ", indexed.size())
          .message;
    const MessageInfo& s = scanned.messages[i];
    const MessageInfo& m = *indexed[i];
    if (s.offset != m.offset || s.size != m.size) {
      return fail("its message ", i, " lies at offset ", s.offset, " (", s.size, " bytes), the index says ",
                  m.offset, " (", m.size, " bytes)")
          .message;
    }
    if (s.kind != m.kind) {
      return fail("its message ", i, " is a ", messageKindName(s.kind), ", the index says ",
                  messageKindName(m.kind))
          .message;
    }
    if (s.frame != UINT64_MAX && s.frame != m.frame)
      return fail("its message ", i, " is of frame ", s.frame, ", the index says frame ", m.frame).message;
  }
  // The index's numbering is the scan's, so the chunk is kept for the read that comes next.
  cachedChunk = chunk;
  cached = std::move(scanned.raw);
  return std::nullopt;
}

void TraceReader::Impl::rebuildIndex(uint32_t chunk, const std::string& why) {
  warn("byte ", chunks[chunk].offset, ": the index disagrees with chunk ", chunk, " (", why,
       "): rebuilt by reading the chunks");
  // Frame positions change with the list: what the decoder kept to restore predicted frames is stale.
  decoder.forgetHistory();
  chunks.clear();
  messages.clear();
  frames.clear();
  frameByNumber.clear();
  hasIndex = false;
  complete = false;
  recycleCached();
  scan();
  finishMessages();
}

template <typename Read>
auto TraceReader::Impl::withIndexFallback(Read&& read) -> decltype(read()) {
  failedChunk = UINT32_MAX;
  auto result = read();
  if (result || !hasIndex || failedChunk == UINT32_MAX) return result;
  const std::optional<std::string> why = disagreement(failedChunk);
  if (!why) return result;
  rebuildIndex(failedChunk, *why);
  return read();
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
  for (const ChunkInfo& c : chunks) {
    if (c.readable) largestChunk = std::max(largestChunk, c.rawSize);
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
  // Its buffer goes back to the spares once no record holds it any more (Chunk's destructor).
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
  failedChunk = m.chunk;  // until it is read
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
  if (uint64_t frame = 0; messageFrame(*message.value(), frame) && frame != m.frame) {
    return at(chunks[m.chunk].offset, "chunk ", m.chunk, ": ", messageKindName(m.kind), " of frame ", frame,
              " where the index has frame ", m.frame);
  }
  failedChunk = UINT32_MAX;
  return message;
}

Result<void> TraceReader::Impl::readKeyLayouts() {
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].kind != static_cast<uint8_t>(fb::Body::KeyLayouts)) continue;
    std::shared_ptr<const Chunk> chunk;
    failedChunk = UINT32_MAX;
    auto message = this->message(i, chunk);
    if (!message && hasIndex && failedChunk != UINT32_MAX) {
      if (const std::optional<std::string> why = disagreement(failedChunk)) {
        rebuildIndex(failedChunk, *why);
        // Positions changed: again from the start, on the scan (layouts already added are not added
        // twice: addKeyLayouts goes by key type).
        return readKeyLayouts();
      }
    }
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

Result<void> TraceReader::Impl::load() {
  if (auto r = readHeader(); !r) return r;
  if (!readIndex()) {
    scan();
    finishMessages();
  } else {
    if (header.formatMinor == 0) {
      // Format 1.0 wrote no checksum, and a byte changed in its index can still pass every check of
      // readIndex (issue 17 lost frames to one: "frame 2 where the index has frame 56834"), or call a
      // frame another kind of message, so that nothing ever reads it. So each chunk is read once and
      // compared with the index before the index is used: a 1.0 trace opens at the cost of
      // decompressing it, and loses no frame to its index.
      for (uint32_t c = 0; c < chunks.size(); ++c) {
        if (const std::optional<std::string> why = disagreement(c)) {
          rebuildIndex(c, *why);  // finishes the scan's messages
          break;
        }
      }
    }
    if (hasIndex) finishMessages();
  }
  // Key types first seen after the header: the header's layouts are not complete without them.
  return readKeyLayouts();
}

// ---- TraceReader ----

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;
TraceReader::~TraceReader() = default;

Result<TraceReader> TraceReader::open(const std::string& path, const ReaderOptions& options) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever. It changes
  // nothing for a regular file, and anything else is refused before a byte is read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(path, ": cannot open: ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return fail(path, ": cannot stat: ", std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) return fail(path, ": is a directory, not a trace");
    return fail(path, ": not a regular file (", fileKind(st.st_mode),
                "): a trace is read from a file (save a piped trace to one first)");
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
  // After a rebuild, `index` counts the rebuilt list of frames.
  return impl_->withIndexFallback([&] { return impl_->readFrameAt(index, into); });
}

Result<void> TraceReader::Impl::decodeFramesBefore(size_t index, uint32_t chunk) {
  // From the chunk's first frame (never predicted), or from where the decoder stands in this chunk.
  size_t from = index;
  while (from > 0 && messages[frames[from - 1]].chunk == chunk) --from;
  if (decoder.last.chunk == chunk && decoder.last.position >= from && decoder.last.position < index)
    from = decoder.last.position + 1;
  for (size_t k = from; k < index; ++k) {
    std::shared_ptr<const Chunk> held;
    auto message = this->message(frames[k], held);
    if (!message) return message.error();
    const fb::Frame* frame = message.value()->body_as_Frame();
    if (!frame) return at(chunks[chunk].offset, "chunk ", chunk, ": frame message without a body");
    if (auto ok = decoder.frame(*frame, header, held, scratchFrame, FramePlace{k, chunk}); !ok) {
      return at(chunks[chunk].offset, "chunk ", chunk, ": message at offset ", messages[frames[k]].offset,
                ": ", ok.error().message);
    }
    scratchFrame.keepAlive.reset();
  }
  return {};
}

Result<void> TraceReader::Impl::readFrameAt(size_t index, FrameRecord& into) {
  if (index >= frames.size()) return fail(name, ": no frame ", index, " (", frames.size(), " frames)");
  // Let go of the chunk the record held, so that its buffer can take the next chunk.
  into.keepAlive.reset();
  const size_t m = frames[index];
  std::shared_ptr<const Chunk> chunk;
  auto message = this->message(m, chunk);
  if (!message) return message.error();
  const MessageInfo& info = messages[m];
  failedChunk = info.chunk;  // until decoded
  const fb::Frame* frame = message.value()->body_as_Frame();
  if (!frame) return at(chunks[info.chunk].offset, "chunk ", info.chunk, ": frame message without a body");
  const FramePlace place{index, info.chunk};
  if (Decoder::predicted(*frame) && !decoder.follows(place)) {
    if (auto ok = decodeFramesBefore(index, info.chunk); !ok) return ok;
  }
  if (auto ok = decoder.frame(*frame, header, chunk, into, place); !ok) {
    return at(chunks[info.chunk].offset, "chunk ", info.chunk, ": message at offset ", info.offset, ": ",
              ok.error().message);
  }
  if (into.number != info.frame) {
    return at(chunks[info.chunk].offset, "chunk ", info.chunk, ": frame ", into.number,
              " where the index has frame ", info.frame);
  }
  failedChunk = UINT32_MAX;
  return {};
}

Result<std::vector<ResourcesRecord>> TraceReader::readResources() {
  Impl& s = *impl_;
  return s.withIndexFallback([&]() -> Result<std::vector<ResourcesRecord>> {
    std::vector<ResourcesRecord> out;
    for (size_t i = 0; i < s.messages.size(); ++i) {
      const MessageInfo& info = s.messages[i];
      if (info.kind != static_cast<uint8_t>(fb::Body::Resources)) continue;
      std::shared_ptr<const Chunk> chunk;
      auto message = s.message(i, chunk);
      if (!message) return message.error();
      const fb::Resources* resources = message.value()->body_as_Resources();
      if (!resources) continue;
      auto record = decodeResources(*resources, s.header, chunk);
      if (!record) {
        s.failedChunk = info.chunk;
        return s.at(s.chunks[info.chunk].offset, "chunk ", info.chunk, ": resources at offset ", info.offset,
                    ": ", record.error().message);
      }
      out.push_back(std::move(record.value()));
    }
    return out;
  });
}

std::vector<size_t> TraceReader::keyFrames() const {
  const Impl& s = *impl_;
  const auto keyFrame = static_cast<uint8_t>(fb::Body::KeyFrame);
  std::vector<size_t> out;
  for (size_t i = 0; i < s.messages.size(); ++i) {
    const MessageInfo& m = s.messages[i];
    if (m.kind != keyFrame || (i > 0 && s.messages[i - 1].kind == keyFrame)) continue;
    // A key frame's messages start a chunk and come right before its frame's (trace.fbs): whole when no
    // chunk from there to its frame is unreadable (a scan does not know the messages of a damaged chunk,
    // so a part could be missing unseen).
    const auto found = s.frameByNumber.find(m.frame);
    if (found == s.frameByNumber.end() || (i > 0 && s.messages[i - 1].chunk == m.chunk) || m.offset != 0)
      continue;
    const uint32_t to = s.messages[s.frames[found->second]].chunk;
    bool whole = m.chunk <= to;
    for (uint32_t c = m.chunk; whole && c <= to; ++c) whole = s.chunks[c].readable;
    if (whole && (out.empty() || out.back() < found->second)) out.push_back(found->second);
  }
  return out;
}

Result<std::vector<ResourcesRecord>> TraceReader::readKeyFrame(size_t index) {
  Impl& s = *impl_;
  if (index >= s.frames.size()) return fail(s.name, ": no frame ", index, " (", s.frames.size(), " frames)");
  return s.withIndexFallback([&]() -> Result<std::vector<ResourcesRecord>> {
    const uint64_t number = s.messages[s.frames[index]].frame;
    std::vector<ResourcesRecord> out;
    for (size_t i = 0; i < s.messages.size(); ++i) {
      const MessageInfo& info = s.messages[i];
      if (info.kind != static_cast<uint8_t>(fb::Body::KeyFrame) || info.frame != number) continue;
      std::shared_ptr<const Chunk> chunk;
      auto message = s.message(i, chunk);
      if (!message) return message.error();
      const fb::Resources* resources = message.value()->body_as_KeyFrame();
      if (!resources) continue;
      auto record = decodeResources(*resources, s.header, chunk);
      if (!record) {
        s.failedChunk = info.chunk;
        return s.at(s.chunks[info.chunk].offset, "chunk ", info.chunk, ": key frame at offset ", info.offset,
                    ": ", record.error().message);
      }
      out.push_back(std::move(record.value()));
    }
    if (out.empty()) return fail(s.name, ": frame ", number, " has no key frame");
    return out;
  });
}

Result<std::vector<MarkerRecord>> TraceReader::readMarkers() {
  Impl& s = *impl_;
  return s.withIndexFallback([&]() -> Result<std::vector<MarkerRecord>> {
    std::vector<MarkerRecord> out;
    for (size_t i = 0; i < s.messages.size(); ++i) {
      if (s.messages[i].kind != static_cast<uint8_t>(fb::Body::Marker)) continue;
      std::shared_ptr<const Chunk> chunk;
      auto message = s.message(i, chunk);
      if (!message) return message.error();
      if (const fb::Marker* marker = message.value()->body_as_Marker()) {
        out.push_back(MarkerRecord{marker->frame(), marker->text() ? marker->text()->str() : std::string()});
      }
    }
    return out;
  });
}

Result<std::optional<CaptureEndRecord>> TraceReader::readCaptureEnd() {
  Impl& s = *impl_;
  return s.withIndexFallback([&]() -> Result<std::optional<CaptureEndRecord>> {
    for (size_t i = s.messages.size(); i-- > 0;) {
      if (s.messages[i].kind != static_cast<uint8_t>(fb::Body::CaptureEnd)) continue;
      std::shared_ptr<const Chunk> chunk;
      auto message = s.message(i, chunk);
      if (!message) return message.error();
      if (const fb::CaptureEnd* end = message.value()->body_as_CaptureEnd()) {
        return std::optional<CaptureEndRecord>(
            CaptureEndRecord{end->frames(), end->render_waits(), end->render_wait_ns(),
                             end->reason() ? end->reason()->str() : std::string()});
      }
    }
    return std::optional<CaptureEndRecord>();
  });
}

}  // namespace reel::trace
