// Runtime core benchmarks (issue 2). Each benchmark that has a target measures its reference in the
// same run and reports the ratio as a counter, so that noise on a shared machine hits both sides alike.
//
//   build/release/bench/reel_runtime_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//   build/release/bench/reel_runtime_bench --benchmark_filter=BM_TranslateStress --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include "reel/runtime/cpu_time.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/radix_sort.h"
#include "reel/runtime/renderer.h"
#include "reel/runtime/silent_device.h"
#include "reel/runtime/worker_pool.h"

namespace reel {
namespace {

using Clock = std::chrono::steady_clock;

static_assert(sizeof(cmd::CopyTexture) == 32, "the add benchmark records 32-byte packets");

// Gives a recorded stream back as the render thread would, so the bucket can be filled again.
void recycle(CommandBucketBase& bucket) {
  bucket.handOver().references.fetch_sub(1);
}

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
      benchmark::Counter(static_cast<double>(state.iterations() * kPackets),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
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
BENCHMARK(BM_AddTwoThreadsScaling)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5)
    ->UseRealTime();

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
      std::stable_sort(work.begin(), work.end(),
                       [](const SortEntry& a, const SortEntry& b) { return a.key < b.key; });
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

// The render thread's sort (RadixSorter) on `threads` threads, forced parallel, against the serial radix
// sort, std::stable_sort and a memcpy of the same bytes, all in one run: x_faster_than_serial_radix > 1
// marks the sizes where going parallel pays (RadixSorter::kParallelMinKeys); at 1M keys the targets are
// >= 4x stable_sort and <= 10x the memcpy time.
void BM_RadixSortParallel(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto threads = static_cast<uint32_t>(state.range(1));
  const std::vector<SortEntry> input = drawLikeKeys(n);
  std::vector<SortEntry> work(n), scratch(n), copy(n);
  WorkerPool pool(threads);
  RadixSorter sorter(&pool, 0);
  double parallel = 0, serial = 0, stable = 0, memcpyTime = 0;
  for (auto _ : state) {
    work = input;
    parallel += timeIt([&] { sorter.sort(work); });
    benchmark::DoNotOptimize(work.data());
    work = input;
    serial += timeIt([&] { radixSort(work, scratch); });
    benchmark::DoNotOptimize(work.data());
    work = input;
    stable += timeIt([&] {
      std::stable_sort(work.begin(), work.end(),
                       [](const SortEntry& a, const SortEntry& b) { return a.key < b.key; });
    });
    memcpyTime += timeIt([&] { std::memcpy(copy.data(), input.data(), n * sizeof(SortEntry)); });
    benchmark::DoNotOptimize(copy.data());
  }
  const double it = static_cast<double>(state.iterations());
  state.counters["sorter_ms"] = parallel / it * 1e3;
  state.counters["serial_radix_ms"] = serial / it * 1e3;
  state.counters["stable_sort_ms"] = stable / it * 1e3;
  state.counters["memcpy_ms"] = memcpyTime / it * 1e3;
  state.counters["x_faster_than_serial_radix"] = serial / parallel;
  state.counters["x_faster_than_stable_sort"] = stable / parallel;
  state.counters["x_memcpy_time"] = parallel / memcpyTime;
}
BENCHMARK(BM_RadixSortParallel)
    ->ArgsProduct({{16'384, 32'768, 65'536, 131'072, 1'000'000}, {2, 4, 8, 16}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One fork-join of WorkerPool::run: a pool of `threads` runs a batch of `n` calls, each a few hundred
// nanoseconds of work, and returns when all did. Real time per batch, and, with n below the pool's threads
// (Renderer::limitWorkers), what the workers a batch leaves out cost it.
void BM_WorkerPoolBatch(benchmark::State& state) {
  const auto threads = static_cast<uint32_t>(state.range(0));
  const auto n = static_cast<uint32_t>(state.range(1));
  WorkerPool pool(threads);
  std::vector<uint64_t> sums(threads * 8, 0);  // a cache line per call
  for (auto _ : state) {
    pool.run(n, [&](uint32_t i) {
      uint64_t x = i + 1;
      for (int k = 0; k < 200; ++k) x = x * 6364136223846793005ull + 1442695040888963407ull;
      sums[i * 8] += x;
    });
  }
  benchmark::DoNotOptimize(sums.data());
}
BENCHMARK(BM_WorkerPoolBatch)
    ->ArgsProduct({{16}, {2, 4, 8, 16}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The parallel sort with its threads spinning `spin` microseconds at each pass's barrier before they sleep
// (PhaseBarrier), in one run: what spinning saves against sleeping at once, and what it costs where the
// passes are long (1M keys) and the spinning threads take the core from other work.
void BM_RadixSortBarrierSpin(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto threads = static_cast<uint32_t>(state.range(1));
  const std::chrono::microseconds spin(state.range(2));
  const std::vector<SortEntry> input = drawLikeKeys(n);
  std::vector<SortEntry> work(n);
  WorkerPool pool(threads);
  RadixSorter sorter(&pool, 0, RadixSorter::kMinKeysPerThread, spin);
  double parallel = 0;
  for (auto _ : state) {
    work = input;
    parallel += timeIt([&] { sorter.sort(work); });
    benchmark::DoNotOptimize(work.data());
  }
  state.counters["sorter_ms"] = parallel / static_cast<double>(state.iterations()) * 1e3;
}
BENCHMARK(BM_RadixSortBarrierSpin)
    ->ArgsProduct({{131'072, 1'000'000}, {8, 16}, {0, 20, 100}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

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
    for (uint32_t i = 0; i < 64; ++i)
      bucket.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {i, 0}, i));
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

// ---- Translation without a driver (issue 3) ----
// What reel itself costs the render thread per packet of the `stress` scene, with a device that does
// almost nothing: on the H100 host the Vulkan driver is fast enough that this overhead is most of
// the gap to a direct-Vulkan loop (bench/vulkan_bench.cpp, BM_StressRenderThread), while on the VM
// lavapipe hides it.

double threadSeconds() {
  return std::chrono::duration<double>(threadCpuTime()).count();
}

// A device whose execute() overloads only fold each packet's fields and the head of its aux data into
// a checksum (so that nothing is optimised away, and every packet's bytes are read as a device must
// read them). It times a walk as VulkanDevice times translation: render-thread CPU time from the
// first packet to endFrame (or to stopWalk(), for the observer's walk).
class TouchDevice final : public Device {
 public:
  const char* name() const override { return "touch"; }
  DeviceInfo info() const override { return {"touch", "reel bench", "0", "null"}; }
  void beginFrame(uint64_t) override { startWalk(); }
  void endFrame(uint64_t) override { translateSeconds = stopWalk(); }
  void waitIdle() override {}
  Result<std::vector<std::byte>> readBuffer(BufferHandle) override { return fail("touch device"); }
  Result<std::vector<std::byte>> readTexture(TextureHandle, uint32_t) override {
    return fail("touch device");
  }

#define REEL_COMMAND(Name, Semantics, ...)                                       \
  void execute(const cmd::Name& packet, const PacketContext& context) override { \
    touch(packet, context);                                                      \
  }
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

  void startWalk() {
    started_ = false;
    packets_ = 0;
  }
  double stopWalk() {
    walkPackets = packets_;
    return started_ ? threadSeconds() - start_ : 0.0;
  }

  double translateSeconds = 0;  // of the last frame
  uint64_t walkPackets = 0;     // packets of the last walk
  uint64_t checksum = 0;

 private:
  template <typename T>
  void touch(const T& packet, const PacketContext& context) {
    if (!started_) [[unlikely]] {
      started_ = true;
      start_ = threadSeconds();
    }
    ++packets_;
    uint32_t words[(sizeof(T) + 3) / 4] = {};
    std::memcpy(words, &packet, sizeof(T));
    uint64_t h = checksum;
    for (uint32_t w : words) h = (h ^ w) * 1099511628211ull;
    if (!context.aux.empty()) {
      uint32_t head = 0;
      std::memcpy(&head, context.aux.data(), std::min(sizeof head, context.aux.size()));
      h = (h ^ head ^ context.aux.size()) * 1099511628211ull;
    }
    checksum = h;
  }

  bool started_ = false;
  double start_ = 0;
  uint64_t packets_ = 0;
};

uint32_t mix(uint32_t x) {  // an integer hash (murmur3's finalizer): random-looking, deterministic
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  return x ^ (x >> 16);
}

// Draws [begin, end) of a stress-like frame into `bucket`, as samples/src/scenes/stress.cpp records them:
// 32 materials (4 pipelines x 8 textures), a quarter opaque (sorted by material), the rest sorted back
// to front; each draw a shared BindPipeline reference, BindTexture, PushConstants with 48 bytes of aux
// data and a Draw. Sorted order is therefore nowhere near recording order.
void recordStress(CommandBucket<DrawKey>& bucket, uint32_t begin, uint32_t end, uint32_t frame,
                  const PipelineHandle (&pipelines)[4], PassId pass = {}) {
  constexpr Translucency kGroup[4] = {Translucency::Opaque, Translucency::Normal, Translucency::Additive,
                                      Translucency::Normal};
  cmd::BindPipeline* headers[4];
  for (uint32_t p = 0; p < 4; ++p) {
    headers[p] = &bucket.createShared<cmd::BindPipeline>();
    headers[p]->pipeline = pipelines[p];
  }
  for (uint32_t i = begin; i < end; ++i) {
    const uint32_t material = mix(i) % 32;
    const uint32_t pipeline = material / 8;
    const float depth = 0.05f + 0.9f * float(mix(i ^ (frame << 20) ^ 0x9e3779b9u) >> 8) / float(1u << 24);
    const DrawKey key =
        DrawKey::draw(0, 1, kGroup[pipeline], {material + 1, 0}, DrawKey::quantizeDepth(depth));
    PacketHeader& ref = bucket.addShared(pass, key, *headers[pipeline]);
    auto& texture = bucket.append<cmd::BindTexture>(ref);
    texture.texture = TextureHandle{material % 8 + 1};
    texture.sampler = SamplerHandle{1};
    auto& push = bucket.append<cmd::PushConstants>(&texture, 48);
    float constants[12];
    for (uint32_t c = 0; c < 12; ++c) constants[c] = depth * float(c + i);
    std::memcpy(bucket.aux(push).data(), constants, sizeof constants);
    auto& draw = bucket.append<cmd::Draw>(&push);
    draw.vertexCount = 6;
    if (i % 1024 == 0) REEL_TAG(bucket, &draw, "stress sprite");
  }
}

// Walks the frame the renderer is about to translate, in recording (merge) order instead of sorted
// order, with the renderer's own loop body: the floor that the sorted walk would reach if sorting cost
// the memory system nothing. Runs on the render thread, after the sort, so both walks start from the
// same cache state.
class RecordingOrderWalk final : public FrameObserver {
 public:
  explicit RecordingOrderWalk(TouchDevice& device) : device_(device) {}
  void onFrame(const FrameView& view) override {
    if (!enabled) return;
    device_.startWalk();
    for (size_t i = 0; i < view.mergedPackets.size(); ++i) {
      const FrameBucketView& bucket = view.buckets[view.mergedBuckets[i]];
      FrameView::forEachInChain(*bucket.stream, view.mergedPackets[i], [&](const PacketView& p) {
        dispatchPacket(device_, p.type, p.payload.data(), PacketContext{p.aux, p.tag});
      });
    }
    seconds = device_.stopWalk();
    device_.startWalk();  // the sorted translation that follows times itself from its first packet
  }
  bool enabled = false;
  double seconds = 0;

 private:
  TouchDevice& device_;
};

// Render-thread translation of a stress-like frame (100k keys x 4 packets, recorded by 2 threads into
// 2 buckets) into a device that does almost nothing: reel's own cost per packet and per key, and the
// same walk in recording order (recording_order_*, the memory-access floor), measured on alternate
// frames of the same run, each starting from DRAM. Iteration time (manual) is the sorted translation's
// CPU time. The second argument 1 opts the four pipelines into instance merging (their 48 bytes of push
// constants per instance) and turns merging on: what finding and dispatching the runs costs reel itself.
void BM_TranslateStress(benchmark::State& state) {
  const auto keys = static_cast<uint32_t>(state.range(0));
  const bool merge = state.range(1) != 0;
  TouchDevice device;
  RecordingOrderWalk walk(device);
  Renderer renderer(device, {.framesInFlight = 1, .workers = 1, .mergeInstances = merge});
  const ObserverRegistration walking = renderer.addObserver(walk);
  PipelineHandle pipelines[4];
  {
    ResourceContext& r = renderer.resources();
    const std::byte code[4] = {};
    PipelineDesc desc{};
    desc.vertexShader = r.createShader({.stage = ShaderStage::Vertex}, code);
    desc.pushConstantBytes = 48;
    for (PipelineHandle& p : pipelines) {
      p = merge ? r.createPipeline(desc, {.vertexShader = desc.vertexShader,
                                          .fragmentShader = {},
                                          .constantOffset = 0,
                                          .constantBytes = 48,
                                          .bufferSlot = 0})
                : r.createPipeline(desc);
    }
  }
  CommandBucket<DrawKey>* buckets[2] = {&renderer.createBucket<DrawKey>("worker 0"),
                                        &renderer.createBucket<DrawKey>("worker 1")};
  uint32_t frame = 0;
  auto recordFrame = [&] {
    std::thread helper([&] { recordStress(*buckets[1], keys / 2, keys, frame, pipelines); });
    recordStress(*buckets[0], 0, keys / 2, frame, pipelines);
    helper.join();
    ++frame;
  };
  // Both walks start with the frame in DRAM, not in whichever core's cache recorded it: on the 2-core
  // VM where the render thread ran decided the result (2-3x apart from run to run) otherwise.
  std::vector<uint64_t> evict(64u << 20 >> 3, 1);
  uint64_t packets = 0;
  auto frameOnce = [&](bool recordingOrder) {
    recordFrame();
    uint64_t sum = 0;
    for (uint64_t& word : evict) sum += word++;
    benchmark::DoNotOptimize(sum);
    walk.enabled = recordingOrder;
    renderer.kick();
    renderer.flushAndWait();
    packets = device.walkPackets;
  };
  for (int i = 0; i < 4; ++i) frameOnce(i % 2 == 0);  // every stream's pages touched once
  double sorted = 0, recording = 0;
  for (auto _ : state) {
    frameOnce(true);
    recording += walk.seconds;
    frameOnce(false);
    sorted += device.translateSeconds;
    state.SetIterationTime(device.translateSeconds);
  }
  const double it = static_cast<double>(state.iterations());
  state.counters["packets_per_frame"] = double(packets);
  state.counters["translate_us"] = sorted / it * 1e6;
  state.counters["ns_per_packet"] = sorted / it / double(packets) * 1e9;
  state.counters["ns_per_key"] = sorted / it / double(keys) * 1e9;
  state.counters["recording_order_ns_per_packet"] = recording / it / double(packets) * 1e9;
  state.counters["recording_order_ns_per_key"] = recording / it / double(keys) * 1e9;
  state.counters["x_recording_order"] = sorted / recording;
  const RendererStats stats = renderer.stats();
  state.counters["draws_submitted_share"] =
      stats.drawsRecorded ? double(stats.drawsSubmitted) / double(stats.drawsRecorded) : 0.0;
  benchmark::DoNotOptimize(device.checksum);
}
BENCHMARK(BM_TranslateStress)
    ->Args({100'000, 0})
    ->Args({100'000, 1})
    ->Args({10'000, 0})
    ->ArgNames({"keys", "merge"})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// ---- The sweep of a wide frame, with and without the frame's render graph (issue 16) ----

// A device that takes translation jobs and does nothing with their packets: what is timed is the
// renderer's sweep, not translation.
class WideNullDevice final : public SilentDevice {
 public:
  WideNullDevice() : SilentDevice("wide null") {}
};

class SweepTimes final : public FrameObserver {
 public:
  void onFrame(const FrameView&) override {}
  void onFrameEnd(const FrameTiming& timing) override {
    sweepSeconds = std::chrono::duration<double>(timing.wallOf(FramePhase::Sweep)).count();
    jobs = timing.jobs;
  }
  double sweepSeconds = 0;
  uint32_t jobs = 0;
};

// The wall time of the sweep (FramePhase::Sweep: the segments on the workers, combined on the render
// thread) of a stress-like frame (100k keys x 4 packets) on `workers` render threads, its keys in one
// declared pass (graph 1: the segments also build the frame's graph, and the render thread merges it and
// hands the device its prologues and transient lives) or in none (graph 0: no graph). Iteration time
// (manual) is the sweep's wall time.
void BM_SweepStress(benchmark::State& state) {
  const auto keys = static_cast<uint32_t>(state.range(0));
  const bool graph = state.range(1) != 0;
  const auto workers = static_cast<uint32_t>(state.range(2));
  WideNullDevice device;
  SweepTimes times;
  Renderer renderer(device, {.framesInFlight = 1, .workers = workers});
  const ObserverRegistration timing = renderer.addObserver(times);
  PipelineHandle pipelines[4];
  RenderTargetHandle target;
  {
    ResourceContext& r = renderer.resources();
    const std::byte code[4] = {};
    PipelineDesc desc{};
    desc.vertexShader = r.createShader({.stage = ShaderStage::Vertex}, code);
    desc.pushConstantBytes = 48;
    for (PipelineHandle& p : pipelines) p = r.createPipeline(desc);
    const TextureHandle color =
        r.createTexture({256, 256, 1, Format::RGBA8Unorm, texture_usage::kColorTarget});
    RenderTargetDesc rt{};
    rt.colorCount = 1;
    rt.colors[0] = color;
    target = r.createRenderTarget(rt);
  }
  CommandBucket<DrawKey>& bucket = renderer.createBucket<DrawKey>("stress");
  uint32_t frame = 0;
  auto frameOnce = [&] {
    PassId pass;
    if (graph) {
      PassDesc desc;
      desc.target = target;
      pass = renderer.resources().declarePass("stress", desc);
    }
    recordStress(bucket, 0, keys, frame++, pipelines, pass);
    renderer.kick();
    renderer.flushAndWait();
  };
  for (int i = 0; i < 3; ++i) frameOnce();
  for (auto _ : state) {
    frameOnce();
    state.SetIterationTime(times.sweepSeconds);
  }
  state.counters["jobs"] = times.jobs;
}
BENCHMARK(BM_SweepStress)
    ->ArgsProduct({{100'000}, {0, 1}, {2, 16}})
    ->ArgNames({"keys", "graph", "workers"})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace reel

BENCHMARK_MAIN();
