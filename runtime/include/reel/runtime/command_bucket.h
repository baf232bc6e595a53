#pragma once
// CommandBucket<Key>: where an app records sorted commands, from any number of threads at once.
//
// A bucket comes from Renderer::createBucket<Key>(name); Renderer::kick() hands what was recorded to the
// render thread, which merges every bucket, radix-sorts the keys and translates the packets.
//
// Usage (given reel::CommandBucket<reel::DrawKey>& geometry, reel::BufferHandle camera):
//   // on any thread, between two kicks:
//   using reel::DrawKey, reel::Translucency;
//   const uint32_t depth = DrawKey::quantizeDepth(0.25f);
//   auto& draw = geometry.add<reel::cmd::DrawIndexed>(DrawKey::draw(0, 1, Translucency::Opaque, {7, 0},
//   depth)); draw.indexCount = 36; REEL_TAG(geometry, &draw, "crate"); auto& next =
//   geometry.append<reel::cmd::DrawIndexed>(&draw);  // runs right after `draw`, under its key
//   next.indexCount = 6;
//   const float uniforms[4] = {1.0f, 0.5f, 0.25f, 1.0f};
//   auto& upload = geometry.add<reel::cmd::UpdateBuffer>(DrawKey::command(0, 0, Translucency::Opaque, 10),
//                                                        sizeof(uniforms));  // with auxiliary data
//   upload.buffer = camera;
//   std::memcpy(geometry.aux(upload).data(), uniforms, sizeof(uniforms));
//
// (Built by tests/docs, and run by tests/runtime's CommandBucketExample.) Only sorted commands go into a
// bucket: resource requests are ResourceContext's (SortedCommand, commands.h).
//
// Memory: each thread claims blocks (16 to 256 KiB of packets, 2048 keys) from the bucket's arenas with one
// atomic add, then bump-allocates inside them without any atomic, so `add` is a few stores and threads
// share no cache line. Packets are 8-byte aligned; nothing is allocated on the heap per packet.
//
// Frames: the bucket keeps one stream (packet arena + key arena) per frame in flight plus one; the
// renderer hands the recorded stream to the render thread at kick() and gives the app a free one.
// A retained bucket (setRetained) is submitted again every frame without being re-recorded.
//
// Threading: add/append/tag/aux from any thread, but never concurrently with Renderer::kick(); the
// app's own synchronisation (joining its recording jobs before kick) orders the two.
// Ties: packets with equal keys keep their order of recording within one thread; across threads
// they keep the order in which the threads claimed their blocks.

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "reel/runtime/assert.h"
#include "reel/runtime/bucket_order.h"
#include "reel/runtime/commands.h"
#include "reel/runtime/detail/virtual_arena.h"
#include "reel/runtime/draw_key.h"
#include "reel/runtime/tags.h"

namespace reel {

class Device;

inline constexpr uint32_t kMaxFramesInFlight = 4;
// Frames whose streams a FrameObserver may keep after onFrame returns (frame.h). Every bucket and the
// resource context hold that many spare streams (created only when needed), so kick() always finds a
// free one while an observer reads retained frames on another thread. Six: a capture copies a frame's
// streams out on its own threads, and on the H100 host a `stress` frame's copy (10 to 15 ms of CPU)
// outlasts the frame (about 10 ms); at idle priority (SCHED_IDLE) the copies get only the cores the app
// leaves free, and with three retained frames the render thread waited for them 3 to 6 times in a
// 100-frame capture, with six 0 to 2 (docs/measurements/h100-2026-11-27z-priority, "for gathering"). A spare
// stream takes memory only once a frame was recorded into it.
inline constexpr uint32_t kMaxObserverRetainedFrames = 6;

// Precedes every packet's payload in a bucket arena. Offsets are arena-relative; 0 means none (the
// arena's first 8 bytes are never handed out).
struct PacketHeader {
  static constexpr uint16_t kSharedRef = 1;  // payload is a uint32 offset of a shared packet

