// WorkerPool::run calls fn once for each index below n, index 0 on the calling thread and the others on
// workers, and returns only when every call did; a batch of fewer threads leaves the other workers out.
// Many batches in a row, of varying size, would hang on a lost wake-up (the test's timeout) or show a call
// made twice, missed, or still running after run() returned.

#include "reel/runtime/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace reel {
namespace {

TEST(WorkerPool, EachIndexRunsOnceIndexZeroOnTheCallerTheOthersOnWorkers) {
  constexpr uint32_t kThreads = 6;
  WorkerPool pool(kThreads);
  ASSERT_EQ(pool.threads(), kThreads);
  std::vector<std::thread::id> ran(kThreads);
  std::vector<int> calls(kThreads, 0);
  pool.run(kThreads, [&](uint32_t i) {
    ran[i] = std::this_thread::get_id();
    ++calls[i];
  });
  EXPECT_EQ(ran[0], std::this_thread::get_id());
  const std::set<std::thread::id> distinct(ran.begin(), ran.end());
  EXPECT_EQ(distinct.size(), kThreads) << "every index on a thread of its own";
  for (uint32_t i = 0; i < kThreads; ++i) EXPECT_EQ(calls[i], 1) << "index " << i;
}

TEST(WorkerPool, ManyBatchesOfEverySizeEachFinishBeforeRunReturns) {
  constexpr uint32_t kThreads = 5;
  constexpr uint32_t kBatches = 20'000;
  WorkerPool pool(kThreads);
  std::vector<std::atomic<uint32_t>> calls(kThreads);
  std::atomic<uint32_t> running{0};
  uint32_t expected[kThreads] = {};
  uint32_t stillRunning = 0;
  for (uint32_t b = 0; b < kBatches; ++b) {
    const uint32_t n = b % (kThreads + 1);  // 0 (nothing runs) to every thread
    pool.run(n, [&](uint32_t i) {
      running.fetch_add(1, std::memory_order_relaxed);
      calls[i].fetch_add(1, std::memory_order_relaxed);
      running.fetch_sub(1, std::memory_order_relaxed);
    });
    for (uint32_t i = 0; i < n; ++i) ++expected[i];
    if (running.load(std::memory_order_relaxed) != 0) ++stillRunning;
  }
  EXPECT_EQ(stillRunning, 0u) << "a call was still running after run() returned";
  for (uint32_t i = 0; i < kThreads; ++i) EXPECT_EQ(calls[i].load(), expected[i]) << "index " << i;
}

TEST(WorkerPool, MoreThanItsThreadsRunsAsManyAsItHasAndOneThreadRunsOnTheCaller) {
  WorkerPool pool(3);
  std::atomic<uint32_t> calls{0};
  pool.run(10, [&](uint32_t) { calls.fetch_add(1); });
  EXPECT_EQ(calls.load(), 3u);
  WorkerPool alone(1);
  std::thread::id where;
  alone.run(1, [&](uint32_t) { where = std::this_thread::get_id(); });
  EXPECT_EQ(where, std::this_thread::get_id());
}

}  // namespace
}  // namespace reel
