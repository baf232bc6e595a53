#pragma once
// Going wide (Stingray's RenderDevice): the sorted frame is cut into contiguous ranges of keys, each
// translated by one job on its own thread into its own command list. A job must start from the state
// the single-threaded walk would have at that point: the last packet of each bound-state scope (per
// slot, per bind point, per push-constant word), the BeginRenderPass of a pass still open, and the debug
// markers still open (commands.inc's semantics). A job replays those packets (Device::enterJob) before
// its own. What commands do to resources (barriers, layouts) is the device's business: it knows it only
// while recording, so it reconciles it when it joins the jobs (endJobs).
//
// The sweep that finds those packets runs in parallel: the frame is cut into segments (up to
// kSegmentsPerJob per job), each worker summarises its share of them (per scope the last packet in the
// segment, the markers it opens and closes, its packet count), and the render thread combines the
// summaries in order, which costs a few hundred entries per segment instead of a walk over every packet.
// The packet counts then place the job boundaries on segment boundaries so that jobs get about equal
// numbers of packets (a packet, not a key, is what a job translates: keys carry chains of 1 to dozens).
//
// A state packet that the device rejects (a stale handle, say) leaves the previous value bound on the
// single-threaded walk, but a job replays only the last packet of each scope: a frame whose state
// packets are rejected may then translate differently in wide mode. Both report the rejected packet.

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/frame.h"
#include "reel/runtime/frame_graph.h"

namespace reel {

// How far ahead translation (translate() and the sweep) fetches packet chains, in keys. It fetches four
// lines from each chain's head: a `stress` chain (a shared reference and three packets, 184 bytes) spans
// three or four. Measured with BM_TranslateStress on the 2-core VM: 8, 16 and 32 keys ahead all ran at
// 38-42 ns/key; two lines instead of four left the chains' tails missing (102 ns/key), three matched four.
inline constexpr size_t kPrefetchKeys = 16;

// One packet of a sorted frame: the key it is chained under and its header's offset in that key's stream.
struct FramePacketRef {
  uint32_t key = 0;
  uint32_t offset = 0;
};

struct TranslationJob {
  size_t firstKey = 0;
  size_t endKey = 0;                   // one past the last key
  uint64_t packets = 0;                // packets of its own range
  std::vector<FramePacketRef> prefix;  // the state packets in force at firstKey, in sort order
};

// Keys per job at least: below that a job's start (replaying its state, a command buffer of its own)
// costs more than it saves. Stingray's figure (~128 commands a job) is in packets; a key holds one or
// more, so 128 keys never make a job of fewer than 128 packets.
inline constexpr size_t kMinJobKeys = 128;

// Jobs per render thread: threads take jobs in order as they finish, so that a part of the frame whose
// packets cost more than others' (measured on the H100 host, `stress`: 3x per packet between parts of
// equal packet counts) does not leave the other threads waiting for one slow job.
inline constexpr uint32_t kJobsPerThread = 4;

// How many jobs a frame of `keys` sorted keys gets with `threads` threads: one unless every job gets at
// least `minKeys` keys.
uint32_t jobCountFor(size_t keys, uint32_t threads, size_t minKeys = kMinJobKeys);

// kMinJobKeys, or REEL_RENDER_JOB_KEYS when set to a number > 0: tests make small frames go wide with it.
size_t minJobKeysFromEnvironment();

class WorkerPool;

class JobPlanner {
 public:
  // Segments per job at most: job boundaries fall on segment boundaries, so a job's packets are within
  // about 1/kSegmentsPerJob of a job's share of its target.
  static constexpr uint32_t kSegmentsPerJob = 16;
  static constexpr size_t kMinSegmentKeys = 32;  // a segment's summary costs about as much as 32 keys

