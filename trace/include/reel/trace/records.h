#pragma once
// What a trace holds, decoded and checked: frames (resource requests, then each bucket's keys and packet
// chains in submission order), the resources alive at the capture start, markers and the capture's end.
//
// Records point into the decompressed chunk they came from and keep it alive (a shared pointer); the
// byte-shuffled columns (keys, payloads, aux data: trace.fbs) are unshuffled into the record itself,
// into buffers that TraceReader::readFrame(index, into) refills frame after frame without freeing them.
// A PacketRecord's spans point into its BucketRecord and are unaligned: copy a payload out
// (PacketRecord::as) before reading it as its struct.
//
// Every index and size in a record was checked against the message it came from and the trace's
// command table when the record was decoded: a record never points outside its chunk.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "reel/runtime/bucket_order.h"
#include "reel/runtime/commands.h"

namespace reel::trace {

struct TagView {
  std::string_view file;
  std::string_view function;
  std::string_view message;
  uint32_t line = 0;
};

namespace detail {

struct FreeBytes {
  void operator()(void* p) const { std::free(p); }
};
// Uninitialised memory for `bytes` (at least 1), 16-byte aligned; null when it cannot be had. Large
// blocks are whole 2 MiB pages with transparent huge pages advised: a replay fills tens of megabytes
// of fresh chunk and record buffers, and faulting them in 4 KiB at a time cost more than decoding them.
std::unique_ptr<std::byte[], FreeBytes> allocateLarge(uint64_t bytes);

// A vector of trivially copyable elements whose growth leaves them uninitialised: the decoder overwrites
// every element it sizes, so std::vector's zero fill would only touch fresh pages twice (a replay of
// 400k packets a frame spent more in those page faults than in unshuffling). Keeps its capacity.
template <typename T>
class UninitBuffer {
 public:
  UninitBuffer() = default;
  UninitBuffer(const UninitBuffer& other) { *this = other; }
  UninitBuffer& operator=(const UninitBuffer& other) {
    if (this != &other) {
      resize(other.size_);
      if (size_) std::memcpy(data(), other.data(), size_ * sizeof(T));
    }
    return *this;
  }
  UninitBuffer(UninitBuffer&&) noexcept = default;
  UninitBuffer& operator=(UninitBuffer&&) noexcept = default;

  // The first min(size(), n) elements are kept; the others are garbage until written.
  void resize(size_t n) {
    if (n > capacity_) {
      auto grown = allocateLarge(uint64_t{n} * sizeof(T));
      if (!grown) throw std::bad_alloc();
      if (size_) std::memcpy(grown.get(), data_.get(), size_ * sizeof(T));
      data_ = std::move(grown);
      capacity_ = n;
    }
    size_ = n;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return reinterpret_cast<T*>(data_.get()); }
  const T* data() const { return reinterpret_cast<const T*>(data_.get()); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  operator std::span<const T>() const { return {data(), size_}; }

 private:
  static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 16);
  std::unique_ptr<std::byte[], FreeBytes> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace detail

// One link of a key's chain: a packet as the render thread dispatched it.
struct PacketRecord {
  uint16_t type = 0;                   // command id in the trace's command table
  std::span<const std::byte> payload;  // the packet struct's bytes, as long as the command's size
  std::span<const std::byte> aux;
  const TagView* tag = nullptr;  // null when untagged
  uint32_t body = 0;             // links that name the same body share one packet
  bool shared = false;           // the body is a shared packet (CommandBucket::createShared)

  // The payload as a runtime packet, for a trace whose layout of T matches this build's
  // (TraceHeader::matchesRuntime). False when the type or size differs.
  template <Command T>
  bool as(T& out) const {
    if (type != static_cast<uint16_t>(T::kType) || payload.size() != sizeof(T)) return false;
    std::memcpy(&out, payload.data(), sizeof(T));
    return true;
  }
};

class BucketRecord {
 public:
  uint16_t index = 0;  // position among the renderer's buckets
  std::string_view name;
  std::string_view keyType;
  bool retained = false;                   // the same recording as in the previous captured frame
  BucketOrder order = BucketOrder::Scene;  // the frame sorts by (order, key); Scene in traces before 1.2

