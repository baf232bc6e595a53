#include "reel/runtime/worker_pool.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "reel/runtime/frame_timing.h"
#include "reel/runtime/thread_priority.h"

namespace reel {

WorkerPool::WorkerPool(uint32_t threads) {
  for (uint32_t i = 1; i < std::max(threads, 1u); ++i) workers_.emplace_back([this, i] { loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void WorkerPool::runErased(uint32_t n, Call call, void* fn) {
  n = std::min(n, threads());
  {
    std::lock_guard lock(mutex_);
    call_ = call;
    fn_ = fn;
    active_ = n;
    pending_ = n - 1;
    ++generation_;
  }
  start_.notify_all();
  call(fn, 0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

void WorkerPool::loop(uint32_t index) {
  nameThisThread("reel-worker");
  uint64_t seen = 0;
  for (;;) {
    Call call;
    void* fn;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= active_) continue;  // this batch needs fewer threads
      call = call_;
      fn = fn_;
    }
    call(fn, index);
    std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

uint32_t resolveRenderWorkers(uint32_t requested) {
  uint32_t workers = requested;
  if (workers == 0) {
    if (const char* env = std::getenv("REEL_RENDER_WORKERS"); env && *env) {
      char* end = nullptr;
      const unsigned long value = std::strtoul(env, &end, 10);
      if (*end == '\0' && value > 0) {
        workers = static_cast<uint32_t>(std::min<unsigned long>(value, kMaxRenderWorkers));
      } else {
        std::fprintf(stderr, "reel: REEL_RENDER_WORKERS='%s' is not a number > 0: ignored\n", env);
      }
    }
  }
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  return std::min(workers, kMaxRenderWorkers);
}

}  // namespace reel
