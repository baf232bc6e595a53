#pragma once
// Going wide (Stingray's RenderDevice): the sorted frame is cut into contiguous ranges of keys, each
// translated by one job on its own thread into its own command list. A job must start from the state
// the single-threaded walk would have at that point, so one cheap serial sweep over the packets' types
// (commands.inc's semantics) notes, for every job boundary, which packets that state comes from: the
// last packet of each bound-state scope (per slot, per bind point, per push-constant word), the
// BeginRenderPass of a pass still open, and the debug markers still open. A job replays those packets
// (Device::enterJob) before its own. What commands do to resources (barriers, layouts) is the device's
// business: it knows it only while recording, so it reconciles it when it joins the jobs (endJobs).
//
// A state packet that the device rejects (a stale handle, say) leaves the previous value bound on the
// single-threaded walk, but a job replays only the last packet of each scope: a frame whose state
// packets are rejected may then translate differently in wide mode. Both report the rejected packet.

#include <cstdint>
#include <span>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/frame.h"

namespace reel {

// One packet of a sorted frame: the key it is chained under and its header's offset in that key's stream.
struct FramePacketRef {
  uint32_t key = 0;
  uint32_t offset = 0;
};

struct TranslationJob {
  size_t firstKey = 0;
  size_t endKey = 0;                   // one past the last key
  std::vector<FramePacketRef> prefix;  // the state packets in force at firstKey, in sort order
};

// Keys per job at least: below that a job's start (replaying its state, a command buffer of its own)
// costs more than it saves. Stingray's figure (~128 commands a job) is in packets; a key holds one or
// more, so 128 keys never make a job of fewer than 128 packets.
inline constexpr size_t kMinJobKeys = 128;

// How many jobs a frame of `keys` sorted keys gets with `threads` threads: one unless every job gets at
// least `minKeys` keys.
uint32_t jobCountFor(size_t keys, uint32_t threads, size_t minKeys = kMinJobKeys);

// kMinJobKeys, or REEL_RENDER_JOB_KEYS when set to a number > 0: tests make small frames go wide with it.
size_t minJobKeysFromEnvironment();

class JobPlanner {
 public:
  JobPlanner();
  // Render thread. Cuts view.sorted into `count` ranges of about equal key counts and sweeps the frame for
  // each range's state. `computePipeline(slot)` says whether the pipeline of that handle slot binds to the
  // compute bind point (a BindPipeline's scope). Returns the jobs (valid until the next plan()).
  template <typename IsCompute>
  std::span<const TranslationJob> plan(const FrameView& view, uint32_t count, IsCompute&& computePipeline) {
    return planErased(
        view, count,
        [](const void* f, uint32_t slot) {
          return (*static_cast<const std::remove_reference_t<IsCompute>*>(f))(slot);
        },
        &computePipeline);
  }

  // Calls fn(type, payload, PacketContext) for one packet of the frame.
  template <typename Fn>
  static void visit(const FrameView& view, FramePacketRef ref, Fn&& fn) {
    const SortEntry& entry = view.sorted[ref.key];
    const BucketStream& stream = *view.buckets[view.mergedBuckets[entry.sequence]].stream;
    const PacketHeader& h = stream.header(ref.offset);
    const uint32_t body = detail::resolveShared(stream, ref.offset, h);
    const PacketHeader& bh = stream.header(body);
    fn(static_cast<CommandType>(bh.type), stream.payload(body),
       PacketContext{stream.aux(bh), detail::tagOf(stream, h)});
  }

  static constexpr uint32_t kMaxSlots = 16;      // slot fields past it are rejected by every device
  static constexpr uint32_t kMaxPushWords = 64;  // 256 bytes of push constants

 private:
  using IsComputeFn = bool (*)(const void*, uint32_t);
  std::span<const TranslationJob> planErased(const FrameView& view, uint32_t count, IsComputeFn isCompute,
                                             const void* fn);

  struct Ref {
    uint32_t key = 0;
    uint32_t offset = 0;
    uint32_t ordinal = UINT32_MAX;  // the packet's place in the frame; UINT32_MAX: none
  };
  struct TypeInfo {
    CommandCategory category;
    StateScope scope;
    int32_t field =
        -1;  // PerSlot: the `slot` field's offset; PushBytes: `offset`'s; PerBindPoint: `pipeline`'s
  };
  void snapshot(TranslationJob& job);

  std::vector<TypeInfo> types_;
  std::vector<TranslationJob> jobs_;
  // The sweep's state: the packet in force for every scope.
  std::vector<Ref> whole_;    // per command type
  std::vector<Ref> perSlot_;  // per command type x kMaxSlots
  Ref bindPoint_[2];          // graphics, compute
  Ref push_[kMaxPushWords];
  Ref pass_;                  // the open pass's BeginRenderPass
  std::vector<Ref> markers_;  // open debug markers, outermost first
  std::vector<Ref> gathered_;
};

}  // namespace reel
