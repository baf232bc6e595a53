#include "reel/runtime/phase_barrier.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace reel {
namespace {

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");  // the ISA's spin hint, not the scheduler's sched_yield
#endif
}

}  // namespace

void PhaseBarrier::arriveAndWait() {
  const uint32_t phase = phase_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
    // Reset before the phase moves on: a thread that sees the new phase may arrive at the next one.
    arrived_.store(0, std::memory_order_relaxed);
    // seq_cst with the sleepers' count (and the sleeper's increment and check): either this load sees a
    // sleeper, who is then woken under the mutex, or the sleeper's check sees the new phase.
    phase_.store(phase + 1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) != 0) {
      std::lock_guard lock(mutex_);
      woken_.notify_all();
    }
    return;
  }
  const auto until = std::chrono::steady_clock::now() + spin_;
  for (uint32_t i = 1;; ++i) {
    if (phase_.load(std::memory_order_acquire) != phase) return;
    pause();
    // The clock every 64 spins: a read costs about as much as a few pauses.
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) break;
  }
  std::unique_lock lock(mutex_);
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  woken_.wait(lock, [&] { return phase_.load(std::memory_order_seq_cst) != phase; });
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace reel
