#pragma once
// Pipelined replay: a worker thread reads, decompresses, verifies and decodes the frames after the one
// being played, while the thread that plays (ReplaySession::replayFrame) feeds frame N into the buckets
// and the render thread translates the frame before it. Look-ahead memory is bounded: at most
// `lookahead` decoded frames wait (each a FrameRecord whose buffers are reused frame after frame, and
// the chunk each holds).
//
// The worker reads through a TraceReader of its own on the same file (a reader is one thread's), opened
// when the session's reader came from a file; a reader made from bytes in memory gets no prefetcher and
// the session reads in line, as before.
//
// Threading: take() from one thread (the session's); the worker is the prefetcher's own.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "reel/runtime/frame.h"
#include "reel/runtime/result.h"
#include "reel/trace/reader.h"

namespace reel::replay {

class FramePrefetcher {
 public:
  // Null when `reader` was not opened from a file this process can open again as the same trace.
  static std::unique_ptr<FramePrefetcher> create(const trace::TraceReader& reader, uint32_t lookahead);
  ~FramePrefetcher();
  FramePrefetcher(const FramePrefetcher&) = delete;
  FramePrefetcher& operator=(const FramePrefetcher&) = delete;

  // Frame `index`, as TraceReader::readFrame(index, out) gives it (out's buffers go back to the pool);
  // then the worker goes on with index + 1... Another index than the one expected (a restart, a jump)
  // drops what was read ahead. Waits for the worker when the frame is not decoded yet.
  Result<void> take(size_t index, trace::FrameRecord& out);

  struct Stats {
    std::chrono::nanoseconds readCpu{0};        // the worker's CPU time in readFrame
    std::chrono::nanoseconds decompressCpu{0};  // of which zstd (its reader's DecompressStats)
    std::chrono::nanoseconds takeWait{0};       // take() waiting for a frame not decoded yet (wall)
    uint64_t frames = 0;                        // frames decoded (those dropped by a jump included)
  };
  Stats stats() const;

 private:
  FramePrefetcher(std::unique_ptr<trace::TraceReader> reader, uint32_t lookahead);
  void work();

  struct Decoded {
    size_t index = 0;
    Result<void> result;
    std::unique_ptr<trace::FrameRecord> record;
  };
  std::unique_ptr<trace::TraceReader> reader_;  // the worker's
  const uint32_t lookahead_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;   // the worker: room, a new position, or stop
  std::condition_variable ready_;  // take(): a frame was decoded
  std::deque<Decoded> queue_;      // decoded, in index order
  std::vector<std::unique_ptr<trace::FrameRecord>> free_;
  size_t next_ = 0;        // the next index the worker decodes
  bool decoding_ = false;  // the worker is decoding decodingIndex_ (for generation_, if unchanged)
  size_t decodingIndex_ = 0;
  uint64_t generation_ = 0;  // changed by a jump: what the worker decodes for an older one is dropped
  bool stopping_ = false;
  Stats stats_;
  std::thread worker_;
};

// The render thread's time waiting for the next frame: from the end of one frame to the start of the
// next (the render loop waits for a kick in between). With the time from the first frame's start to the
// last one's end, the share of the render thread's time that getting frames ready cost it.
class RenderIdleClock final : public FrameObserver {
 public:
  void onFrameStart(const FrameStart&) override;
  void onFrame(const FrameView&) override {}
  void onFrameEnd(const FrameTiming&) override;

  struct Totals {
    std::chrono::nanoseconds idle{0};
    std::chrono::nanoseconds span{0};
  };
  Totals totals() const;

 private:
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point first_{}, lastEnd_{};
  bool started_ = false, ended_ = false;
  std::chrono::nanoseconds idle_{0};
};

}  // namespace reel::replay
