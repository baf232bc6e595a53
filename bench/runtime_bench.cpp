// Runtime core benchmarks (issue 2). Each benchmark that has a target measures its reference in the
// same run and reports the ratio as a counter, so that noise on a shared machine hits both sides alike.
//
//   build/release/bench/reel_runtime_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstring>
#include <random>
#include <thread>

#include "reel/runtime/null_device.h"
#include "reel/runtime/radix_sort.h"
#include "reel/runtime/renderer.h"

namespace reel {
namespace {

using Clock = std::chrono::steady_clock;

static_assert(sizeof(cmd::CopyTexture) == 32, "the add benchmark records 32-byte packets");

// Gives a recorded stream back as the render thread would, so the bucket can be filled again.
void recycle(CommandBucketBase& bucket) { bucket.handOver().references.fetch_sub(1); }

void recordPackets(CommandBucket<uint64_t>& bucket, uint32_t count, uint32_t seed) {
  for (uint32_t i = 0; i < count; ++i) {
    auto& copy = bucket.add<cmd::CopyTexture>(uint64_t{seed} << 32 | i);
    copy.width = i;
    copy.height = seed;
  }
}

// `add` of a 32-byte packet from one thread: ns per packet (target <= 10 ns).
void BM_AddPacket(benchmark::State& state) {
  CommandBucket<uint64_t> bucket("bench");
  constexpr uint32_t kPackets = 100'000;
  recordPackets(bucket, kPackets, 0);  // touch the pages once: steady state, not first-use page faults
  recycle(bucket);
  for (auto _ : state) {
    recordPackets(bucket, kPackets, 1);
    state.PauseTiming();
    recycle(bucket);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kPackets);
  state.counters["ns_per_packet"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kPackets), benchmark::Counter::kIsRate |
                                                                              benchmark::Counter::kInvert);
}
BENCHMARK(BM_AddPacket)->Unit(benchmark::kMicrosecond);

// Packets/s with two threads recording into one bucket at once against one thread, same run
// (target: scaling >= 1.6 on 2 cores). The threads live for the whole benchmark and record a frame's
// worth (100k packets each) per round, so neither thread start-up nor DRAM bandwidth of a huge
// recording dominates what is timed.
class RecordingCrew {
 public:
  explicit RecordingCrew(CommandBucket<uint64_t>& bucket) : bucket_(bucket), helper_([this] { work(); }) {}
  ~RecordingCrew() {
    stop_ = true;
    round_.fetch_add(1);
    round_.notify_one();
    helper_.join();
  }
  // Seconds for `threads` (1 or 2) threads to record `perThread` packets each: this thread plus, for
  // two, a helper woken for the round.
  double run(uint32_t threads, uint32_t perThread) {
    perThread_ = perThread;
    done_ = 0;
    const auto start = Clock::now();
    if (threads == 2) {
      round_.fetch_add(1, std::memory_order_release);
      round_.notify_one();
    }
    recordPackets(bucket_, perThread, 0);
    if (threads == 2) {
      while (done_.load(std::memory_order_acquire) == 0) {
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    recycle(bucket_);
    return seconds;
  }

 private:
  void work() {
    uint64_t seen = 0;
    for (;;) {
      round_.wait(seen, std::memory_order_acquire);
      seen = round_.load(std::memory_order_acquire);
      if (stop_) return;
      recordPackets(bucket_, perThread_, 1);
      done_.store(1, std::memory_order_release);
    }
  }
  CommandBucket<uint64_t>& bucket_;
  std::atomic<uint64_t> round_{0};
  std::atomic<uint32_t> done_{0};
  std::atomic<bool> stop_{false};
  uint32_t perThread_ = 0;
  std::thread helper_;  // last: starts once the members above exist
};

void BM_AddTwoThreadsScaling(benchmark::State& state) {
  CommandBucket<uint64_t> bucket("bench");
  const auto kPerThread = static_cast<uint32_t>(state.range(0));
  RecordingCrew crew(bucket);
  for (int i = 0; i < 8; ++i) crew.run(2, kPerThread);  // first-use page faults are not recording
  double one = 0, two = 0;
  for (auto _ : state) {
    for (int round = 0; round < 20; ++round) {
      one += crew.run(1, kPerThread);
      two += crew.run(2, kPerThread);
    }
  }
  state.counters["packets_per_s_1_thread"] = kPerThread / one * 20 * state.iterations();
  state.counters["packets_per_s_2_threads"] = 2.0 * kPerThread / two * 20 * state.iterations();
  state.counters["scaling"] = (2.0 * kPerThread / two) / (kPerThread / one);
}
BENCHMARK(BM_AddTwoThreadsScaling)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();

// Radix sort of (key, index) pairs against std::stable_sort and memcpy of the same bytes, same run
// (targets at 1M: >= 4x faster than stable_sort, <= 10x the memcpy time).
std::vector<SortEntry> drawLikeKeys(size_t n) {
  // Keys shaped like a frame's draw keys: a few viewports/layers, materials, depths.
  std::mt19937_64 rng(7);
  std::vector<SortEntry> entries(n);
  for (size_t i = 0; i < n; ++i) {
    const auto t = static_cast<Translucency>(rng() % 4 == 0 ? 1 : 0);
    const DrawKey key = DrawKey::draw(rng() % 2, rng() % 4, t, {static_cast<uint32_t>(rng() % 500), 0},
                                      static_cast<uint32_t>(rng() & DrawKey::kMaxDepth));
    entries[i] = SortEntry{key.bits, static_cast<uint32_t>(i), 0};
  }
  return entries;
}

template <typename Fn>
double timeIt(Fn&& fn) {
  const auto start = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void BM_RadixSort(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<SortEntry> input = drawLikeKeys(n);
  std::vector<SortEntry> work(n), scratch(n), copy(n);
  double radix = 0, stable = 0, memcpyTime = 0;
  for (auto _ : state) {
    work = input;
    radix += timeIt([&] { radixSort(work, scratch); });
    benchmark::DoNotOptimize(work.data());
    work = input;
    stable += timeIt([&] {
      std::stable_sort(work.begin(), work.end(), [](const SortEntry& a, const SortEntry& b) { return a.key < b.key; });
    });
    memcpyTime += timeIt([&] { std::memcpy(copy.data(), input.data(), n * sizeof(SortEntry)); });
    benchmark::DoNotOptimize(copy.data());
  }
  const double it = static_cast<double>(state.iterations());
  state.counters["radix_ms"] = radix / it * 1e3;
  state.counters["stable_sort_ms"] = stable / it * 1e3;
  state.counters["memcpy_ms"] = memcpyTime / it * 1e3;
  state.counters["x_faster_than_stable_sort"] = stable / radix;
  state.counters["x_memcpy_time"] = radix / memcpyTime;
}
BENCHMARK(BM_RadixSort)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Cost of kick() when the render thread keeps up (target <= 5 us). The app does some work between
// kicks, as a frame would, so that the ring never fills and only the handoff itself is timed. A kick
// to an idle render thread must wake it: the same run times a bare condition-variable wake-up of a
// sleeping thread (wake_baseline_us), the floor that any handoff to a sleeping thread pays on this
// machine, and reports kick_minus_wake_us, what reel's own work in kick() costs.
void spinFor(std::chrono::microseconds duration) {
  const auto until = Clock::now() + duration;
  while (Clock::now() < until) {
  }
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Median seconds to wake a thread sleeping on a condition variable.
double bareWakeSeconds() {
  std::mutex mutex;
  std::condition_variable cv;
  bool work = false, stop = false;
  std::thread sleeper([&] {
    std::unique_lock lock(mutex);
    while (!stop) {
      cv.wait(lock, [&] { return work || stop; });
      work = false;
    }
  });
  std::vector<double> samples;
  constexpr int kRounds = 1000;
  for (int i = 0; i < kRounds; ++i) {
    spinFor(std::chrono::microseconds(200));
    const auto start = Clock::now();
    {
      std::lock_guard lock(mutex);
      work = true;
    }
    cv.notify_one();
    samples.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  {
    std::lock_guard lock(mutex);
    stop = true;
  }
  cv.notify_one();
  sleeper.join();
  return median(samples);
}

void BM_KickWhenRenderThreadKeepsUp(benchmark::State& state) {
  NullDevice device(/*recordCalls=*/false);
  Renderer renderer(device, {.framesInFlight = 2});
  auto& bucket = renderer.createBucket<DrawKey>("world");
  std::vector<double> kicks;
  for (auto _ : state) {
    for (uint32_t i = 0; i < 64; ++i) bucket.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {i, 0}, i));
    spinFor(std::chrono::microseconds(200));
    const auto start = Clock::now();
    renderer.kick();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    kicks.push_back(seconds);
    state.SetIterationTime(seconds);
  }
  renderer.flushAndWait();
  const double wake = bareWakeSeconds();
  const double kick = median(kicks);
  state.counters["kick_median_us"] = kick * 1e6;
  state.counters["wake_baseline_us"] = wake * 1e6;
  state.counters["kick_minus_wake_us"] = (kick - wake) * 1e6;
  state.counters["kick_waits"] = static_cast<double>(renderer.stats().kickWaits);
}
BENCHMARK(BM_KickWhenRenderThreadKeepsUp)->Unit(benchmark::kMicrosecond)->UseManualTime()->Iterations(5000);

}  // namespace
}  // namespace reel

BENCHMARK_MAIN();
