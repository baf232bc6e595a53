#include "ab_blocks.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "run.h"

namespace reel::samples {

AbBlocks::AbBlocks(Renderer& renderer, Setup setup) : renderer_(renderer), setup_(std::move(setup)) {
  setup_.blockFrames = std::max(setup_.blockFrames, setup_.skipFrames + 1);
}

AbBlocks::~AbBlocks() {
  (void)finish();
}

Result<void> AbBlocks::beforeFrame(uint64_t n) {
  if (n < kWarmUpFrames || (n - kWarmUpFrames) % setup_.blockFrames != 0) return {};
  const bool on = onBlock(n);
  if (on) {
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
  return {};
}

void AbBlocks::afterKick(uint64_t n, double intervalMs) {
  // The interval from frame n - 1 to frame n, counted where both are in one block past its first frames.
  if (n <= kWarmUpFrames) return;
  const uint64_t position = (n - kWarmUpFrames) % setup_.blockFrames;
  if (position < std::max(1u, setup_.skipFrames)) return;
  (onBlock(n) ? onMs_ : offMs_).push_back(intervalMs);
}

Result<void> AbBlocks::finish() {
  return endOn();
}

std::string AbBlocks::summary() const {
  const double off = medianOf(offMs_), on = medianOf(onMs_);
  const char* what = setup_.capture ? "capture" : setup_.tap ? "frame tap" : "nothing";
  char line[400];
  int n = std::snprintf(line, sizeof line,
                        "A/B: %llu blocks of %u frames without and %llu with %s (the first %u intervals of "
                        "each left out): median ms/frame off %.4f, on %.4f (%.3fx, %+.1f%%)",
                        static_cast<unsigned long long>(offBlocks_), setup_.blockFrames,
                        static_cast<unsigned long long>(onBlocks_), what, setup_.skipFrames, off, on,
                        off > 0 ? on / off : 0.0, off > 0 ? (on / off - 1) * 100 : 0.0);
  if (setup_.capture && n > 0 && size_t(n) < sizeof line) {
    std::snprintf(
        line + n, sizeof line - size_t(n),
        "; render thread waited %llu times (%.2f ms); %llu frames captured, %.2f ms capture CPU a frame",
        static_cast<unsigned long long>(renderWaits_), double(renderWaitNs_) / 1e6,
        static_cast<unsigned long long>(framesCaptured_),
        framesCaptured_ ? double(captureCpuNs_) / double(framesCaptured_) / 1e6 : 0.0);
  }
  return line;
}

}  // namespace reel::samples
