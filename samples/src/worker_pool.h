#pragma once
// A fixed set of recording threads. run(fn) calls fn(i) on thread i for every thread and returns when
// all are done: the sample's scenes record their draws in parallel this way, each thread into its own
// bucket.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace reel::samples {

class WorkerPool {
 public:
  explicit WorkerPool(uint32_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  uint32_t size() const { return static_cast<uint32_t>(threads_.size()); }
  // Called from one thread at a time (the app's kick thread).
  void run(const std::function<void(uint32_t)>& fn);

 private:
  void loop(uint32_t index);

  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(uint32_t)>* job_ = nullptr;
  uint64_t generation_ = 0;
  uint32_t pending_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace reel::samples