  JobPlanner();
  // Render thread. Cuts view.sorted into `count` ranges of about equal packet counts and finds each
  // range's starting state, sweeping on up to min(count, threads) threads of `pool` (null: on this
  // thread alone; the pool must be free). `computePipeline(slot)` says whether the pipeline of that
  // handle slot binds to the compute bind point (a BindPipeline's scope); it is called from the sweeping
  // threads (the jobs may outnumber them). Returns the jobs (valid until the next plan()).
  // With `graph` (the frame's declared passes, then one more for the keys that name none, and where each
  // declared pass's keys begin in sorted order, then where the keys naming none begin), each segment also
  // builds its part of the frame's render graph (frame_graph.h), which mergeGraph() adds to a builder:
  // the graph of a wide frame costs no walk of its own.
  struct GraphInput {
    std::span<const PassDesc> passes;
    std::span<const size_t> starts;  // passes.size() entries
  };
  // `cuts`: sorted key positions in (0, keys) where a job must begin, besides the `count` jobs' own
  // boundaries (so the plan may have up to count + cuts.size() jobs): a range of keys that must be a job
  // of its own (a pass that runs on another queue) starts and ends at cuts.
  template <typename IsCompute>
  std::span<const TranslationJob> plan(const FrameView& view, uint32_t count, WorkerPool* pool,
                                       uint32_t threads, IsCompute&& computePipeline, GraphInput graph = {},
                                       std::span<const size_t> cuts = {}) {
    return planErased(
        view, count, pool, threads,
        [](const void* f, uint32_t slot) {
          return (*static_cast<const std::remove_reference_t<IsCompute>*>(f))(slot);
        },
        &computePipeline, graph, cuts);
  }
  // The graph parts of the last plan() given graph passes, into `builder` (made for the same passes).
  void mergeGraph(FrameGraphBuilder& builder) const;

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
  std::span<const TranslationJob> planErased(const FrameView& view, uint32_t count, WorkerPool* pool,
                                             uint32_t threads, IsComputeFn isCompute, const void* fn,
                                             GraphInput graph, std::span<const size_t> cuts);

  // A packet of the frame: its key, its place in the key's chain (what orders packets of one key) and its
  // header's offset. offset 0 (no packet has it): none.
  struct Ref {
    uint32_t key = 0;
    uint32_t link = 0;
    uint32_t offset = 0;
    uint64_t order() const { return uint64_t{key} << 32 | link; }
  };
  struct TypeInfo {
    CommandCategory category;
    StateScope scope;
    bool graphPlain = false;  // FrameGraphBuilder::isPlain
    QueueClass graphNeeds = QueueClass::Transfer;
    int32_t field =
        -1;  // PerSlot: the `slot` field's offset; PushBytes: `offset`'s; PerBindPoint: `pipeline`'s
  };
  // What one segment of keys does to the sweep's state.
  struct Segment {
    size_t firstKey = 0, endKey = 0;
    uint64_t packets = 0;
    std::vector<std::pair<uint32_t, Ref>> scopes;  // scope index, the segment's last packet (none: cleared)
    uint32_t markerPops = 0;                       // markers it closes that were opened before it
    std::vector<Ref> markerPushes;                 // markers it opens and leaves open, outermost first
  };
  // One sweeping thread's scratch: a dense copy of every scope, and which ones the segment touched.
  struct Sweeper {
    std::vector<Ref> scopes;
    std::vector<uint8_t> touched;
    std::vector<uint32_t> touchedList;
    // Its segments' part of the frame's graph, when asked for: one per thread, not per segment, so that
    // the render thread merges as many parts as threads swept (the graph does not depend on order).
    FrameGraphBuilder graph;
  };

  // Scope indices: every whole-state type, every (type, slot), the two bind points, the push-constant
  // words, the open pass.
  uint32_t slotScope(uint32_t type, uint32_t slot) const { return typeCount() + type * kMaxSlots + slot; }
  uint32_t bindPointScope(uint32_t point) const { return typeCount() * (1 + kMaxSlots) + point; }
  uint32_t pushScope(uint32_t word) const { return bindPointScope(2) + word; }
  uint32_t passScope() const { return pushScope(kMaxPushWords); }
  uint32_t scopeCount() const { return passScope() + 1; }
  uint32_t typeCount() const { return static_cast<uint32_t>(types_.size()); }

  void summarise(const FrameView& view, Segment& segment, Sweeper& sweeper, IsComputeFn isCompute,
                 const void* fn, bool graph) const;
  void snapshot(TranslationJob& job);

  std::vector<TypeInfo> types_;
  std::vector<TranslationJob> jobs_;
  std::vector<Segment> segments_;
  std::vector<Sweeper> sweepers_;      // one per sweeping thread
  std::vector<size_t> segmentStarts_;  // each segment's first key
  std::vector<uint32_t> boundaries_;   // per job, its first segment; then the segment count
  // The combined state while the render thread walks the summaries.
  std::vector<Ref> state_;
  std::vector<Ref> markers_;  // open debug markers, outermost first
  std::vector<Ref> gathered_;
  uint32_t graphed_ = 0;             // the sweepers that built graph parts in the last plan
  std::vector<size_t> graphStarts_;  // its GraphInput::starts
};

}  // namespace reel
