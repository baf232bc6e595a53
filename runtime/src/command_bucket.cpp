#include "reel/runtime/command_bucket.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "material_passes.h"

namespace reel {
namespace {

// Stream epochs and bucket ids come from one process-wide sequence, so that no two streams ever share
// an epoch: a thread cursor left over from another bucket or an earlier frame can never match.
std::atomic<uint64_t> gNextEpoch{1};
uint64_t nextEpoch() {
  return gNextEpoch.fetch_add(1, std::memory_order_relaxed);
}

[[noreturn]] void outOfSpace(const std::string& bucket, const char* what) {
  std::fprintf(stderr, "reel: command bucket '%s' is out of %s for this frame (raise BucketConfig)\n",
               bucket.c_str(), what);
  std::abort();
}

}  // namespace

constinit thread_local CommandBucketBase::ThreadCursor CommandBucketBase::threadCursors_[kCursorSlots];

BucketStream::BucketStream(const BucketConfig& config)
    : packets(config.packetBytes), keys(uint64_t{config.maxKeys} * sizeof(KeyEntry)) {}

size_t BucketStream::keyCount() const {
  size_t n = 0;
  for (uint32_t b = 0, count = keyBlockCount(); b < count; ++b) n += keyBlockFill(b);
  return n;
}

CommandBucketBase::CommandBucketBase(std::string name, const char* keyTypeName, const BucketConfig& config)
    : name_(std::move(name)), keyTypeName_(keyTypeName), config_(config), id_(nextEpoch()) {
  REEL_ASSERT(config.maxKeys % BucketStream::kKeyBlockEntries == 0,
              "maxKeys must be a multiple of BucketStream::kKeyBlockEntries");
  current_ = &acquireFreeStream();
  resetStream(*current_);
}

CommandBucketBase::~CommandBucketBase() = default;

void CommandBucketBase::resetStream(BucketStream& stream) {
  stream.epoch = nextEpoch();
  stream.packets.reset(8);  // offset 0 means "none" in headers
  stream.keys.reset(0);
  stream.binder = nullptr;
  stream.handedOver = false;
  stream.passesExpanded = false;
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
  // A retained stream keeps its first binder: the render thread may be reading it for an earlier frame.
  if (!recorded.handedOver) {
    recorded.handedOver = true;
    recorded.binder = binder_;
  }
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
void fillPacket(std::byte* base, uint32_t offset, std::span<const std::byte> payload,
                std::span<const std::byte> aux) {
  const PacketHeader& h = *reinterpret_cast<const PacketHeader*>(base + offset);
  std::memcpy(base + offset + sizeof(PacketHeader), payload.data(), payload.size());
  if (!aux.empty()) std::memcpy(base + h.auxOffset, aux.data(), aux.size());
}
}  // namespace

PacketHeader& CommandBucketBase::addBytes(uint64_t keyBits, CommandType type,
                                          std::span<const std::byte> payload, std::span<const std::byte> aux,
                                          PassId pass) {
  REEL_ASSERT(type < CommandType::Count && payload.size() == commandInfo(type).size,
              "addBytes: wrong payload size");
  const uint32_t offset = addPacket(keyBits, pass, static_cast<uint32_t>(payload.size()),
                                    static_cast<uint32_t>(aux.size()), type);
  fillPacket(current_->packets.base(), offset, payload, aux);
  return *current_->packets.at<PacketHeader>(offset);
}

PacketHeader& CommandBucketBase::appendBytes(PacketHeader& previous, CommandType type,
                                             std::span<const std::byte> payload,
                                             std::span<const std::byte> aux) {
  REEL_ASSERT(type < CommandType::Count && payload.size() == commandInfo(type).size,
              "appendBytes: wrong payload size");
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

PacketHeader& CommandBucketBase::addSharedBytes(uint64_t keyBits, const PacketHeader& shared, PassId pass) {
  const uint32_t sharedOffset =
      static_cast<uint32_t>(reinterpret_cast<const std::byte*>(&shared) - current_->packets.base());
  ThreadCursor& cursor = cursorFor();
  const uint32_t ref = allocateIn(cursor, sizeof(uint32_t), 0, shared.type);
  PacketHeader& h = *current_->packets.at<PacketHeader>(ref);
  h.flags = PacketHeader::kSharedRef;
  std::memcpy(current_->packets.base() + ref + sizeof(PacketHeader), &sharedOffset, sizeof(sharedOffset));
  pushKey(cursor, keyBits, pass, ref);
  return h;
}

PacketHeader& CommandBucketBase::appendSharedBytes(PacketHeader& previous, const PacketHeader& shared) {
  const uint32_t sharedOffset =
      static_cast<uint32_t>(reinterpret_cast<const std::byte*>(&shared) - current_->packets.base());
  const uint32_t ref = allocatePacket(sizeof(uint32_t), 0, static_cast<CommandType>(shared.type));
  PacketHeader& h = *current_->packets.at<PacketHeader>(ref);
  h.flags = PacketHeader::kSharedRef;
  std::memcpy(current_->packets.base() + ref + sizeof(PacketHeader), &sharedOffset, sizeof(sharedOffset));
  linkAfter(previous, ref);
  return h;
}

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

// ---- material passes (material_passes.h) ----

uint32_t BinderPackets::allocate(uint32_t payloadBytes, uint32_t auxBytes, CommandType type) {
  const uint32_t payload = (payloadBytes + 7u) & ~7u;
  const uint32_t aux = (auxBytes + 7u) & ~7u;
  const uint32_t need = static_cast<uint32_t>(sizeof(PacketHeader)) + payload + aux;
  if (blockEnd_ - blockPos_ < need) {
    // The app no longer records into a handed-over stream: the render thread is its only claimant.
    constexpr uint32_t kBlockBytes = 4u << 10;
    const uint32_t block = std::max(need, kBlockBytes);
    const uint32_t offset = stream_->packets.claim(block);
    if (offset == VirtualArena::kNoSpace) outOfSpace(*bucket_, "packet memory (material passes)");
    blockPos_ = offset;
    blockEnd_ = offset + block;
  }
  const uint32_t offset = blockPos_;
  blockPos_ += need;
  PacketHeader& h = *stream_->packets.at<PacketHeader>(offset);
  h = PacketHeader{};
  h.type = static_cast<uint16_t>(type);
  if (auxBytes != 0) {
    h.auxOffset = offset + static_cast<uint32_t>(sizeof(PacketHeader)) + payload;
    h.auxSize = auxBytes;
  }
  link(offset);
  return offset;
}

void BinderPackets::link(uint32_t packet) {
  if (tail_ != 0) {
    stream_->packets.at<PacketHeader>(tail_)->next = packet;
  } else {
    head_ = packet;
  }
  tail_ = packet;
}

namespace {

struct ExpansionScratch {
  struct Bucket {
    bool expand = false;
    uint32_t firstSequence = 0;           // of the bucket's keys in merge order
    uint32_t firstEntry = 0;              // in `entries`
    uint32_t blockPos = 0, blockEnd = 0;  // the bucket's BinderPackets block, kept from key to key
  };
  std::vector<Bucket> buckets;
  std::vector<KeyEntry*> entries;  // the expanded buckets' keys in merge order
  std::vector<uint32_t> links;     // one chain's links
};

}  // namespace

void MaterialPasses::expand(std::span<const FrameBucketView> buckets, std::span<SortEntry> sorted,
                            std::span<uint32_t> mergedPackets, std::span<const uint16_t> mergedBuckets) {
  // Per render thread, reused: a steady state allocates nothing.
  thread_local ExpansionScratch scratch;
  ExpansionScratch& s = scratch;
  s.buckets.assign(buckets.size(), {});
  s.entries.clear();
  bool any = false;
  for (size_t b = 0; b < buckets.size(); ++b) {
    auto& stream = const_cast<BucketStream&>(*buckets[b].stream);
    if (!stream.binder || stream.passesExpanded) continue;
    ExpansionScratch::Bucket& e = s.buckets[b];
    e.expand = any = true;
    e.firstSequence = static_cast<uint32_t>(
        std::lower_bound(mergedBuckets.begin(), mergedBuckets.end(), static_cast<uint16_t>(b)) -
        mergedBuckets.begin());
    e.firstEntry = static_cast<uint32_t>(s.entries.size());
    // The same walk as the merge: block by block, each block front to back.
    for (uint32_t block = 0, blocks = stream.keyBlockCount(); block < blocks; ++block) {
      auto* entries = const_cast<KeyEntry*>(stream.keyBlock(block));
      for (uint32_t i = 0, n = stream.keyBlockFill(block); i < n; ++i) s.entries.push_back(&entries[i]);
    }
  }
  if (!any) return;

  for (SortEntry& entry : sorted) {
    const uint16_t b = mergedBuckets[entry.sequence];
    ExpansionScratch::Bucket& e = s.buckets[b];
    if (!e.expand) continue;
    MaterialId material;
    if (!buckets[b].bucket->keyMaterial(entry.key, material)) continue;
    auto& stream = const_cast<BucketStream&>(*buckets[b].stream);
    s.links.clear();
    for (uint32_t offset = entry.value; offset != 0; offset = stream.header(offset).next)
      s.links.push_back(offset);

    BinderPackets out(stream, buckets[b].bucket->name());
    out.blockPos_ = e.blockPos;
    out.blockEnd_ = e.blockEnd;
    bool anotherPass = true;
    for (uint32_t pass = 0; anotherPass; ++pass) {
      REEL_ASSERT(pass < MaterialBinder::kMaxMaterialPasses,
                  "a MaterialBinder asked for more than 16 passes");
      anotherPass = stream.binder->bind(material, pass, out);
      if (pass == 0 && !anotherPass && out.head_ == 0) break;  // the binder leaves this key as recorded
      // The key's own packets, each by reference: written once, however many passes run them.
      for (const uint32_t link : s.links) {
        const PacketHeader& original = stream.header(link);
        const uint32_t body = detail::resolveShared(stream, link, original);
        const uint32_t ref =
            out.allocate(sizeof(uint32_t), 0, static_cast<CommandType>(stream.header(body).type));
        PacketHeader& h = *stream.packets.at<PacketHeader>(ref);
        h.flags = PacketHeader::kSharedRef;
        h.tag = original.tag;  // tag records live in the same arena
        std::memcpy(stream.packets.base() + ref + sizeof(PacketHeader), &body, sizeof(body));
      }
    }
    e.blockPos = out.blockPos_;
    e.blockEnd = out.blockEnd_;
    if (out.head_ == 0) continue;
    entry.value = out.head_;
    mergedPackets[entry.sequence] = out.head_;
    s.entries[e.firstEntry + (entry.sequence - e.firstSequence)]->packet = out.head_;
  }
  for (size_t b = 0; b < buckets.size(); ++b) {
    if (s.buckets[b].expand) const_cast<BucketStream&>(*buckets[b].stream).passesExpanded = true;
  }
}

}  // namespace reel