  uint32_t next;  // the packet appended to this one
  uint16_t type;  // CommandType
  uint16_t flags;
  uint32_t auxOffset;
  uint32_t auxSize;
  uint32_t tag;  // TagRecord
  uint32_t reserved;
};
static_assert(sizeof(PacketHeader) % 8 == 0);

// One key of a bucket: the packet it sorts and the pass it names. A key block is zeroed when a thread
// claims it and filled front to back by that thread alone, so the first entry with written == 0 ends the
// block. (A shared fill counter per block would put two threads' counters on one cache line: false
// sharing on every add.)
struct KeyEntry {
  uint64_t key;
  uint32_t packet;
  uint16_t pass;  // PassId::value
  uint16_t written;
};
static_assert(sizeof(KeyEntry) == 16);

class BinderPackets;

// Runs a material's passes (seed 001) as packets. On the render thread, after the frame's sort and
// before any FrameObserver sees it, every key of a bucket with a binder whose key names a material
// (KeyTraits::material) is expanded: bind(material, 0, out) appends pass 0's packets (the pipeline,
// textures, uniforms of that pass), the key's own chain follows them, then bind(material, 1, out) and the
// chain again, and so on while bind returns true. The key then sorts that whole chain, so a capture
// records the passes as ordinary packets and a replay needs no binder.
//
// A key for which pass 0 adds no packet and returns false keeps its chain as recorded (a binder may
// ignore materials it does not know). At most kMaxMaterialPasses passes. Called in sorted order, on the
// render thread only; for a retained bucket once per recording (its passes are retained with it).
class MaterialBinder {
 public:
  static constexpr uint32_t kMaxMaterialPasses = 16;  // DrawKey's pass field: 4 bits

  virtual ~MaterialBinder() = default;
  // Appends pass `pass` of `material` to `out`; returns true when another pass follows.
  virtual bool bind(MaterialId material, uint32_t pass, BinderPackets& out) = 0;
};

struct BucketConfig {
  uint64_t packetBytes = 256ull << 20;     // address space reserved per stream for packets
  uint32_t maxKeys = 4u << 20;             // keys per frame
  BucketOrder order = BucketOrder::Scene;  // the bucket's stage in the frame (setOrder changes it)
};

// A bucket's recording of one frame.
struct BucketStream {
  // A thread's packet blocks grow from 16 KiB to 256 KiB: small buckets stay small, and two threads
  // recording a large bucket write far apart. (With 16 KiB blocks only, two threads interleaving in
  // one arena ran at half the speed of two buckets on the 2-core VM; with 256 KiB they match it.)
  static constexpr uint32_t kFirstPacketBlockBytes = 16u << 10;
  static constexpr uint32_t kMaxPacketBlockBytes = 256u << 10;
  static constexpr uint32_t kKeyBlockEntries = 2048;

  explicit BucketStream(const BucketConfig& config);

  VirtualArena packets;
  VirtualArena keys;   // KeyEntry blocks
  uint64_t epoch = 0;  // changes whenever the stream is reset: stale thread cursors notice
  // Frames handed to the render thread that read this stream, plus observers that retain it (frame.h).
  mutable std::atomic<uint32_t> references{0};
  // The bucket's binder when the stream was first handed over (kick thread): the render thread reads
  // it from here, never from the bucket, which the app may change meanwhile.
  MaterialBinder* binder = nullptr;
  bool handedOver = false;      // kick thread: the binder above is set
  bool passesExpanded = false;  // render thread: the binder's passes are in the chains (material_passes.h)

  uint32_t keyBlockCount() const {
    return static_cast<uint32_t>(keys.used() / (kKeyBlockEntries * sizeof(KeyEntry)));
  }
  const KeyEntry* keyBlock(uint32_t block) const {
    return keys.at<KeyEntry>(block * kKeyBlockEntries * static_cast<uint32_t>(sizeof(KeyEntry)));
  }
  uint32_t keyBlockFill(uint32_t block) const {
    const KeyEntry* entries = keyBlock(block);
    uint32_t n = 0;
    while (n < kKeyBlockEntries && entries[n].written) ++n;
    return n;
  }
  const PacketHeader& header(uint32_t packet) const { return *packets.at<PacketHeader>(packet); }
  const std::byte* payload(uint32_t packet) const { return packets.base() + packet + sizeof(PacketHeader); }
  std::span<const std::byte> aux(const PacketHeader& h) const {
    return {packets.base() + h.auxOffset, h.auxSize};
  }
  size_t keyCount() const;
};

// Where a MaterialBinder writes a pass: packets in the bucket's own (handed-over) stream, chained in
// front of the key's packets. Fields start zeroed, as with CommandBucket::add.
class BinderPackets {
 public:
  BinderPackets(const BinderPackets&) = delete;
  BinderPackets& operator=(const BinderPackets&) = delete;

