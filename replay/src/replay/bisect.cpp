#include "reel/replay/bisect.h"

#include <cstdio>
#include <cstring>
#include <functional>

namespace reel::replay {
namespace {

Result<image::Image> imageAfter(ReplaySession& s, size_t index, uint64_t stop, const TargetChoice& target) {
  auto result = s.replayFrame(index, stop, target);
  if (!result) return result.error();
  return std::move(*result->image);
}

// Smallest p in (0, packets] with wrong(p), given wrong(packets).
Result<uint64_t> search(uint64_t packets, uint64_t& probes, const std::function<Result<bool>(uint64_t)>& wrong) {
  uint64_t lo = 0, hi = packets;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    auto w = wrong(mid);
    ++probes;
    if (!w) return w.error();
    (*w ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

TargetChoice fixedTarget(const FrameResult& replayed, const TargetChoice& choice) {
  if (choice.kind != TargetChoice::Kind::LastPass) return choice;
  TargetChoice fixed;  // replayed.target reads "render_target#N color A (texture#T)"
  fixed.kind = TargetChoice::Kind::RenderTarget;
  std::sscanf(replayed.target.c_str(), "render_target#%u color %u", &fixed.index, &fixed.attachment);
  return fixed;
}

Result<BisectResult> bisectAgainstGolden(ReplaySession& session, size_t frameIndex, const TargetChoice& target,
                                         const image::Image& golden, const image::Tolerance& tolerance) {
  auto full = session.replayFrame(frameIndex, UINT64_MAX, target);
  if (!full) return full.error();
  BisectResult result;
  const image::Image actual = std::move(*full->image);
  result.end = image::compare(actual, golden, tolerance);
  if (result.end.matches || !result.end.sameSize) return result;
  const image::Image& diff = result.end.diff;
  auto wrong = [&](uint64_t p) -> Result<bool> {
    auto now = imageAfter(session, frameIndex, p, target);
    if (!now) return now.error();
    for (size_t i = 0; i < size_t{now->width} * now->height; ++i) {
      const bool suspect = diff.rgba[i * 4] != diff.rgba[i * 4 + 1];  // red in the diff, not grey
      if (suspect && std::memcmp(&now->rgba[i * 4], &actual.rgba[i * 4], 4) != 0) return false;
    }
    return true;
  };
  auto hi = search(full->packets, result.probes, wrong);
  if (!hi) return hi.error();
  result.command = *hi - 1;
  return result;
}

Result<BisectResult> bisectAgainstReplay(ReplaySession& session, ReplaySession& reference, size_t frameIndex,
                                         const TargetChoice& target, const image::Tolerance& tolerance) {
  auto mine = session.replayFrame(frameIndex, UINT64_MAX, target);
  if (!mine) return mine.error();
  auto theirs = imageAfter(reference, frameIndex, UINT64_MAX, target);
  if (!theirs) return theirs.error();
  BisectResult result;
  result.end = image::compare(*mine->image, *theirs, tolerance);
  if (result.end.matches || !result.end.sameSize) return result;
  auto wrong = [&](uint64_t p) -> Result<bool> {
    auto a = imageAfter(session, frameIndex, p, target);
    if (!a) return a.error();
    auto b = imageAfter(reference, frameIndex, p, target);
    if (!b) return b.error();
    return !image::compare(*a, *b, tolerance).matches;
  };
  auto hi = search(mine->packets, result.probes, wrong);
  if (!hi) return hi.error();
  result.command = *hi - 1;
  return result;
}

}  // namespace reel::replay
