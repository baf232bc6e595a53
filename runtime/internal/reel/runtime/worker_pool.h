#pragma once
// The render thread's workers: a fixed set of threads that run one fork-join batch at a time. run(n, fn)
// calls fn(0) on the calling thread and fn(1..n-1) on the workers, and returns when all n calls did, so
// that the caller's own share is never a hand-off. The wide translation and the parallel sort use it.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace reel {

class WorkerPool {
 public:
  // `threads`: the calling thread plus threads - 1 workers (1: no worker, run() calls fn(0) alone).
  explicit WorkerPool(uint32_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  uint32_t threads() const { return static_cast<uint32_t>(workers_.size()) + 1; }
  // One thread at a time (the render thread). n <= threads(). fn must not throw.
  template <typename Fn>
  void run(uint32_t n, Fn&& fn) {
    if (n <= 1) {
      if (n == 1) fn(0u);
      return;
    }
    runErased(
        n, [](void* f, uint32_t i) { (*static_cast<std::remove_reference_t<Fn>*>(f))(i); }, &fn);
  }

 private:
  using Call = void (*)(void*, uint32_t);
  void runErased(uint32_t n, Call call, void* fn);
  void loop(uint32_t index);

  std::mutex mutex_;
  std::condition_variable start_, done_;
  Call call_ = nullptr;
  void* fn_ = nullptr;
  uint32_t active_ = 0;  // calls of this batch on workers: workers 1..active_-1 take part
  uint64_t generation_ = 0;
  uint32_t pending_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// The worker count a renderer uses: `requested` when not 0, else REEL_RENDER_WORKERS when set to a
// number, else the hardware's threads; at most kMaxRenderWorkers. A malformed variable is ignored with a
// message on stderr.
uint32_t resolveRenderWorkers(uint32_t requested);

}  // namespace reel
