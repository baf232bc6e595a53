#pragma once
// The least a capture can do, as a yardstick for what a capture costs an app (reel-sample --frame-tap,
// scripts/device-capture-cost.sh): an observer that leases every frame, as reel::capture does, and on
// threads of its own reads the frame's streams (Read: sums their words, what looking at every byte of a
// frame costs), copies them out byte for byte (Copy: the floor of any capture that keeps the frame), or
// compresses them straight from the lease with zstd level 1 (Zstd: the simplest capture that writes
// something, without reel's columns and prediction), or only holds each frame until the next one arrives
// (Hold: what keeping a frame's streams from the app costs, with no thread and no read). Nothing is
// written anywhere: the sums, the copies and the compressed bytes are dropped.
//
//   FrameTap tap({.mode = FrameTap::Mode::Copy, .threads = 1});
//   ObserverRegistration registration = renderer.addObserver(tap);
//   ...
//   registration.reset();        // no frame calls the tap any more
//   tap.finish();                // every leased frame gone through and given back
//   std::string line = tap.summary();

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "reel/runtime/frame.h"
#include "reel/runtime/thread_priority.h"

namespace reel::samples {

class FrameTap final : public FrameObserver {
 public:
  enum class Mode : uint8_t { Read, Copy, Zstd, Hold };
  struct Options {
    Mode mode = Mode::Copy;
    uint32_t threads = 1;
    ThreadPriority priority = ThreadPriority::Normal;
  };
  static std::optional<Mode> parseMode(std::string_view name);  // "read", "copy", "zstd", "hold"

  explicit FrameTap(const Options& options);
  ~FrameTap() override;
  FrameTap(const FrameTap&) = delete;
  FrameTap& operator=(const FrameTap&) = delete;

  void onFrame(const FrameView& frame) override;
  // Waits for the frames taken so far, then stops the threads. Call after the registration ended.
  void finish();
  // "frame tap: copy on 1 thread at normal priority: N frames, X MB a frame (Y MB compressed), Z ms CPU
  // a frame"; the render thread's waits for leases are the renderer's (RendererStats::leaseWaits).
  std::string summary() const;

 private:
  void threadLoop();

  Options options_;
  mutable std::mutex mutex_;
  std::condition_variable work_;
  std::deque<FrameLease> queued_;
  FrameLease held_;  // Hold's: the last frame, given back (on the render thread) as the next one comes
  bool stopping_ = false;
  uint64_t frames_ = 0, rawBytes_ = 0, outBytes_ = 0, cpuNs_ = 0;
  uint64_t sum_ = 0;  // Read's: kept, so that the reads are not optimised away
  std::string error_;
  std::vector<std::thread> threads_;
};

}  // namespace reel::samples
