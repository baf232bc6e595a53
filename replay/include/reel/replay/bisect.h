#pragma once
// Naming the command of a frame where its image goes wrong, by replaying the frame stopped after sorted
// command p and binary-searching p (what `reel bisect` and the golden suite run). Which command it can
// name depends on what the frame is compared with:
//
//  - Against a golden image of the frame's end (bisectAgainstGolden), only the end is known. The pixels
//    that differ from the golden at the end are the suspects, and "wrong after p" means every suspect
//    already holds its final (wrong) value after p. The answer is the LAST command that brought the
//    differing pixels to their final values: the command that last wrote them, which may come long after
//    the command that first went wrong (a wrong shadow map shows up only when the lit pass reads it).
//  - Against a reference replay (bisectAgainstReplay: the same trace on another device, or a reference
//    trace of the same frame), the image after every p is known on both sides, and "wrong after p"
//    means they differ beyond the tolerance there. The answer is the FIRST command after which the
//    target differs: the first command whose output differs.
//
// Either way the search assumes that once wrong, the image stays wrong for the rest of the frame; a
// frame that goes wrong and then right again can have the search land on any of its wrong stretches.
//
// Cost: the first probe seeks to the frame's end (replaying the frames before it once and taking a
// checkpoint at the frame's start); every later probe restores that checkpoint (a step back) or continues
// from the probe before it (a step forward), so a bisect costs about log2(commands) partial replays of
// one frame. BisectOptions::fromCaptureStart replays every probe from the capture start instead, as bisect
// did before checkpoints: kept to measure the two against each other (scripts/bisect-benchmark.sh).

#include <functional>
#include <optional>

#include "reel/image/compare.h"
#include "reel/replay/session.h"

namespace reel::replay {

enum class BisectAnswer : uint8_t {
  LastWriterOfDifferingPixels,  // against a golden image
  FirstDifferingCommand,        // against a reference replay
};
// What `command` names, in words: "last command that brought the differing pixels to their final values".
const char* bisectAnswerText(BisectAnswer answer);

struct BisectOptions {
  bool fromCaptureStart = false;  // every probe from the capture start (no checkpoints)
  // Called after each probe: probes run so far, and about how many the search takes in all.
  std::function<void(uint64_t probes, uint64_t expected)> progress = {};
};

struct BisectResult {
  BisectAnswer answer = BisectAnswer::FirstDifferingCommand;
  image::Comparison end;            // the whole frame against the reference
  std::optional<uint64_t> command;  // 0-based sorted position of the command named; none if the frame matches
  uint64_t packets = 0;             // sorted packets in the frame (the larger of the two, against a replay)
  uint64_t probes = 0;              // partial replays run, the frame's end not counted
  uint64_t framesReplayed = 0;      // trace frames the bisect submitted (partial ones included), both sides
  double searchSeconds = 0;         // the probes' time, after the frame's end was compared
};

// `target` must name a fixed render target or texture (not LastPass: the last pass moves with the stop).
Result<BisectResult> bisectAgainstGolden(ReplaySession& session, size_t frameIndex,
                                         const TargetChoice& target, const image::Image& golden,
                                         const image::Tolerance& tolerance,
                                         const BisectOptions& options = {});
// `reference` replays its own trace (the same one, or another): its frame with the same frame number is the
// one compared, after the same number of sorted packets.
Result<BisectResult> bisectAgainstReplay(ReplaySession& session, ReplaySession& reference, size_t frameIndex,
                                         const TargetChoice& target, const image::Tolerance& tolerance,
                                         const BisectOptions& options = {});

// The fixed target that the frame's last pass used (from FrameResult::target or TargetImage::name), for a
// LastPass choice; any other choice as it is.
TargetChoice fixedTarget(const FrameResult& replayed, const TargetChoice& choice);
TargetChoice fixedTarget(const TargetImage& read, const TargetChoice& choice);

}  // namespace reel::replay