  size_t keyCount() const { return keys_.size(); }
  uint64_t key(size_t i) const { return keys_[i]; }
  // The declared pass key i names (PassId::value; kNone in a trace before 1.5).
  uint16_t pass(size_t i) const { return passes_.empty() ? PassId::kNone : passes_[i]; }
  bool namesPasses() const { return !passes_.empty(); }
  std::span<const uint64_t> keys() const { return keys_; }
  size_t chainLength(size_t key) const { return chainStart_[key + 1] - chainStart_[key]; }
  size_t linkCount() const { return linkBody_.size(); }
  size_t bodyCount() const { return bodyType_.size(); }
  std::span<const TagView> tags() const { return tags_; }

  PacketRecord packet(size_t key, size_t link) const { return linkRecord(chainStart_[key] + link); }
  // fn(const PacketRecord&) for each link of a key's chain, in order.
  template <typename Fn>
  void forEachInChain(size_t key, Fn&& fn) const {
    for (size_t l = chainStart_[key]; l < chainStart_[key + 1]; ++l) fn(linkRecord(l));
  }

 private:
  friend struct Decoder;
  PacketRecord linkRecord(size_t link) const {
    const uint32_t b = linkBody_[link];
    PacketRecord p;
    p.type = bodyType_[b];
    p.payload = {payload_.data() + bodyPayload_[b], typeSize_[p.type]};
    p.aux = {aux_.data() + bodyAux_[b], bodyAuxSize_[b]};
    p.tag = linkTag_.empty() || linkTag_[link] == 0 ? nullptr : &tags_[linkTag_[link] - 1];
    p.body = b;
    p.shared = bodyShared_[b] != 0;
    return p;
  }

  detail::UninitBuffer<uint64_t> keys_;        // unshuffled from the message
  detail::UninitBuffer<uint32_t> chainStart_;  // keyCount + 1 prefix sums of the chain lengths
  std::span<const uint16_t> passes_;           // empty: none
  std::span<const uint32_t> linkBody_;
  std::span<const uint32_t> linkTag_;
  std::span<const uint16_t> bodyType_;
  std::span<const uint32_t> bodyAuxSize_;
  std::vector<uint32_t> typeSize_;              // payload bytes by command id (the trace's table)
  detail::UninitBuffer<uint32_t> bodyPayload_;  // per body: its offset in payload_
  detail::UninitBuffer<uint32_t> bodyAux_;      // per body: its offset in aux_
  detail::UninitBuffer<uint8_t> bodyShared_;
  // Unshuffled group by group (schema::ColumnGroups::gatherGroups): a body's bytes are whole, but
  // bodies of different groups are not in body order.
  detail::UninitBuffer<std::byte> payload_;
  detail::UninitBuffer<std::byte> aux_;
  std::vector<TagView> tags_;
  // The message whose structure this bucket repeats (format 1.6), when another chunk holds it than the
  // frame's keepAlive; null otherwise.
  std::shared_ptr<const void> structureOwner_;
};

// A resource request of a frame: a create (with its initial contents), a write or a destroy.
struct RequestRecord {
  uint16_t type = 0;
  std::span<const std::byte> payload;
  std::span<const std::byte> aux;
};

struct FrameRecord {
  uint64_t number = 0;
  uint64_t sortedOrderHash = 0;
  // The capture left this frame out (its writer was behind; format 1.3): requests only, no buckets, and
  // sortedOrderHash is what the app's frame sorted to, not what these (no) buckets do.
  bool dropped = false;
  std::vector<RequestRecord> requests;  // in request order
  std::vector<BucketRecord> buckets;    // in the renderer's order (BucketRecord::index)
  std::shared_ptr<const void> keepAlive;

  size_t packetCount() const;
};

// A resource alive at the capture start: its create packet (handle and descriptor), a shader's code,
// and its contents as the device held them (a buffer's bytes, or each mip of a texture).
struct LiveResourceRecord {
  uint16_t createType = 0;
  std::span<const std::byte> create;
  std::span<const std::byte> code;
  struct Contents {
    uint32_t mip = 0;
    std::span<const std::byte> bytes;
  };
  std::vector<Contents> contents;
  std::string_view readbackError;  // empty unless the device could not read the contents
};

struct ResourcesRecord {
  uint64_t frame = 0;  // the first captured frame: these were alive at its start
  std::vector<LiveResourceRecord> resources;
  std::shared_ptr<const void> keepAlive;
};

struct MarkerRecord {
  uint64_t frame = 0;
  std::string text;
};

struct CaptureEndRecord {
  uint64_t frames = 0;
  uint64_t renderWaits = 0;
  uint64_t renderWaitNs = 0;
  std::string reason;
};

}  // namespace reel::trace
