#pragma once
// A barrier between the threads of one WorkerPool::run, for phases of tens to hundreds of microseconds
// (the parallel sort's passes). An arrival that is not the last spins on the phase with the CPU's pause
// instruction for up to `spin`, then sleeps until the last arrival wakes it.
//
// Why not std::barrier: libstdc++'s wait yields the CPU (sched_yield) before it sleeps, and a yield hands
// the core to any other runnable thread, a SCHED_IDLE one included (a capture's threads, any background
// work), which may keep it until the next scheduler tick. A pass of the sort then waits milliseconds for
// its last thread: on the H100 host, four SCHED_IDLE busy loops took the sort of 1M keys on 16 threads
// from 7.9 to 21.3 ms with std::barrier, and from 8.4 to 8.1 ms with this one (BM_RadixSortParallel,
// docs/measurements/h100-2026-11-27zb-sort-barrier). Spinning keeps the core; sleeping gives it up until
// a wake-up, which preempts SCHED_IDLE work at once. The spin's length: BM_RadixSortBarrierSpin.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace reel {

class PhaseBarrier {
 public:
  static constexpr std::chrono::microseconds kDefaultSpin{100};

  explicit PhaseBarrier(uint32_t threads, std::chrono::microseconds spin = kDefaultSpin)
      : threads_(threads), spin_(spin) {}
  PhaseBarrier(const PhaseBarrier&) = delete;
  PhaseBarrier& operator=(const PhaseBarrier&) = delete;

  // Returns once all `threads` threads have called it for this phase. Every write a thread made before
  // its call is visible to every thread after theirs.
  void arriveAndWait();

  // How many waits ended asleep rather than spinning (for tests and benchmarks).
  uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); }

 private:
  const uint32_t threads_;
  const std::chrono::microseconds spin_;
  alignas(64) std::atomic<uint32_t> arrived_{0};
  alignas(64) std::atomic<uint32_t> phase_{0};
  std::atomic<uint32_t> sleepers_{0};
  std::atomic<uint64_t> sleeps_{0};
  std::mutex mutex_;
  std::condition_variable woken_;
};

}  // namespace reel
