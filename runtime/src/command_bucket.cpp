#include "reel/runtime/command_bucket.h"

#include <cstdio>
#include <cstdlib>

namespace reel {
namespace {

// Stream epochs and bucket ids come from one process-wide sequence, so that no two streams ever share
// an epoch: a thread cursor left over from another bucket or an earlier frame can never match.
std::atomic<uint64_t> gNextEpoch{1};
uint64_t nextEpoch() { return gNextEpoch.fetch_add(1, std::memory_order_relaxed); }

[[noreturn]] void outOfSpace(const std::string& bucket, const char* what) {
  std::fprintf(stderr, "reel: command bucket '%s' is out of %s for this frame (raise BucketConfig)\n", bucket.c_str(),
               what);
  std::abort();
}

}  // namespace

thread_local CommandBucketBase::ThreadCursor CommandBucketBase::threadCursors_[kCursorSlots];

BucketStream::BucketStream(const BucketConfig& config)
    : packets(config.packetBytes),
      keys(uint64_t{config.maxKeys} * sizeof(KeyEntry)) {}

size_t BucketStream::keyCount() const {
  size_t n = 0;
  for (uint32_t b = 0, count = keyBlockCount(); b < count; ++b) n += keyBlockFill(b);
  return n;
}

CommandBucketBase::CommandBucketBase(std::string name, const char* keyTypeName, const BucketConfig& config)
    : name_(std::move(name)), keyTypeName_(keyTypeName), config_(config), id_(nextEpoch()) {
  REEL_ASSERT(config.maxKeys % BucketStream::kKeyBlockEntries == 0, "maxKeys must be a multiple of BucketStream::kKeyBlockEntries");
  current_ = &acquireFreeStream();
  resetStream(*current_);
}

CommandBucketBase::~CommandBucketBase() = default;

void CommandBucketBase::resetStream(BucketStream& stream) {
  stream.epoch = nextEpoch();
  stream.packets.reset(8);  // offset 0 means "none" in headers
  stream.keys.reset(0);
}

BucketStream& CommandBucketBase::acquireFreeStream() {
  for (auto& stream : streams_) {
    if (!stream) {
      stream = std::make_unique<BucketStream>(config_);
      return *stream;
    }
    if (stream.get() != current_ && stream->references.load(std::memory_order_acquire) == 0) return *stream;
  }
  REEL_ASSERT(false, "no free bucket stream: more frames in flight than kMaxFramesInFlight");
  std::abort();
}

BucketStream& CommandBucketBase::handOver() {
  BucketStream& recorded = *current_;
  recorded.references.fetch_add(1, std::memory_order_relaxed);
  if (!retained_) {
    current_ = &acquireFreeStream();
    resetStream(*current_);
  }
  return recorded;
}

void CommandBucketBase::setRetained(bool retained) {
  if (retained_ && !retained) {
    current_ = &acquireFreeStream();
    resetStream(*current_);
  }
  retained_ = retained;
}

uint32_t CommandBucketBase::allocatePacket(uint32_t payloadBytes, uint32_t auxBytes, CommandType type) {
  return allocateIn(cursorFor(), payloadBytes, auxBytes, static_cast<uint16_t>(type));
}

void CommandBucketBase::refillPackets(ThreadCursor& cursor, uint32_t need) {
  uint32_t block = cursor.nextBlockBytes;
  if (block < BucketStream::kMaxPacketBlockBytes) cursor.nextBlockBytes = block * 2;
  if (need > block) block = need;
  const uint32_t offset = current_->packets.claim(block);
  if (offset == VirtualArena::kNoSpace) outOfSpace(name_, "packet memory");
  cursor.packetPos = offset;
  cursor.packetEnd = offset + block;
}

void CommandBucketBase::refillKeys(ThreadCursor& cursor) {
  constexpr uint32_t kBlockBytes = BucketStream::kKeyBlockEntries * sizeof(KeyEntry);
  const uint32_t offset = current_->keys.claim(kBlockBytes);
  if (offset == VirtualArena::kNoSpace) outOfSpace(name_, "keys");
  const uint32_t first = offset / sizeof(KeyEntry);
  std::memset(current_->keys.at<KeyEntry>(offset), 0, kBlockBytes);
  cursor.keyPos = first;
  cursor.keyEnd = first + BucketStream::kKeyBlockEntries;
}

void CommandBucketBase::linkAfter(PacketHeader& previous, uint32_t offset) {
  REEL_ASSERT(previous.next == 0, "append: the previous packet already has a packet appended");
  previous.next = offset;
}

namespace {
void fillPacket(std::byte* base, uint32_t offset, std::span<const std::byte> payload, std::span<const std::byte> aux) {
  const PacketHeader& h = *reinterpret_cast<const PacketHeader*>(base + offset);
  std::memcpy(base + offset + sizeof(PacketHeader), payload.data(), payload.size());
  if (!aux.empty()) std::memcpy(base + h.auxOffset, aux.data(), aux.size());
}
}  // namespace

PacketHeader& CommandBucketBase::addBytes(uint64_t keyBits, CommandType type, std::span<const std::byte> payload,
                                          std::span<const std::byte> aux) {
  REEL_ASSERT(type < CommandType::Count && payload.size() == commandInfo(type).size, "addBytes: wrong payload size");
  const uint32_t offset =
      addPacket(keyBits, static_cast<uint32_t>(payload.size()), static_cast<uint32_t>(aux.size()), type);
  fillPacket(current_->packets.base(), offset, payload, aux);
  return *current_->packets.at<PacketHeader>(offset);
}

PacketHeader& CommandBucketBase::appendBytes(PacketHeader& previous, CommandType type,
                                             std::span<const std::byte> payload, std::span<const std::byte> aux) {
  REEL_ASSERT(type < CommandType::Count && payload.size() == commandInfo(type).size, "appendBytes: wrong payload size");
  const uint32_t offset =
      allocatePacket(static_cast<uint32_t>(payload.size()), static_cast<uint32_t>(aux.size()), type);
  fillPacket(current_->packets.base(), offset, payload, aux);
  linkAfter(previous, offset);
  return *current_->packets.at<PacketHeader>(offset);
}

PacketHeader& CommandBucketBase::createSharedBytes(CommandType type, std::span<const std::byte> payload,
                                                   std::span<const std::byte> aux) {
  REEL_ASSERT(type < CommandType::Count && payload.size() == commandInfo(type).size,
              "createSharedBytes: wrong payload size");
  const uint32_t offset =
      allocatePacket(static_cast<uint32_t>(payload.size()), static_cast<uint32_t>(aux.size()), type);
  fillPacket(current_->packets.base(), offset, payload, aux);
  return *current_->packets.at<PacketHeader>(offset);
}

PacketHeader& CommandBucketBase::addSharedBytes(uint64_t keyBits, const PacketHeader& shared) {
  const uint32_t sharedOffset =
      static_cast<uint32_t>(reinterpret_cast<const std::byte*>(&shared) - current_->packets.base());
  ThreadCursor& cursor = cursorFor();
  const uint32_t ref = allocateIn(cursor, sizeof(uint32_t), 0, shared.type);
  PacketHeader& h = *current_->packets.at<PacketHeader>(ref);
  h.flags = PacketHeader::kSharedRef;
  std::memcpy(current_->packets.base() + ref + sizeof(PacketHeader), &sharedOffset, sizeof(sharedOffset));
  pushKey(cursor, keyBits, ref);
  return h;
}

#if REEL_ENABLE_TAGS
void CommandBucketBase::tagBytes(PacketHeader& packet, SourceLocation where, std::string_view message) {
  tag(reinterpret_cast<std::byte*>(&packet) + sizeof(PacketHeader), where, message);
}

void CommandBucketBase::tag(const void* packetPayload, SourceLocation where, std::string_view message) {
  ThreadCursor& cursor = cursorFor();
  const uint32_t messageBytes = static_cast<uint32_t>(message.size());
  const uint32_t need = (static_cast<uint32_t>(sizeof(TagRecord)) + messageBytes + 7u) & ~7u;
  if (cursor.packetEnd - cursor.packetPos < need) refillPackets(cursor, need);
  const uint32_t offset = cursor.packetPos;
  cursor.packetPos += need;
  auto* record = current_->packets.at<TagRecord>(offset);
  *record = TagRecord{where.file, where.function, where.line, messageBytes};
  std::memcpy(record + 1, message.data(), messageBytes);
  headerOf(packetPayload).tag = offset;
}
#endif

}  // namespace reel
