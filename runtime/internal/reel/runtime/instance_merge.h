#pragma once
// Instance merging (docs/instance-merging.md): after the sort and the observers, the render thread folds
// each run of sorted keys that differ only in their per-draw constants into one instanced draw.
//
// A key is a candidate when its chain is state commands, exactly one PushConstants over the whole
// declared range of the pipeline it binds (PipelineInstancing, descriptors.inc) and one Draw or
// DrawIndexed, last. Consecutive candidates form a run when their state commands are the same commands
// with the same bytes (a shared packet compares by pointer first), the pipeline opts in, and their draws'
// vertex or index ranges are equal. A run of two or more becomes, in a stream the merger owns: the
// first key's state commands, the last key's PushConstants (so that the state after the run is what it
// would have been unmerged), and one DrawInstanced / DrawIndexedInstanced whose auxiliary data holds the
// run's constants back to back (commands.inc). Everything else keeps its chain as recorded.
//
// The frame's own streams are never written: observers (a capture) see what the app recorded, and a
// replay merges again, since the decision reads only the packets and the pipelines' create requests.
//
// Threading contract: render thread only.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/commands.h"
#include "reel/runtime/frame.h"

namespace reel {

struct InstanceMergeStats {
  uint64_t candidates = 0;   // keys whose chain could merge (one constant push and one draw)
  uint64_t runs = 0;         // runs merged into one instanced draw each
  uint64_t mergedDraws = 0;  // draws inside those runs (each run's length, summed)
  // Runs of candidates, merged or not, by length: [0] 1, [1] 2-3, [2] 4-7, ... [15] 32768 and more.
  std::array<uint64_t, 16> runLengths{};

  uint64_t drawsRemoved() const { return mergedDraws - runs; }
};

class InstanceMerger {
 public:
  // Instances per merged draw at most: a run longer than this is cut into several.
  static constexpr uint32_t kMaxInstances = 65536;
  // Shorter runs keep their chains. A merged draw costs a pipeline bind into the instanced variant and
  // back, an upload and a descriptor push: BM_StressMerge on the 2-core VM (lavapipe, 100k draws, 5.7k
  // runs of 2 or more, most of them 2 or 3 blended draws) ran its render thread slower merging every
  // run of 2 than not merging at all; see docs/instance-merging.md for the threshold's measurement.
  static constexpr uint32_t kMinRun = 4;
  static constexpr size_t kPrefetchKeys = 16;  // as Renderer::translate's

  InstanceMerger();

  // As the frame's requests are applied: a CreatePipeline's auxiliary data opts the pipeline in.
  void onCreatePipeline(const cmd::CreatePipeline& create, std::span<const std::byte> aux);
  void onDestroyPipeline(uint32_t handleValue);
  bool anyOptedIn() const { return optedIn_ > 0; }
  // The opt-in of a live pipeline; nullptr when it does not opt in.
  const PipelineInstancing* instancing(uint32_t handleValue) const;

  // The frame to translate: `in` itself when no run merged, else a view of the merged stream that lives
  // until the next merge. `in`'s streams must outlive the returned view.
  const FrameView& merge(const FrameView& in);
  const InstanceMergeStats& stats() const { return stats_; }  // of the last merge

 private:
  static constexpr uint32_t kMaxState = 8;  // state commands in a candidate's chain
  struct Packet {
    const BucketStream* stream = nullptr;
    uint32_t body = 0;  // offset of the packet (a shared reference resolved)
  };
  struct Candidate {
    std::array<Packet, kMaxState> state;
    uint32_t stateCount = 0;
    Packet push, draw;
    CommandType drawType = CommandType::Count;
    const PipelineInstancing* instancing = nullptr;
  };
  struct Entry {
    uint32_t handle = 0;
    PipelineInstancing instancing{};
  };

  bool parse(const BucketStream& stream, uint32_t head, Candidate& out) const;
  static bool samePacket(const Packet& a, const Packet& b, CommandType type);
  static bool sameRun(const Candidate& a, const Candidate& b);
  // Writes the merged chain of candidates [first, first + count) of the run; returns its head offset.
  uint32_t writeRun(std::span<const Candidate> run);
  uint32_t writePacket(CommandType type, const std::byte* payload, std::span<const std::byte> aux,
                       uint32_t auxBytes, uint32_t previous);

  std::vector<Entry> pipelines_;  // by handle index
  uint32_t optedIn_ = 0;
  InstanceMergeStats stats_;

  BucketStream stream_;  // the merged chains, rewritten every frame
  FrameView view_;
  std::vector<FrameBucketView> buckets_;
  std::vector<uint32_t> packets_;
  std::vector<uint16_t> bucketOf_;
  std::vector<SortEntry> sorted_;
  std::vector<Candidate> run_;
};

}  // namespace reel
