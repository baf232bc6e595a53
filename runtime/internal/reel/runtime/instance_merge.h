#pragma once
// Instance merging (docs/instance-merging.md): while the sorted frame is translated, each run of keys
// that differ only in their per-draw constants reaches the device as one instanced draw.
//
// A key is a candidate when its chain is state commands, exactly one PushConstants over the whole
// declared range of the pipeline it binds (PipelineInstancing, descriptors.inc) and one Draw or
// DrawIndexed, last. Consecutive candidates form a run when their state commands are the same commands
// with the same bytes (a shared packet compares by pointer first), and their draws' vertex or index
// ranges are equal. A run of kMinRun or more is dispatched as the first key's state commands, the last
// key's PushConstants (so that the state after the run is what it would have been unmerged) and one
// DrawInstanced / DrawIndexedInstanced whose auxiliary data holds the run's constants back to back
// (commands.inc). Everything else is translated as recorded.
//
// It happens inside translation, not as a pass of its own: the chains are walked once, by translation,
// which touches them anyway (a separate pass over 100k stress keys cost 8 ms on the 2-core VM, as much as
// the merged draws saved). A run never crosses a job boundary; the images do not depend on where runs
// are cut. The frame's streams are never written: observers (a capture) see what the app recorded, and a
// replay merges again, since the decision reads only the packets and the pipelines' create requests.
//
// Threading contract: onCreatePipeline / onDestroyPipeline on the render thread while it applies
// requests; translateRun on the render thread and render workers at once (each with its own cursor)
// while no request is applied.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/commands.h"
#include "reel/runtime/device.h"
#include "reel/runtime/frame.h"

namespace reel {

// What translateRun did in one range of keys.
struct InstanceMergeCursor;

struct InstanceMergeCounts {
  uint64_t runs = 0;         // runs merged into one instanced draw each
  uint64_t mergedDraws = 0;  // draws inside those runs (each run's length, summed)
  uint64_t drawsRemoved() const { return mergedDraws - runs; }
};

class InstanceMerger {
 public:
  // Instances per merged draw at most: a run longer than this is cut into several.
  static constexpr uint32_t kMaxInstances = 65536;
  // Shorter runs keep their chains. A merged draw costs a pipeline bind into the instanced variant and
  // back, an upload and a descriptor push: see docs/instance-merging.md for the threshold's measurement.
  static constexpr uint32_t kMinRun = 4;

  struct Packet {
    const BucketStream* stream;
    uint32_t body;  // offset of the packet (a shared reference resolved)
  };
  static constexpr uint32_t kMaxState = 8;  // state commands in a candidate's chain
  // Filled by parse(); `state` holds stateCount entries, the rest is left as it was (every key of a frame
  // is parsed, so nothing is zeroed that parse() does not write).
  struct Candidate {
    std::array<Packet, kMaxState> state;
    uint32_t stateCount = 0;
    Packet push{}, draw{};
    CommandType drawType = CommandType::Count;
    const PipelineInstancing* instancing = nullptr;
  };
  // As the frame's requests are applied: a CreatePipeline's auxiliary data opts the pipeline in.
  void onCreatePipeline(const cmd::CreatePipeline& create, std::span<const std::byte> aux);
  void onDestroyPipeline(uint32_t handleValue);
  bool anyOptedIn() const { return optedIn_ > 0; }
  // The opt-in of a live pipeline; nullptr when it does not opt in.
  const PipelineInstancing* instancing(uint32_t handleValue) const;

  // Key `i` of `view`'s sorted keys, translating keys [i, end): when a run of at least kMinRun starts
  // there, dispatches its merged chain to `device`, adds the packets dispatched to `packets` and returns
  // the keys it took; else returns 0 and the caller translates key i as recorded.
  size_t translateRun(Device& device, const FrameView& view, size_t i, size_t end,
                      InstanceMergeCursor& cursor, uint64_t& packets) const;

 private:
  struct Entry {
    uint32_t handle = 0;
    PipelineInstancing instancing{};
  };

  bool parse(const BucketStream& stream, uint32_t head, Candidate& out) const;
  static bool samePacket(const Packet& a, const Packet& b, CommandType type);
  static bool sameRun(const Candidate& a, const Candidate& b);

  std::vector<Entry> pipelines_;  // by handle index
  uint32_t optedIn_ = 0;
};

// One translating thread's place in a range of keys: what it parsed ahead, the constants of the run
// being dispatched. Reset for every range.
struct InstanceMergeCursor {
  size_t noRunBefore = 0;  // keys before this are known to start no run of kMinRun
  size_t pendingIndex = SIZE_MAX;
  // Two candidates parsed in place, never copied: the run's first key and the key compared with it.
  // slots[pendingSlot] is the candidate at pendingIndex, parsed when it ended the run before it.
  InstanceMerger::Candidate slots[2];
  uint32_t pendingSlot = 0;
  std::vector<InstanceMerger::Packet> pushes;  // the run's PushConstants, in sort order
  std::vector<std::byte> constants;
  InstanceMergeCounts counts;
  void reset() {
    noRunBefore = 0;
    pendingIndex = SIZE_MAX;
    counts = {};
  }
};

}  // namespace reel