  template <SortedCommand T>
  T& add(uint32_t auxBytes = 0) {
    std::byte* p = stream_->packets.base() + allocate(sizeof(T), auxBytes, T::kType) + sizeof(PacketHeader);
    std::memset(p, 0, sizeof(T));  // padding too: packets are written to traces byte for byte
    return *new (p) T;
  }
  template <SortedCommand T>
  T& addWithData(const void* data, uint32_t bytes) {
    T& packet = add<T>(bytes);
    std::memcpy(aux(packet).data(), data, bytes);
    return packet;
  }
  // The auxiliary bytes allocated with a packet of this binder.
  template <SortedCommand T>
  std::span<std::byte> aux(T& packet) {
    const auto& h = *reinterpret_cast<const PacketHeader*>(reinterpret_cast<const std::byte*>(&packet) -
                                                           sizeof(PacketHeader));
    return {stream_->packets.base() + h.auxOffset, h.auxSize};
  }

 private:
  friend class MaterialPasses;  // the render thread's expansion (runtime/src/material_passes.h)
  BinderPackets(BucketStream& stream, const std::string& bucketName)
      : stream_(&stream), bucket_(&bucketName) {}
  uint32_t allocate(uint32_t payloadBytes, uint32_t auxBytes, CommandType type);
  void link(uint32_t packet);

  BucketStream* stream_;
  const std::string* bucket_;  // for the out-of-space message
  uint32_t blockPos_ = 0, blockEnd_ = 0;
  uint32_t head_ = 0, tail_ = 0;  // the chain being built
};

// The part of a bucket that does not depend on the key type; what the renderer and observers see.
class CommandBucketBase {
 public:
  CommandBucketBase(std::string name, const char* keyTypeName, const BucketConfig& config);
  virtual ~CommandBucketBase();
  CommandBucketBase(const CommandBucketBase&) = delete;
  CommandBucketBase& operator=(const CommandBucketBase&) = delete;

  const std::string& name() const { return name_; }
  const char* keyTypeName() const { return keyTypeName_; }
  // Kick thread. Applies from the next kick on: each kicked frame keeps the order it was kicked with
  // (FrameBucketView::order), so a change never races the render thread.
  BucketOrder order() const { return config_.order; }
  void setOrder(BucketOrder order) { config_.order = order; }
  virtual std::span<const KeyFieldLayout> keyLayout() const = 0;
  virtual std::string formatKey(uint64_t bits) const = 0;
  virtual bool keyMaterial(uint64_t bits, MaterialId& out) const = 0;

  // Keep submitting what was recorded until setRetained(false); no add() in between. Releasing starts
  // a new, empty recording (the retained one may still be read by frames in flight).
  void setRetained(bool retained);
  bool retained() const { return retained_; }

  // Kick thread. Applies to the recordings handed over from the next kick on (a retained recording keeps
  // the binder it was first handed over with); the binder must outlive the frames that use it.
  void setMaterialBinder(MaterialBinder* binder) { binder_ = binder; }
  MaterialBinder* materialBinder() const { return binder_; }

  // Shared packets (seed 001's header packets): recorded once, referenced by several keys, each
  // reference with its own chain of appended packets.
  template <SortedCommand T>
  T& createShared(uint32_t auxBytes = 0) {
    return *construct<T>(allocatePacket(sizeof(T), auxBytes, T::kType), auxBytes);
  }
  template <SortedCommand T>
  PacketHeader& addShared(uint64_t keyBits, const T& shared, PassId pass = {}) {
    return addSharedBytes(keyBits, headerOf(&shared), pass);
  }

  // Chains a packet after `previous` (a packet or a shared reference) under the same key.
  template <SortedCommand T>
  T& append(const void* previousPayload, uint32_t auxBytes = 0) {
    const uint32_t offset = allocatePacket(sizeof(T), auxBytes, T::kType);
    linkAfter(headerOf(previousPayload), offset);
    return *construct<T>(offset, auxBytes);
  }
  template <SortedCommand T>
  T& append(PacketHeader& previous, uint32_t auxBytes = 0) {
    const uint32_t offset = allocatePacket(sizeof(T), auxBytes, T::kType);
    linkAfter(previous, offset);
    return *construct<T>(offset, auxBytes);
  }

