#pragma once
// The passes a frame declares (format 1.5) with its render graph (reel/runtime/frame_graph.h): what
// the Stats panel's "passes" tab lists, in the order they run, each with the passes it waits for, and the
// frame's transient textures with the memory they would share (the aliasing map).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/frame_scan.h"
#include "reel/runtime/frame_graph.h"
#include "reel/trace/header.h"
#include "reel/trace/records.h"

namespace reel::viewer {

struct PassRow {
  std::string name;
  PassDesc desc;
  GraphPass graph;
};

// The declared passes, and what the keys that name none (run after them) read and write.
struct FramePasses {
  std::vector<PassRow> rows;
  GraphPass outside;
};
// `targetOf` gives a render target's attachments (the resource timeline knows them); a target it does
// not know writes nothing the graph can name.
FramePasses framePasses(const trace::FrameRecord& frame, const trace::TraceHeader& header,
                        const FrameGraphBuilder::TargetLookup& targetOf);

// The frame's transient textures (texture_usage::kTransient) and the memory groups they share on a device
// with one queue (aliasGroups over those whose first pass writes them without reading them), with sizes
// estimated from their descriptions (texels x bytes per texel, every mip level): a device pads them; and
// which are stored DONT_CARE at their last pass (discardedAttachments), as a replay that runs the frame
// whole does.
struct TransientRow {
  TransientLife life;  // `last` is rows.size() where the keys naming no pass touch it
  uint64_t bytes = 0;
  int group = -1;  // index into TransientMap::groups; -1: keeps its memory (its old contents matter)
  bool discarded = false;
};
struct TransientMap {
  std::vector<TransientRow> textures;
  std::vector<AliasGroup> groups;  // items index `textures`
  uint64_t bytes = 0, saved = 0;
};
using TextureLookup = std::function<std::optional<TextureDesc>(uint32_t texture)>;
TransientMap transientMap(const FramePasses& passes, const TextureLookup& textureOf);

// Render targets as the background scan knows them in frame `number` (it must have scanned that far).
FrameGraphBuilder::TargetLookup scannedTargets(const FrameScanner& scanner, const trace::TraceHeader& header,
                                               uint64_t number);
// Textures, the same way.
TextureLookup scannedTextures(const FrameScanner& scanner, const trace::TraceHeader& header, uint64_t number);

}  // namespace reel::viewer
