#pragma once
// What the render thread saw of one frame, handed to an optional FrameObserver (capture implements it).
// The views point into the frame's streams and are valid only during the observer call: an observer
// copies what it keeps and returns.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/device.h"
#include "reel/runtime/live_resources.h"
#include "reel/runtime/radix_sort.h"
#include "reel/runtime/resource_context.h"

namespace reel {

struct FrameBucketView {
  const CommandBucketBase* bucket;
  const BucketStream* stream;
};

// One packet of a chain, resolved: a shared reference resolves to the shared packet's bytes.
struct PacketView {
  CommandType type;
  std::span<const std::byte> payload;
  std::span<const std::byte> aux;
  const TagRecord* tag;  // null when untagged
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

class FrameObserver {
 public:
  virtual ~FrameObserver() = default;
  // Called on the render thread before the frame's resource requests are applied.
  virtual void onFrameStart(const FrameStart&) {}
  // Called on the render thread after the frame is sorted, before it is translated.
  //
  // Instead of copying the frame here, an observer may read it later on another thread by retaining
  // its streams: one more `references` on *frame.requests and on every bucket's stream keeps them from
  // being reset or recorded into; it gives them back with references.fetch_sub(1,
  // std::memory_order_release) from any thread, after its last read. At most kMaxObserverRetainedFrames
  // frames may be retained at once (the stream pools hold that many spares). The bucket objects
  // themselves (name, key layout) live as long as the renderer.
  virtual void onFrame(const FrameView& frame) = 0;
};

namespace detail {
// The packet that chain entry `offset` (header `h`) stands for: itself, or the shared packet it references.
inline uint32_t resolveShared(const BucketStream& stream, uint32_t offset, const PacketHeader& h) {
  uint32_t body = offset;
  if (h.flags & PacketHeader::kSharedRef) std::memcpy(&body, stream.payload(offset), sizeof(body));
  return body;
}

inline const TagRecord* tagOf(const BucketStream& stream, const PacketHeader& h) {
#if REEL_ENABLE_TAGS
  return h.tag ? stream.packets.at<TagRecord>(h.tag) : nullptr;
#else
  (void)stream;
  (void)h;
  return nullptr;
#endif
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