  // The auxiliary bytes allocated with a packet.
  template <SortedCommand T>
  std::span<std::byte> aux(T& packet) {
    const PacketHeader& h = headerOf(&packet);
    return {current_->packets.base() + h.auxOffset, h.auxSize};
  }

  void tag(const void* packetPayload, SourceLocation where, std::string_view message);

  // ---- for the renderer (app thread, inside kick) ----
  BucketStream& recordingStream() { return *current_; }
  // Hands the recorded stream over (one more reference) and, unless retained, switches recording to a
  // free stream. There always is one: at most kMaxFramesInFlight frames reference streams.
  BucketStream& handOver();

 protected:
  // For a subclass whose key type name is only known once its own members exist (a replay's bucket).
  void setKeyTypeName(const char* name) { keyTypeName_ = name; }

  // ---- packets as bytes, for a replay that refills buckets from a trace (replay::RecordedBucket) ----
  // The same operations as add / append / createShared / addShared, with the packet given as its type
  // and payload bytes (exactly commandInfo(type).size of them). Return the packet's header: pass it to
  // appendBytes / appendSharedBytes / addSharedBytes / tagBytes. Protected: apps record typed packets.
  PacketHeader& addBytes(uint64_t keyBits, CommandType type, std::span<const std::byte> payload,
                         std::span<const std::byte> aux, PassId pass = {});
  PacketHeader& appendBytes(PacketHeader& previous, CommandType type, std::span<const std::byte> payload,
                            std::span<const std::byte> aux);
  PacketHeader& createSharedBytes(CommandType type, std::span<const std::byte> payload,
                                  std::span<const std::byte> aux);
  PacketHeader& addSharedBytes(uint64_t keyBits, const PacketHeader& shared, PassId pass = {});
  // A reference to a shared packet inside a chain, after `previous` (a material pass expanded by the
  // render thread puts the key's packets there, MaterialBinder).
  PacketHeader& appendSharedBytes(PacketHeader& previous, const PacketHeader& shared);
  // `where.file` and `where.function` must outlive the frame (a replay keeps its trace's strings).
  void tagBytes(PacketHeader& packet, SourceLocation where, std::string_view message);

  uint32_t allocatePacket(uint32_t payloadBytes, uint32_t auxBytes, CommandType type);
  uint32_t addPacket(uint64_t keyBits, PassId pass, uint32_t payloadBytes, uint32_t auxBytes,
                     CommandType type) {
    ThreadCursor& cursor = cursorFor();
    const uint32_t offset = allocateIn(cursor, payloadBytes, auxBytes, static_cast<uint16_t>(type));
    pushKey(cursor, keyBits, pass, offset);
    return offset;
  }
  template <typename T>
  T* construct(uint32_t packetOffset, uint32_t) {
    std::byte* p = current_->packets.base() + packetOffset + sizeof(PacketHeader);
    std::memset(p, 0, sizeof(T));  // zero padding too: packets are written to traces byte for byte
    return new (p) T;
  }

 private:
  // One thread's open blocks in one stream. Looked up in a small thread-local table by bucket id; a
  // stale entry (other bucket, or the stream was reset since) is detected by the stream's epoch.
  struct ThreadCursor {
    uint64_t epoch = 0;
    uint32_t packetPos = 0, packetEnd = 0;
    uint32_t keyPos = 0, keyEnd = 0;
    uint32_t nextBlockBytes = BucketStream::kFirstPacketBlockBytes;
  };
  static constexpr uint32_t kCursorSlots = 16;

