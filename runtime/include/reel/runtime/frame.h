#pragma once
// What the render thread saw of one frame, handed to every FrameObserver registered with the renderer
// (Renderer::addObserver; capture and a replay's feeder are observers). The views point into the frame's
// streams and are valid only during the observer call: an observer copies what it keeps, or holds a
// FrameLease on the frame and reads it later on another thread.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/device.h"
#include "reel/runtime/frame_timing.h"
#include "reel/runtime/live_resources.h"
#include "reel/runtime/resource_context.h"
#include "reel/runtime/sort_entry.h"

namespace reel {

struct FrameBucketView {
  const CommandBucketBase* bucket;
  const BucketStream* stream;
  BucketOrder order = BucketOrder::Scene;  // bucket->order() when the frame was kicked
};

// One packet of a chain, resolved: a shared reference resolves to the shared packet's bytes.
struct PacketView {
  CommandType type;
  std::span<const std::byte> payload;
  std::span<const std::byte> aux;
  const TagRecord* tag;  // null when untagged
};

namespace detail {
struct FrameRecord;  // renderer.cpp: one frame's streams and the leases held on them
}

// Holds one frame's streams (its resource requests and every bucket's recording of it): while a lease
// lives, none of them is reset or recorded into, so that a thread other than the render thread can read
// the frame after the observer call returned (capture's writer does). Move-only; the destructor (or
// reset()) gives the streams back.
//
// Threading contract: an observer takes a lease in onFrame, on the render thread (FrameView::lease). The
// lease may then move to, and end on, any thread; one lease is not used by two threads at once. The
// render thread holds a lease of its own on every kicked frame until it is translated.
//
// The bound: at most kMaxObserverRetainedFrames frames may stay leased by observers once the render
// thread is done with them, counted over all observers together (a frame leased by two observers counts
// once): the stream pools hold that many spares (command_bucket.h). When observers hold more, the render
// thread waits at the end of the frame until they give enough back (RendererStats::leaseWaits), so the
// leases that go over the bound must be ended by a thread that does not itself wait for the render
// thread (not the kick thread). Every lease ends before the renderer that made it is destroyed.
class FrameLease {
 public:
  FrameLease() = default;  // holds nothing
  FrameLease(FrameLease&& other) noexcept : record_(other.record_) { other.record_ = nullptr; }
  FrameLease& operator=(FrameLease&& other) noexcept {
    if (this != &other) {
      reset();
      record_ = other.record_;
      other.record_ = nullptr;
    }
    return *this;
  }
  FrameLease(const FrameLease&) = delete;
  FrameLease& operator=(const FrameLease&) = delete;
  ~FrameLease() { reset(); }

  // Gives the streams back (when this was the frame's last lease, they may be recorded into again).
  void reset();
  explicit operator bool() const { return record_ != nullptr; }

  // The leased frame; only on a lease that holds one.
  uint64_t frame() const;
  const RequestStream& requests() const;
  std::span<const FrameBucketView> buckets() const;

 private:
  friend class Renderer;
  friend struct FrameView;
  explicit FrameLease(detail::FrameRecord* record) : record_(record) {}
  detail::FrameRecord* record_ = nullptr;
};

struct FrameView {
  uint64_t frame = 0;
  const RequestStream* requests = nullptr;
  std::span<const FrameBucketView> buckets;
  // All keys of the frame in merge order (bucket by bucket, then recording order): the packet offsets
  // and the bucket each came from, indexed by SortEntry::sequence.
  std::span<const uint32_t> mergedPackets;
  std::span<const uint16_t> mergedBuckets;
  // After the stable sort; sorted[i].value is mergedPackets[sorted[i].sequence], carried through the
  // sort so that the render thread reads packet offsets in sorted order, not at random.
  std::span<const SortEntry> sorted;
  uint64_t sortedOrderHash = 0;  // FNV-1a of the sorted sequence numbers
  // Each key's sort prefix (bucket_order.h: its declared pass and its bucket's order), indexed by
  // SortEntry::sequence; empty when every key has the same one, `uniformPrefix`.
  std::span<const uint32_t> prefixes;
  uint32_t uniformPrefix = 0;
  uint16_t passOf(uint32_t sequence) const {
    return passOfPrefix(prefixes.empty() ? uniformPrefix : prefixes[sequence]);
  }
  detail::FrameRecord* record = nullptr;  // the renderer's: what lease() holds

  // Render thread, inside FrameObserver::onFrame: keeps this frame's streams (requests, buckets) for
  // reading after the call returns (FrameLease). Never blocks.
  FrameLease lease() const;

  // Calls fn(PacketView) for the chain that starts at `packet` in `stream`.
  template <typename Fn>
  static void forEachInChain(const BucketStream& stream, uint32_t packet, Fn&& fn);
};

// The state before a frame's requests are applied: what a capture that starts at this frame records
// first (every live resource's create request, and its contents read back from the device).
struct FrameStart {
  uint64_t frame = 0;
  Device* device = nullptr;
  const LiveResources* live = nullptr;
};

// Sees every frame kicked while it is registered (Renderer::addObserver). A frame calls the observers
// that were registered when it was kicked, in the order they were added; several may be registered at
// once (a capture, a replay's feeder, an app's profiler), and none replaces another.
class FrameObserver {
 public:
  virtual ~FrameObserver() = default;
  // Called on the render thread before the frame's resource requests are applied.
  virtual void onFrameStart(const FrameStart&) {}
  // Called on the render thread after the frame is sorted, before it is translated.
  //
  // Instead of copying the frame here, an observer may take frame.lease() and read the frame's streams
  // later on another thread, ending the lease after its last read (FrameLease states the bound on how
  // many frames observers may hold). The bucket objects themselves (name, key layout) live as long as
  // the renderer.
  virtual void onFrame(const FrameView& frame) = 0;
  // Called on the render thread once the device has ended the frame (its work submitted, not
  // necessarily finished): where the frame's render-thread time went, phase by phase.
  virtual void onFrameEnd(const FrameTiming&) {}
};

namespace detail {
// The packet that chain entry `offset` (header `h`) stands for: itself, or the shared packet it references.
inline uint32_t resolveShared(const BucketStream& stream, uint32_t offset, const PacketHeader& h) {
  uint32_t body = offset;
  if (h.flags & PacketHeader::kSharedRef) std::memcpy(&body, stream.payload(offset), sizeof(body));
  return body;
}

inline const TagRecord* tagOf(const BucketStream& stream, const PacketHeader& h) {
  return h.tag ? stream.packets.at<TagRecord>(h.tag) : nullptr;
}
}  // namespace detail

template <typename Fn>
void FrameView::forEachInChain(const BucketStream& stream, uint32_t packet, Fn&& fn) {
  for (uint32_t offset = packet; offset != 0;) {
    const PacketHeader& h = stream.header(offset);
    const uint32_t body = detail::resolveShared(stream, offset, h);
    const PacketHeader& bh = stream.header(body);
    const CommandType type = static_cast<CommandType>(bh.type);
    fn(PacketView{
        type, {stream.payload(body), commandInfo(type).size}, stream.aux(bh), detail::tagOf(stream, h)});
    offset = h.next;
  }
}

}  // namespace reel
