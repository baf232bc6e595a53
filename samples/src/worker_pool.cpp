#include "worker_pool.h"

namespace reel::samples {

WorkerPool::WorkerPool(uint32_t threads) {
  for (uint32_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::run(const std::function<void(uint32_t)>& fn) {
  std::unique_lock lock(mutex_);
  job_ = &fn;
  pending_ = size();
  ++generation_;
  start_.notify_all();
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

void WorkerPool::loop(uint32_t index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(uint32_t)>* job;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
    }
    (*job)(index);
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace reel::samples
