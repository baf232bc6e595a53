#include "reel/replay/bisect.h"

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace reel::replay {
namespace {

struct Probe {
  image::Image image;
  uint64_t packets = 0;         // sorted packets in the frame
  uint64_t framesReplayed = 0;  // trace frames submitted to get there
};

// The target after `stop` sorted packets of frame `index`.
Result<Probe> imageAfter(ReplaySession& s, size_t index, uint64_t stop, const TargetChoice& target,
                         const BisectOptions& options) {
  if (options.fromCaptureStart) {
    // replayFrame goes back by starting over from the capture start.
    if (auto ok = s.restart(); !ok) return ok.error();
    auto result = s.replayFrame(index, stop, target);
    if (!result) return result.error();
    return Probe{std::move(*result->image), result->packets, index + 1};
  }
  auto position = s.seek(index, stop);
  if (!position) return position.error();
  auto image = s.readTarget(target);
  if (!image) return image.error();
  return Probe{std::move(image->image), position->packets, position->framesReplayed};
}

// Smallest p in (0, packets] with wrong(p), given wrong(packets).
Result<uint64_t> search(uint64_t packets, BisectResult& result, const BisectOptions& options,
                        const std::function<Result<bool>(uint64_t)>& wrong) {
  const auto started = std::chrono::steady_clock::now();
  uint64_t& probes = result.probes;
  const uint64_t expected = packets > 1 ? std::bit_width(packets - 1) : 0;
  uint64_t lo = 0, hi = packets;
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    auto w = wrong(mid);
    ++probes;
    if (!w) return w.error();
    (*w ? hi : lo) = mid;
    if (options.progress) options.progress(probes, std::max(expected, probes));
  }
  result.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return hi;
}

}  // namespace

const char* bisectAnswerText(BisectAnswer answer) {
  switch (answer) {
    case BisectAnswer::LastWriterOfDifferingPixels:
      return "the last command that brought the differing pixels to their final values";
    case BisectAnswer::FirstDifferingCommand:
      return "the first command whose output differs";
  }
  return "?";
}

namespace {
TargetChoice fixedTarget(const std::string& name, const TargetChoice& choice) {
  if (choice.kind != TargetChoice::Kind::LastPass) return choice;
  TargetChoice fixed;  // a last pass's target reads "render_target#N color A (texture#T)"
  fixed.kind = TargetChoice::Kind::RenderTarget;
  std::sscanf(name.c_str(), "render_target#%u color %u", &fixed.index, &fixed.attachment);
  return fixed;
}
}  // namespace

TargetChoice fixedTarget(const FrameResult& replayed, const TargetChoice& choice) {
  return fixedTarget(replayed.target, choice);
}

TargetChoice fixedTarget(const TargetImage& read, const TargetChoice& choice) {
  return fixedTarget(read.name, choice);
}

Result<BisectResult> bisectAgainstGolden(ReplaySession& session, size_t frameIndex,
                                         const TargetChoice& target, const image::Image& golden,
                                         const image::Tolerance& tolerance, const BisectOptions& options) {
  auto full = imageAfter(session, frameIndex, UINT64_MAX, target, options);
  if (!full) return full.error();
  BisectResult result;
  result.answer = BisectAnswer::LastWriterOfDifferingPixels;
  result.packets = full->packets;
  result.framesReplayed = full->framesReplayed;
  const image::Image actual = std::move(full->image);
  result.end = image::compare(actual, golden, tolerance);
  if (result.end.matches || !result.end.sameSize) return result;
  const image::Image& diff = result.end.diff;
  auto wrong = [&](uint64_t p) -> Result<bool> {
    auto now = imageAfter(session, frameIndex, p, target, options);
    if (!now) return now.error();
    result.framesReplayed += now->framesReplayed;
    for (size_t i = 0; i < size_t{now->image.width} * now->image.height; ++i) {
      const bool suspect = diff.rgba[i * 4] != diff.rgba[i * 4 + 1];  // red in the diff, not grey
      if (suspect && std::memcmp(&now->image.rgba[i * 4], &actual.rgba[i * 4], 4) != 0) return false;
    }
    return true;
  };
  auto hi = search(result.packets, result, options, wrong);
  if (!hi) return hi.error();
  result.command = *hi - 1;
  return result;
}

Result<BisectResult> bisectAgainstReplay(ReplaySession& session, ReplaySession& reference, size_t frameIndex,
                                         const TargetChoice& target, const image::Tolerance& tolerance,
                                         const BisectOptions& options) {
  const uint64_t number = session.reader().frameNumber(frameIndex);
  std::optional<size_t> referenceIndex;
  for (size_t i = 0; i < reference.reader().frameCount() && !referenceIndex; ++i) {
    if (reference.reader().frameNumber(i) == number) referenceIndex = i;
  }
  if (!referenceIndex) return fail(reference.reader().name(), ": the reference has no frame ", number);
  auto mine = imageAfter(session, frameIndex, UINT64_MAX, target, options);
  if (!mine) return mine.error();
  auto theirs = imageAfter(reference, *referenceIndex, UINT64_MAX, target, options);
  if (!theirs) return theirs.error();
  BisectResult result;
  result.answer = BisectAnswer::FirstDifferingCommand;
  result.packets = std::max(mine->packets, theirs->packets);
  result.framesReplayed = mine->framesReplayed + theirs->framesReplayed;
  result.end = image::compare(mine->image, theirs->image, tolerance);
  if (result.end.matches || !result.end.sameSize) return result;
  auto wrong = [&](uint64_t p) -> Result<bool> {
    auto a = imageAfter(session, frameIndex, p, target, options);
    if (!a) return a.error();
    auto b = imageAfter(reference, *referenceIndex, p, target, options);
    if (!b) return b.error();
    result.framesReplayed += a->framesReplayed + b->framesReplayed;
    return !image::compare(a->image, b->image, tolerance).matches;
  };
  auto hi = search(result.packets, result, options, wrong);
  if (!hi) return hi.error();
  result.command = *hi - 1;
  return result;
}

}  // namespace reel::replay
