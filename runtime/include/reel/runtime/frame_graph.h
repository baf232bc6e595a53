#pragma once
// A frame's render graph (docs/passes-and-graph.md, step 2): what each declared pass reads and writes,
// and which earlier passes it depends on. Built from the pass table and the frame's sorted packets by
// what each command declares in commands.inc (its semantics and its field table), with no list of
// commands of its own:
//   - a pass with a target writes the target's attachments, and reads those it loads (LoadOp::Load);
//     so does a BeginRenderPass packet recorded inside a pass;
//   - a SetState command reads the buffers and textures it binds, and also writes them when its
//     semantics say writable() and the pass has no target (a storage buffer in a compute pass: nothing
//     reflects what a shader writes, so binding one counts as writing it; graphics stages only read
//     storage buffers in reel's binding model);
//   - a Transfer command reads its `source` and writes its other buffers and textures.
// Pass B depends on an earlier pass A when B reads what A writes (read after write) or writes what A
// reads or writes. The graph never reorders passes: passes run in declaration order, and what the
// graph decides (barriers, transient targets, queues) never changes an image.
//
// Usage (given std::span<const reel::PassDesc> passes, reel::RenderTargetDesc rt, reel::cmd::BindTexture t):
//   auto targetOf = [&](reel::RenderTargetHandle) { return std::optional(rt); };
//   reel::FrameGraphBuilder builder(passes, targetOf);
//   // Every sorted packet of a declared pass, in order, with the pass its key names:
//   builder.add(0, t.kType, std::as_bytes(std::span(&t, 1)));
//   const reel::FrameGraph graph = builder.finish();
//   const bool afterAnother = !graph.passes.empty() && !graph.passes[0].dependsOn.empty();
//   (void)afterAnother;

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "reel/runtime/commands.h"

namespace reel {

// A buffer or a texture, by kind and handle value.
struct GraphResource {
  ResourceKind kind = ResourceKind::Count;
  uint32_t handle = 0;
  friend constexpr auto operator<=>(const GraphResource&, const GraphResource&) = default;
};

struct GraphPass {
  std::vector<GraphResource> reads;   // sorted, unique
  std::vector<GraphResource> writes;  // sorted, unique
  std::vector<uint32_t> dependsOn;    // earlier passes, ascending
  uint64_t packets = 0;               // the pass's sorted packets
  // The least a queue must do to run the pass's commands: Transfer for copies and buffer updates only,
  // AsyncCompute once a dispatch is among them, Graphics for drawing, blits or a target.
  QueueClass needs = QueueClass::Transfer;
  // Rendering cannot go on across one of its commands: a dispatch or a transfer after the pass's first
  // draw (those before it run before rendering begins), or a BeginRenderPass / EndRenderPass packet.
  bool interrupted = false;
  // A transfer among its commands (a copy or a blit) names a texture (only graphics queues copy depth
  // and stencil aspects).
  bool copiesTextures = false;
};

// The queue a pass runs on, on a device with a queue of every class (Device::preferQueue): the queue
// the pass prefers when it can run all of the pass's commands (a pass with a target draws: graphics),
// else the compute queue when that can, else graphics. A device without such a queue runs it on graphics.
QueueClass passQueue(const PassDesc& desc, const GraphPass& pass);

struct FrameGraph {
  std::vector<GraphPass> passes;  // by pass id
};

// ---- transient textures (texture_usage::kTransient) ----

// A transient texture in one frame: the passes from the first that touches it to the last.
struct TransientLife {
  uint32_t texture = 0;  // the handle's value
  uint32_t first = 0, last = 0;
  bool discardable = false;  // its first pass writes it without reading it: its old contents are not needed
  bool graphicsOnly = true;  // every pass that touches it runs on the graphics queue (passQueue)
};

// The frame's transient textures, by first pass; `isTransient` says which textures the app marked so.
std::vector<TransientLife> transientLives(std::span<const PassDesc> passes, const FrameGraph& graph,
                                          const std::function<bool(uint32_t texture)>& isTransient);

// Per declared pass (`passes`; the graph may hold one more, the keys that name none), the transient
// attachments it stores DONT_CARE (Device::discardAtPassEnd): textures whose life ends at that pass, which
// has a target, is not interrupted (GraphPass::interrupted: rendering runs through it) and writes them (a
// target pass that is not interrupted writes only its attachments).
std::vector<std::vector<GraphResource>> discardedAttachments(std::span<const PassDesc> passes,
                                                             const FrameGraph& graph,
                                                             std::span<const TransientLife> lives);

// Memory shared by textures whose lives do not overlap (Granite's physical-resource aliasing): items go, in
// order of their first pass, into the first group whose members all ended before it begins and whose
// memory types suit it; a group takes the largest size and alignment of its members.
struct AliasItem {
  uint32_t first = 0, last = 0;
  uint64_t size = 0, alignment = 1;
  uint32_t memoryTypes = ~0u;
};
struct AliasGroup {
  std::vector<size_t> items;  // indexes into the items
  uint64_t size = 0, alignment = 1;
  uint32_t memoryTypes = ~0u;
  uint32_t last = 0;  // the last pass of its members
};
std::vector<AliasGroup> aliasGroups(std::span<const AliasItem> items);
// The bytes the groups save: the items' sizes less the groups'.
uint64_t aliasedBytesSaved(std::span<const AliasItem> items, std::span<const AliasGroup> groups);

class FrameGraphBuilder {
 public:
  // A render target's attachments; nothing when the handle is not a live target (its pass then writes
  // nothing the graph can name).
  using TargetLookup = std::function<std::optional<RenderTargetDesc>(RenderTargetHandle)>;

