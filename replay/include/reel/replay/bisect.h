#pragma once
// Finding the first sorted command of a frame whose output is wrong, by replaying the frame stopped after
// command p and binary-searching p (what `reel bisect` and the golden tests run).
//
// Against another replay (another device), "wrong" at p means the two images after p differ beyond the
// tolerance. Against a golden image only the frame's end is known: the pixels that differ from the
// golden at the end are the suspects, and "wrong" at p means those pixels already hold their final
// (wrong) values after p, so the search finds the last command that wrote them.

#include <optional>

#include "reel/image/compare.h"
#include "reel/replay/session.h"

namespace reel::replay {

struct BisectResult {
  image::Comparison end;             // the whole frame against the reference
  std::optional<uint64_t> command;   // 0-based sorted position of the first wrong command; none if it matches
  uint64_t probes = 0;               // partial replays run
};

// `target` must name a fixed render target or texture (not LastPass: the last pass moves with the stop).
Result<BisectResult> bisectAgainstGolden(ReplaySession& session, size_t frameIndex, const TargetChoice& target,
                                         const image::Image& golden, const image::Tolerance& tolerance);
Result<BisectResult> bisectAgainstReplay(ReplaySession& session, ReplaySession& reference, size_t frameIndex,
                                         const TargetChoice& target, const image::Tolerance& tolerance);

// The fixed target that the frame's last pass used (from FrameResult::target), for a LastPass choice.
TargetChoice fixedTarget(const FrameResult& replayed, const TargetChoice& choice);

}  // namespace reel::replay