  ThreadCursor& cursorFor() {
    REEL_ASSERT(!retained_, "recording into a retained bucket: call setRetained(false) first");
    ThreadCursor& cursor = threadCursors_[id_ % kCursorSlots];
    if (cursor.epoch != current_->epoch) cursor = ThreadCursor{current_->epoch};
    return cursor;
  }
  uint32_t allocateIn(ThreadCursor& cursor, uint32_t payloadBytes, uint32_t auxBytes, uint16_t type) {
    const uint32_t payload = (payloadBytes + 7u) & ~7u;
    const uint32_t aux = (auxBytes + 7u) & ~7u;
    const uint32_t need = static_cast<uint32_t>(sizeof(PacketHeader)) + payload + aux;
    if (cursor.packetEnd - cursor.packetPos < need) refillPackets(cursor, need);
    const uint32_t offset = cursor.packetPos;
    cursor.packetPos += need;
    PacketHeader& h = *current_->packets.at<PacketHeader>(offset);
    h = PacketHeader{};
    h.type = type;
    if (auxBytes != 0) {
      h.auxOffset = offset + static_cast<uint32_t>(sizeof(PacketHeader)) + payload;
      h.auxSize = auxBytes;
    }
    return offset;
  }
  void pushKey(ThreadCursor& cursor, uint64_t keyBits, PassId pass, uint32_t packet) {
    if (cursor.keyPos == cursor.keyEnd) refillKeys(cursor);
    const uint32_t index = cursor.keyPos++;
    *current_->keys.at<KeyEntry>(index * static_cast<uint32_t>(sizeof(KeyEntry))) =
        KeyEntry{keyBits, packet, pass.value, 1};
  }
  void refillPackets(ThreadCursor& cursor, uint32_t need);
  void refillKeys(ThreadCursor& cursor);
  void linkAfter(PacketHeader& previous, uint32_t offset);
  PacketHeader& headerOf(const void* payload) {
    return *reinterpret_cast<PacketHeader*>(const_cast<std::byte*>(static_cast<const std::byte*>(payload)) -
                                            sizeof(PacketHeader));
  }
  uint32_t offsetOf(const void* payload) const {
    return static_cast<uint32_t>(static_cast<const std::byte*>(payload) - current_->packets.base() -
                                 sizeof(PacketHeader));
  }
  BucketStream& acquireFreeStream();
  void resetStream(BucketStream& stream);

  // constinit: constant-initialised, so no access checks for a thread-local initialiser first.
  static constinit thread_local ThreadCursor threadCursors_[kCursorSlots];

  std::string name_;
  const char* keyTypeName_;
  BucketConfig config_;
  uint64_t id_;
  std::array<std::unique_ptr<BucketStream>, kMaxFramesInFlight + 1 + kMaxObserverRetainedFrames> streams_;
  BucketStream* current_ = nullptr;
  bool retained_ = false;
  MaterialBinder* binder_ = nullptr;
};

template <typename Key>
class CommandBucket final : public CommandBucketBase {
 public:
  using Traits = KeyTraits<Key>;

  explicit CommandBucket(std::string name, const BucketConfig& config = {})
      : CommandBucketBase(std::move(name), Traits::kName, config) {}

  // Records a packet under `key`; its fields start zeroed. `auxBytes` of auxiliary data follow it.
  // With a pass: the key sorts inside that declared pass of the frame (bucket_order.h), which the renderer
  // begins before it and ends after the pass's last key.
  template <SortedCommand T>
  T& add(Key key, uint32_t auxBytes = 0) {
    return add<T>(PassId{}, key, auxBytes);
  }
  template <SortedCommand T>
  T& add(PassId pass, Key key, uint32_t auxBytes = 0) {
    return *construct<T>(addPacket(Traits::toBits(key), pass, sizeof(T), auxBytes, T::kType), auxBytes);
  }
  // add() with auxiliary data copied in.
  template <SortedCommand T>
  T& addWithData(Key key, const void* data, uint32_t bytes) {
    return addWithData<T>(PassId{}, key, data, bytes);
  }
  template <SortedCommand T>
  T& addWithData(PassId pass, Key key, const void* data, uint32_t bytes) {
    T& packet = add<T>(pass, key, bytes);
    std::memcpy(aux(packet).data(), data, bytes);
    return packet;
  }
  template <SortedCommand T>
  PacketHeader& addShared(Key key, const T& shared) {
    return CommandBucketBase::addShared(Traits::toBits(key), shared);
  }
  template <SortedCommand T>
  PacketHeader& addShared(PassId pass, Key key, const T& shared) {
    return CommandBucketBase::addShared(Traits::toBits(key), shared, pass);
  }

  std::span<const KeyFieldLayout> keyLayout() const override { return Traits::layout(); }
  std::string formatKey(uint64_t bits) const override { return Traits::format(bits); }
  bool keyMaterial(uint64_t bits, MaterialId& out) const override { return Traits::material(bits, out); }
};

}  // namespace reel
