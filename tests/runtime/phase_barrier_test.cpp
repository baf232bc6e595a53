#include "reel/runtime/phase_barrier.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "reel/runtime/worker_pool.h"

namespace reel {
namespace {

// Each phase every thread writes its slot, passes the barrier, reads every slot, passes it again: a
// barrier that let a thread through early shows as a slot of the wrong phase (TSan also sees the race).
void expectPhasesSeparate(uint32_t threads, std::chrono::microseconds spin, uint32_t phases) {
  WorkerPool pool(threads);
  PhaseBarrier barrier(threads, spin);
  std::vector<uint32_t> slots(threads, 0);
  std::atomic<uint32_t> wrong{0};
  pool.run(threads, [&](uint32_t t) {
    for (uint32_t phase = 1; phase <= phases; ++phase) {
      slots[t] = phase;
      barrier.arriveAndWait();
      for (uint32_t u = 0; u < threads; ++u) {
        if (slots[u] != phase) wrong.fetch_add(1, std::memory_order_relaxed);
      }
      barrier.arriveAndWait();
    }
  });
  EXPECT_EQ(wrong.load(), 0u) << threads << " threads, spin " << spin.count() << " us";
}

TEST(PhaseBarrier, NoThreadPassesBeforeAllArriveWhenSpinning) {
  expectPhasesSeparate(4, PhaseBarrier::kDefaultSpin, 2000);
}

TEST(PhaseBarrier, NoThreadPassesBeforeAllArriveWhenSleeping) {
  expectPhasesSeparate(4, std::chrono::microseconds(0), 2000);
}

TEST(PhaseBarrier, MoreThreadsThanCoresStillMeet) {
  expectPhasesSeparate(std::thread::hardware_concurrency() * 2 + 1, std::chrono::microseconds(1), 200);
}

// The last thread arrives only once the others have given up spinning and sleep: its arrival must wake
// them all (a lost wake-up hangs here, and ctest's timeout fails the test).
TEST(PhaseBarrier, LastArrivalWakesTheSleepers) {
  constexpr uint32_t kThreads = 3;
  WorkerPool pool(kThreads);
  PhaseBarrier barrier(kThreads, std::chrono::microseconds(10));
  std::atomic<uint32_t> passed{0};
  pool.run(kThreads, [&](uint32_t t) {
    if (t == 0) {
      while (barrier.sleeps() < kThreads - 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    barrier.arriveAndWait();
    passed.fetch_add(1);
  });
  EXPECT_EQ(passed.load(), kThreads);
  EXPECT_EQ(barrier.sleeps(), kThreads - 1);
}

}  // namespace
}  // namespace reel
