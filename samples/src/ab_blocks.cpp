#include "ab_blocks.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "run.h"

namespace reel::samples {

AbBlocks::AbBlocks(Renderer& renderer, Setup setup)
    : renderer_(renderer), setup_(std::move(setup)), frameOfFirst_(renderer.recordingFrame()) {
  setup_.blockFrames = std::max(setup_.blockFrames, setup_.skipFrames + 1);
  phaseObserver_.blocks = this;
  phaseRegistration_ = renderer_.addObserver(phaseObserver_);
}

AbBlocks::~AbBlocks() {
  (void)finish();
}

Result<void> AbBlocks::beforeFrame(uint64_t n) {
  if (n < kWarmUpFrames || (n - kWarmUpFrames) % setup_.blockFrames != 0) return {};
  const bool on = onBlock(n);
  if (on) {
    // A capture or tap starts afresh in every on-block, also in one that follows another.
    if (auto ended = endOn(); !ended) return ended;
    ++onBlocks_;
    on_ = true;
    if (setup_.capture) {
      capture::CaptureOptions options = *setup_.capture;
      options.firstFrame = capture::kNextFrame;
      options.lastFrame = capture::kNoLastFrame;
      options.log = nullptr;  // the run's summary says what the blocks' captures did
      auto started = capture::Capture::start(renderer_, std::move(options));
      if (!started) return started.error();
      capture_ = std::move(*started);
    } else if (setup_.tap) {
      tapRegistration_ = renderer_.addObserver(tap_.emplace(*setup_.tap));
    } else if (setup_.workerLimit) {
      renderer_.limitWorkers(setup_.workerLimit);
    }
    return {};
  }
  ++offBlocks_;
  return endOn();
}

Result<void> AbBlocks::endOn() {
  if (!on_) return {};
  on_ = false;
  if (capture_) {
    const Result<void> finished = capture_->finish();
    const capture::CaptureStats stats = capture_->stats();
    renderWaits_ += stats.renderWaits;
    renderWakes_ += stats.renderWakes;
    priorityRaises_ += stats.priorityRaises;
    renderWaitNs_ += stats.renderWaitNs;
    framesCaptured_ += stats.framesWritten;
    captureCpuNs_ += stats.writerCpuNs + stats.encodeCpuNs + stats.compressCpuNs;
    capture_.reset();
    if (!finished) return finished;
  }
  if (tap_) {
    tapRegistration_.reset();
    tap_->finish();
    tap_.reset();
  }
  if (setup_.workerLimit) renderer_.limitWorkers(0);
  return {};
}

uint64_t AbBlocks::measuredInBlock(uint64_t n) const {
  // The interval from frame n - 1 to frame n counts where both are in one block past its first frames.
  if (n <= kWarmUpFrames) return 0;
  const uint64_t position = (n - kWarmUpFrames) % setup_.blockFrames;
  const uint32_t first = std::max(1u, setup_.skipFrames);
  return position >= first ? position - first + 1 : 0;
}

void AbBlocks::afterKick(uint64_t n, const KickTimes& times) {
  const uint64_t measured = measuredInBlock(n);
  if (measured == 0) return;
  KickSamples& side = onBlock(n) ? onKick_ : offKick_;
  if (measured == 1) {
    side.blockStarts.push_back(side.intervalMs.size());
    blockIsOn_.push_back(&side == &onKick_);
  }
  side.intervalMs.push_back(times.intervalMs);
  side.recordMs.push_back(times.recordMs);
  side.kickMs.push_back(times.kickMs);
}

void AbBlocks::PhaseObserver::onFrameEnd(const FrameTiming& timing) {
  const uint64_t n = timing.frame - blocks->frameOfFirst_;
  if (timing.frame < blocks->frameOfFirst_ || blocks->measuredInBlock(n) == 0) return;
  std::lock_guard lock(blocks->renderMutex_);
  RenderSamples& side = blocks->onBlock(n) ? blocks->onRender_ : blocks->offRender_;
  side.totalMs.push_back(double(timing.totalWall().count()) / 1e6);
  for (size_t p = 0; p < kFramePhaseCount; ++p)
    side.phaseMs[p].push_back(double(timing.wall[p].count()) / 1e6);
}

Result<void> AbBlocks::finish() {
  Result<void> ended = endOn();
  // Every frame kicked so far has ended on the render thread once this returns.
  phaseRegistration_.reset();
  return ended;
}

std::vector<double> AbBlocks::KickSamples::blockMedians() const {
  std::vector<double> medians;
  for (size_t b = 0; b < blockStarts.size(); ++b) {
    const size_t end = b + 1 < blockStarts.size() ? blockStarts[b + 1] : intervalMs.size();
    medians.push_back(medianOf({intervalMs.begin() + long(blockStarts[b]), intervalMs.begin() + long(end)}));
  }
  return medians;
}

std::pair<double, double> AbBlocks::KickSamples::blockMedianRange() const {
  const std::vector<double> medians = blockMedians();
  if (medians.empty()) return {0, 0};
  const auto [low, high] = std::minmax_element(medians.begin(), medians.end());
  return {*low, *high};
}

std::string AbBlocks::pairs() const {
  const std::vector<double> off = offKick_.blockMedians(), on = onKick_.blockMedians();
  std::vector<double> inOrder;  // each measured block's median, in the run's order
  size_t nextOff = 0, nextOn = 0;
  for (const bool isOn : blockIsOn_) inOrder.push_back(isOn ? on[nextOn++] : off[nextOff++]);
  // Blocks 2k and 2k + 1 are one of each side (onBlock); a last block without its pair is left out.
  std::vector<double> ratios;
  for (size_t b = 0; b + 1 < inOrder.size(); b += 2) {
    const double onMs = blockIsOn_[b] ? inOrder[b] : inOrder[b + 1];
    const double offMs = blockIsOn_[b] ? inOrder[b + 1] : inOrder[b];
    if (offMs > 0) ratios.push_back(onMs / offMs);
  }
  std::string line = "A/B block pairs (on/off of blocks side by side, medians):";
  for (size_t i = 0; i < ratios.size(); ++i) {
    char ratio[24];
    std::snprintf(ratio, sizeof ratio, "%s %.4f", i ? "," : "", ratios[i]);
    line += ratio;
  }
  const double median = medianOf(ratios);
  char tail[64];
  std::snprintf(tail, sizeof tail, " (median %.4fx, %+.1f%%)", median,
                ratios.empty() ? 0.0 : (median - 1) * 100);
  return line + tail;
}

std::string AbBlocks::summary() const {
  const double off = medianOf(offKick_.intervalMs), on = medianOf(onKick_.intervalMs);
  char limit[48];
  std::snprintf(limit, sizeof limit, "at most %u render workers", setup_.workerLimit);
  const char* what = setup_.capture       ? "capture"
                     : setup_.tap         ? "frame tap"
                     : setup_.workerLimit ? limit
                                          : "nothing";
  char line[480];
  int n = std::snprintf(line, sizeof line,
                        "A/B: %llu blocks of %u frames without and %llu with %s (the first %u intervals of "
                        "each left out): median ms/frame off %.4f, on %.4f (%.3fx, %+.1f%%)",
                        static_cast<unsigned long long>(offBlocks_), setup_.blockFrames,
                        static_cast<unsigned long long>(onBlocks_), what, setup_.skipFrames, off, on,
                        off > 0 ? on / off : 0.0, off > 0 ? (on / off - 1) * 100 : 0.0);
  if (setup_.capture && n > 0 && size_t(n) < sizeof line) {
    std::snprintf(
        line + n, sizeof line - size_t(n),
        "; render thread waited %llu times (%.2f ms) and woke the capture's threads %llu times; %llu frames "
        "captured, %.2f ms capture CPU a frame; threads raised to normal priority %llu times",
        static_cast<unsigned long long>(renderWaits_), double(renderWaitNs_) / 1e6,
        static_cast<unsigned long long>(renderWakes_), static_cast<unsigned long long>(framesCaptured_),
        framesCaptured_ ? double(captureCpuNs_) / double(framesCaptured_) / 1e6 : 0.0,
        static_cast<unsigned long long>(priorityRaises_));
  }
  const auto [offLow, offHigh] = offKick_.blockMedianRange();
  const auto [onLow, onHigh] = onKick_.blockMedianRange();
  std::string text = line;
  char spread[160];
  std::snprintf(spread, sizeof spread, "; block medians off %.4f to %.4f, on %.4f to %.4f", offLow, offHigh,
                onLow, onHigh);
  return text + spread;
}

std::string AbBlocks::breakdown() const {
  std::string line = "A/B breakdown (median ms off -> on):";
  auto add = [&line](const char* before, const char* name, const std::vector<double>& off,
                     const std::vector<double>& on) {
    char part[96];
    std::snprintf(part, sizeof part, "%s%s %.4f -> %.4f", before, name, medianOf(off), medianOf(on));
    line += part;
  };
  add(" ", "record", offKick_.recordMs, onKick_.recordMs);
  add(", ", "kick", offKick_.kickMs, onKick_.kickMs);
  std::lock_guard lock(renderMutex_);
  add(", ", "render thread", offRender_.totalMs, onRender_.totalMs);
  for (size_t p = 0; p < kFramePhaseCount; ++p) {
    add(p ? ", " : " (", framePhaseName(static_cast<FramePhase>(p)), offRender_.phaseMs[p],
        onRender_.phaseMs[p]);
  }
  line += ")";
  return line;
}

}  // namespace reel::samples
