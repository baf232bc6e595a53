#pragma once
// Pipelined replay: worker threads read, decompress, verify and decode the frames after the one being
// played, while the thread that plays (ReplaySession::replayFrame) feeds frame N into the buckets and
// the render thread translates the frame before it.
//
// Work goes out chunk by chunk: a worker takes the frames from the next one not handed out to the end of
// its chunk (a predicted frame needs the frames before it in its chunk, format 1.3, so a chunk is one
// worker's), and another worker takes the next chunk, so that several chunks decode at once and a
// chunk's decompression (all its frames' worth, at its first frame) is spread over the frames the
// others have ready.
//
// Look-ahead memory is bounded: frames wait in a ring of `capacity()` records, frame i in slot
// i % capacity, decoded only while i < (the next frame take() expects) + capacity. A record's buffers
// are reused frame after frame (take() swaps them with the caller's record, nothing is copied), and the
// capacity comes from the trace's largest frame message and a byte budget, so that a trace of large
// frames holds fewer of them.
//
// Each worker reads through a TraceReader of its own on the same file (a reader is one thread's), opened
// when the session's reader came from a file; a reader made from bytes in memory gets no prefetcher and
// the session reads in line, as before.
//
// Threading: take() and stats() from one thread (the session's); the workers are the prefetcher's own.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "reel/runtime/frame.h"
#include "reel/runtime/result.h"
#include "reel/trace/reader.h"

namespace reel::replay {

struct PrefetchOptions {
  uint32_t lookahead = 32;              // at most this many frames decoded ahead (0: none, read in line)
  uint64_t budgetBytes = 64ull << 20;   // and at most about this many bytes of them (the largest frame's)
  uint32_t workers = 0;                 // decoding threads; 0: defaultWorkers()
};

class FramePrefetcher {
 public:
  // Null when `reader` was not opened from a file this process can open again as the same trace, or
  // the look-ahead is 0.
  static std::unique_ptr<FramePrefetcher> create(const trace::TraceReader& reader,
                                                 const PrefetchOptions& options);
  // Cores less the render thread and the playing thread, 1 to 4.
  static uint32_t defaultWorkers();
  ~FramePrefetcher();
  FramePrefetcher(const FramePrefetcher&) = delete;
  FramePrefetcher& operator=(const FramePrefetcher&) = delete;

  // Frame `index`, as TraceReader::readFrame(index, out) gives it (out's buffers go back to the ring);
  // then the workers go on with index + 1... Another index than the one expected (a restart, a jump)
  // drops what was read ahead. Waits for the workers when the frame is not decoded yet.
  Result<void> take(size_t index, trace::FrameRecord& out);

  uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }
  uint32_t workers() const { return static_cast<uint32_t>(workers_.size()); }

  struct Stats {
    std::chrono::nanoseconds readCpu{0};        // the workers' CPU time in readFrame
    std::chrono::nanoseconds decompressCpu{0};  // of which zstd (their readers' DecompressStats)
    std::chrono::nanoseconds takeWait{0};       // take() waiting for a frame not decoded yet (wall)
    uint64_t frames = 0;                        // frames decoded (those dropped by a jump included)
    uint32_t peakAhead = 0;                     // most frames decoded or decoding, not taken, at once
  };
  Stats stats() const;

 private:
  struct Slot {
    enum class State : uint8_t { Free, Decoding, Ready };
    State state = State::Free;
    size_t index = 0;
    Result<void> result;
    trace::FrameRecord record;
  };
  struct Worker {
    std::unique_ptr<trace::TraceReader> reader;
    std::thread thread;
  };

  FramePrefetcher(std::vector<std::unique_ptr<trace::TraceReader>> readers, std::vector<size_t> chunkEnd,
                  uint32_t capacity);
  void work(trace::TraceReader& reader);
  // Frame i may be decoded now: inside the window and its slot free (a worker of an older position may
  // still be decoding into it). Called with mutex_ held.
  bool admitted(size_t i) const;

  const size_t frameCount_;
  const std::vector<size_t> chunkEnd_;  // by frame index: the index after the last frame of its chunk
  std::vector<Slot> slots_;
  std::vector<Worker> workers_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;   // the workers: room, a new position, or stop
  std::condition_variable ready_;  // take(): a frame was decoded
  size_t base_;                    // the next index take() expects (frameCount_: none yet)
  size_t claim_;                   // the first frame no worker has taken yet
  uint64_t generation_ = 0;        // changed by a jump: a worker of an older one drops its frames
  uint32_t ahead_ = 0;             // slots Decoding or Ready
  bool stopping_ = false;
  Stats stats_;
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
