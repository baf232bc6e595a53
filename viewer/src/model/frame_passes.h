#pragma once
// The passes a frame declares (format 1.5) with its render graph (reel/runtime/frame_graph.h): what
// the Stats panel's "passes" tab lists, in the order they run, each with the passes it waits for. Every
// pass runs on the graphics queue today (PassDesc::queue is what it prefers).

#include <cstdint>
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

// `targetOf` gives a render target's attachments (the resource timeline knows them); a target it does
// not know writes nothing the graph can name.
std::vector<PassRow> framePasses(const trace::FrameRecord& frame, const trace::TraceHeader& header,
                                 const FrameGraphBuilder::TargetLookup& targetOf);

// Render targets as the background scan knows them in frame `number` (it must have scanned that far).
FrameGraphBuilder::TargetLookup scannedTargets(const FrameScanner& scanner, const trace::TraceHeader& header,
                                               uint64_t number);

}  // namespace reel::viewer
