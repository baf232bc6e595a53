#pragma once
// The passes a recorded frame declares (format 1.5): its DeclarePass requests, by pass id, as this
// build's packets, with their names. What the renderer builds from the same requests when the frame
// replays (declared_passes.h in the runtime), for the tools that read a frame without replaying it:
// which target each pass renders into, what `reel dump` and the viewer name a pass.
//
// A request out of sequence (an id other than the next) is left out, as the renderer ignores it; a
// trace whose DeclarePass this build cannot replay (CommandMap) declares nothing here.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/frame_graph.h"
#include "reel/trace/command_map.h"
#include "reel/trace/header.h"
#include "reel/trace/records.h"

namespace reel::trace {

struct DeclaredPass {
  PassDesc desc;
  std::string_view name;  // into the frame's request data
};

std::vector<DeclaredPass> declaredPasses(const FrameRecord& frame, const CommandMap& commands);

// Key `key` of `bucket` as every tool prints it: "declared_pass=N " when it names a pass (which sorts
// above the key itself), then its fields by the trace's key layout (TraceHeader::formatKey).
std::string formatRecordedKey(const TraceHeader& header, const BucketRecord& bucket, size_t key);

// The frame's render graph (frame_graph.h) from its declared passes (declaredPasses' answer) and its sorted
// packets, as the renderer builds it: graph.passes holds the declared passes and, last, one for the keys
// that name none (they run after the declared passes). A packet this build cannot replay (CommandMap) adds
// nothing.
FrameGraph frameGraph(const FrameRecord& frame, std::span<const DeclaredPass> declared,
                      const CommandMap& commands, const FrameGraphBuilder::TargetLookup& targetOf);

}  // namespace reel::trace
