#pragma once
// Which render targets a frame renders into, read from its BeginRenderPass packets (by the trace's
// command table, field "target"), for the image panel's choice of target: by default the target the
// selected command renders into, i.e. that of the last BeginRenderPass at or before it in sorted order.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "model/frame_table.h"
#include "reel/trace/header.h"

namespace reel::viewer {

class PassTargets {
 public:
  PassTargets() = default;
  PassTargets(const trace::FrameRecord& frame, const FrameTable& table, const trace::TraceHeader& header);

  // Render targets in the order the sorted frame first begins a pass on them.
  const std::vector<uint32_t>& targets() const { return targets_; }
  // The target of the last pass begun at or before sorted position `position`, or the frame's first
  // target when no pass has begun yet; nothing when the frame has no pass.
  std::optional<uint32_t> targetAt(uint32_t position) const;

 private:
  std::vector<uint32_t> targets_;
  std::vector<std::pair<uint32_t, uint32_t>> begins_;  // (sorted position, target), ascending
};

// Picks a target by index into `targets` ("1"), or by handle name ("render_target#3.1", "render_target#3",
// "#3"); nothing when it names none.
std::optional<uint32_t> findTarget(const std::vector<uint32_t>& targets, std::string_view spec);

}  // namespace reel::viewer