  FrameGraphBuilder() = default;
  // Without `targetOf` the builder is a part of a frame's build (see merge): a BeginRenderPass packet's
  // target is kept to be looked up where the part is merged.
  FrameGraphBuilder(std::span<const PassDesc> passes, TargetLookup targetOf);
  // The next sorted packet, of pass `pass`, as this build's command; packets of other passes are ignored.
  void add(uint32_t pass, CommandType type, std::span<const std::byte> payload);
  // A packet known to be well formed (`payload` holds the command's whole struct), as the renderer's own
  // streams hold them, at `position` in the frame's sorted order (positions ascend along it; a part's
  // packets may come in any order).
  void addPacket(uint32_t pass, uint64_t position, CommandType type, const std::byte* payload);
  // Whether packets of `type` only count for their pass (they bind, transfer, interrupt and begin
  // nothing; draws among them), and what they need of a queue: the sweep adds those in bulk, `packets` of
  // pass `pass` at a time, with the position of the first draw among them (UINT64_MAX: none).
  static bool isPlain(CommandType type, QueueClass& needs);
  void addPlain(uint32_t pass, uint64_t packets, QueueClass needs, uint64_t firstDraw);
  // The packets a part (a builder over the same passes, made without a target lookup) was given, as if
  // they had been added here: parts of one frame built on several threads (the translation sweep's
  // segments), merged in any order.
  void merge(const FrameGraphBuilder& part);
  // Drops the repeats among the packets added so far: a part does it before it is merged, on its own
  // thread, so that merging copies each pass's resources once per part.
  void compact();
  FrameGraph finish();

 private:
  void addTarget(GraphPass& pass, RenderTargetHandle target, LoadOp colorLoad, LoadOp depthLoad);
  void addUnique(uint32_t pass, bool write, GraphResource r);

  struct PendingTarget {
    uint32_t pass;
    RenderTargetHandle target;
    LoadOp colorLoad, depthLoad;
  };
  // Per pass, where rendering begins and the last command it cannot go on across (GraphPass::interrupted;
  // finish() compares them).
  struct Order {
    uint64_t firstDraw = UINT64_MAX;
    uint64_t interruptionEnd = 0;  // one past the last dispatch or transfer's position; 0: none
  };
  void order(uint32_t pass, uint64_t position, bool draw);

  TargetLookup targetOf_;
  std::vector<GraphPass> passes_;
  std::vector<Order> order_;            // by pass
  uint64_t next_ = 0;                   // add()'s position
  std::vector<uint8_t> graphics_;       // per pass: it has a target
  std::vector<PendingTarget> pending_;  // a part's BeginRenderPass targets
  static constexpr uint32_t kSeenBits = 6;
  std::array<uint64_t, 1u << kSeenBits> seen_{};  // addUnique's resources added lately
};

}  // namespace reel
