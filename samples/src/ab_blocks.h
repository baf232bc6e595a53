#pragma once
// What an observer costs an app's frame, measured inside one process (reel-sample --ab): the frames
// after the first two come in blocks of `blockFrames`, without and with the measured observer (a
// capture, started afresh for each block and finished at its end; the frame tap; a limit on the render
// workers; or nothing, which measures the method's own noise), and the kick-to-kick intervals of each kind
// are pooled. The blocks come in the order off, on, on, off, off, on, on, off, ..., so that a drift of the
// host's speed over the run weighs on both sides alike where the blocks are a multiple of four (off, on,
// off, on would put every on-block after its off-block); each on-block is also set against the off-block
// beside it (blocks 2k and 2k + 1), which leaves out the host's slower changes of speed from block to
// block. Runs of the app alone and with a capture, set side by side, also differ by where each process's
// memory and threads landed: on the H100 host the app alone against itself differed by up to 7% in the
// medians of ten runs each (docs/measurements/h100-2026-11-28h-capture-floor). Blocks in one process
// share that.
//
//   AbBlocks ab(renderer, {.blockFrames = 40, .capture = options});
//   for (uint64_t n = 0; n < frames; ++n) {
//     if (auto r = ab.beforeFrame(n); !r) ...;   // starts or ends the observer at a block's edge
//     record(); kick();
//     ab.afterKick(n, {msSincePreviousKick, recordMs, kickMs});
//   }
//   ab.finish();
//   std::string line = ab.summary();      // the two medians and their ratio
//   std::string where = ab.breakdown();   // which thread and render-thread phase the difference is in

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frame_tap.h"
#include "reel/capture/capture.h"
#include "reel/runtime/renderer.h"
#include "reel/runtime/result.h"

namespace reel::samples {

class AbBlocks {
 public:
  struct Setup {
    uint32_t blockFrames = 40;
    // Intervals left out at the start of each block: a capture's start (its snapshot of every resource)
    // and end (the writer drained) fall there, and the block before's observer still ends.
    uint32_t skipFrames = 2;
    std::optional<capture::CaptureOptions> capture;  // on-blocks capture with these (path, threads, ...)
    std::optional<FrameTap::Options> tap;            // or tap with these
    uint32_t workerLimit = 0;  // or limit the render workers to this many (Renderer::limitWorkers)
  };
  static constexpr uint64_t kWarmUpFrames = 2;  // frames before the first block

  AbBlocks(Renderer& renderer, Setup setup);
  ~AbBlocks();
  AbBlocks(const AbBlocks&) = delete;
  AbBlocks& operator=(const AbBlocks&) = delete;

  // Kick thread, before frame n of the run (counted from 0) is recorded.
  Result<void> beforeFrame(uint64_t n);
  // The kick thread's side of frame n: `intervalMs` from frame n - 1's kick to frame n's, of which
  // recording it took `recordMs` and kicking it (waiting for a free frame slot) `kickMs`.
  struct KickTimes {
    double intervalMs = 0, recordMs = 0, kickMs = 0;
  };
  // Kick thread, after frame n was kicked.
  void afterKick(uint64_t n, const KickTimes& times);
  // Ends the block in progress (its capture finished).
  Result<void> finish();
  // "A/B: 10 blocks of 40 frames each way, capture: off 11.20 ms, on 11.52 ms (1.029x, +2.9%) ..., block
  // medians off 11.02 to 11.41, on 11.30 to 11.77": the pooled medians, their ratio, and each side's
  // spread from block to block, which says how far apart the two must be to differ.
  std::string summary() const;
  // "A/B block pairs (on/off of blocks side by side, medians): 1.021, 0.998, 1.012, 1.004 (median
  // 1.008x, +0.8%)": each on-block's median interval over that of the off-block beside it.
  std::string pairs() const;
  // "A/B breakdown (median ms off -> on): record 0.210 -> 0.212, kick 0.020 -> 0.051, render thread
  // 0.430 -> 0.462 (begin ..., translate ...)": the same intervals' medians per thread and per
  // render-thread phase, to tell which side of the frame an observer slows.
  std::string breakdown() const;

 private:
  // Samples of the measured frames, one each: the kick thread's steps, and the render thread's phases
  // (FrameTiming, from onFrameEnd) and their sum.
  struct KickSamples {
    std::vector<double> intervalMs, recordMs, kickMs;
    std::vector<size_t> blockStarts;  // where each block's intervals begin in intervalMs
    // Each block's median interval, and the lowest and highest of them: how far the side moves within
    // the run.
    std::vector<double> blockMedians() const;
    std::pair<double, double> blockMedianRange() const;
  };
  struct RenderSamples {
    std::vector<double> totalMs;
    std::array<std::vector<double>, kFramePhaseCount> phaseMs;
  };
  // Hands every frame's render-thread phases to the AbBlocks, whether or not its block is on, so that
  // both sides pay for the same observer call.
  struct PhaseObserver : FrameObserver {
    AbBlocks* blocks = nullptr;
    void onFrame(const FrameView&) override {}
    void onFrameEnd(const FrameTiming& timing) override;
  };
  // Where frame n's interval falls among its block's measured ones: 1 for the first, 0 where it is not
  // measured.
  uint64_t measuredInBlock(uint64_t n) const;
  // Blocks 1, 2, 5, 6, 9, 10, ... are on.
  bool onBlock(uint64_t n) const { return ((n - kWarmUpFrames) / setup_.blockFrames + 1) / 2 % 2 == 1; }
  Result<void> endOn();

  Renderer& renderer_;
  Setup setup_;
  bool on_ = false;
  std::unique_ptr<capture::Capture> capture_;
  std::optional<FrameTap> tap_;
  ObserverRegistration tapRegistration_;
  PhaseObserver phaseObserver_;
  ObserverRegistration phaseRegistration_;
  uint64_t frameOfFirst_ = 0;           // the renderer's number of frame 0 of the run
  KickSamples offKick_, onKick_;        // kick thread only
  std::vector<bool> blockIsOn_;         // the measured blocks in their order, kick thread only
  mutable std::mutex renderMutex_;      // the render thread adds while the kick thread reads
  RenderSamples offRender_, onRender_;  // under renderMutex_
  uint64_t offBlocks_ = 0, onBlocks_ = 0;
  uint64_t renderWaits_ = 0, renderWaitNs_ = 0, renderWakes_ = 0, framesCaptured_ = 0, captureCpuNs_ = 0,
           priorityRaises_ = 0;
};

}  // namespace reel::samples
