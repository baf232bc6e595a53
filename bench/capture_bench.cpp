// Capture and trace benchmarks (issue 4), on the NullDevice with a stress-like frame: 25,000 sprites of
// four packets each (100,000 packets), shaped like the samples' `stress` scene: a shared BindPipeline
// header packet per material, BindTexture, 48 bytes of push constants (animated position and phase),
// Draw; keys by material and depth.
//
//   build/release/bench/reel_capture_bench                       # everything
//   build/release/bench/reel_capture_bench --benchmark_filter=Compression
//   build/release/bench/reel_capture_bench --benchmark_filter=GatherEncode --benchmark_repetitions=3
//
// Timing on a shared 2-core VM: the render and recording threads are measured in thread CPU time
// (CLOCK_THREAD_CPUTIME_ID), so that time spent descheduled while the writer thread runs on the same
// cores does not count as capture overhead, and "off" and "on" run interleaved in one process.

#include <benchmark/benchmark.h>
#include <zstd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "reel/capture/capture.h"
#include "reel/replay/frame_feeder.h"
#include "reel/runtime/cpu_time.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"
#include "reel/schema/messages.h"
#include "reel/trace/frame_encoding.h"
#include "reel/trace/reader.h"

namespace reel {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t threadCpuNs() {
  return static_cast<uint64_t>(threadCpuTime().count());
}

std::string tempPath(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("reel-bench-") + name)).string();
}

uint32_t hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
float hash01(uint32_t i, uint32_t salt) {
  return float(hash(i * 0x9E3779B9u + salt) & 0xFFFFFF) / float(0x1000000);
}

// ---- the stress-like frame ----
class StressScene {
 public:
  static constexpr uint32_t kSprites = 25'000;  // x 4 packets
  static constexpr uint32_t kPipelines = 4, kTextures = 8;

  explicit StressScene(Renderer& renderer) : bucket_(renderer.createBucket<DrawKey>("stress")) {
    ResourceContext& r = renderer.resources();
    for (auto& p : pipelines_) p = r.createPipeline({});
    std::vector<std::byte> texels(16 * 16 * 4, std::byte{0x7f});
    for (auto& t : textures_)
      t = r.createTexture({16, 16, 1, Format::RGBA8Unorm, texture_usage::kSampled}, texels);
    sampler_ = r.createSampler({});
  }

  void record(uint64_t frame) {
    const float time = float(frame) / 60.0f;
    cmd::BindPipeline* headers[kPipelines];
    for (uint32_t p = 0; p < kPipelines; ++p) {
      headers[p] = &bucket_.createShared<cmd::BindPipeline>();
      headers[p]->pipeline = pipelines_[p];
    }
    for (uint32_t i = 0; i < kSprites; ++i) {
      const uint32_t material = hash(i) % (kPipelines * kTextures);
      const uint32_t pipeline = material / kTextures;
      const float depth = 0.05f + 0.9f * hash01(i, 6);
      const DrawKey key = DrawKey::draw(0, 1, pipeline == 0 ? Translucency::Opaque : Translucency::Normal,
                                        {material + 1, 0}, DrawKey::quantizeDepth(depth));
      PacketHeader& ref = bucket_.addShared(key, *headers[pipeline]);
      auto& texture = bucket_.append<cmd::BindTexture>(ref);
      texture.texture = textures_[material % kTextures];
      texture.sampler = sampler_;
      auto& push = bucket_.append<cmd::PushConstants>(&texture, 48);
      const float phase = hash01(i, 1) * 6.2831853f + time * (0.2f + 0.3f * hash01(i, 2));
      const float values[12] = {(hash01(i, 3) * 2 - 1) * 0.95f + 0.04f * std::cos(phase),
                                (hash01(i, 4) * 2 - 1) * 0.95f + 0.04f * std::sin(phase),
                                0.015f + 0.04f * hash01(i, 5),
                                (0.015f + 0.04f * hash01(i, 5)) * 1.777f,
                                0.3f + 0.7f * hash01(i, 7),
                                0.3f + 0.7f * hash01(i, 8),
                                0.3f + 0.7f * hash01(i, 9),
                                pipeline == 0 ? 1.0f : 0.6f,
                                depth,
                                phase,
                                pipeline == 3 ? 1.0f : 0.0f,
                                pipeline == 0 ? 0.0f : 1.0f};
      std::memcpy(bucket_.aux(push).data(), values, sizeof values);
      bucket_.append<cmd::Draw>(&push).vertexCount = 6;
    }
  }

 private:
  CommandBucket<DrawKey>& bucket_;
  PipelineHandle pipelines_[kPipelines];
  TextureHandle textures_[kTextures];
  SamplerHandle sampler_;
};

// A NullDevice (without call recording) that measures, in render-thread CPU time, each frame from the
// observer's onFrameStart to endFrame: everything the render thread does for a frame, capture included.
class TimedDevice final : public Device {
 public:
  const char* name() const override { return inner_.name(); }
  DeviceInfo info() const override { return inner_.info(); }
  Result<std::vector<std::byte>> readBuffer(BufferHandle b) override { return inner_.readBuffer(b); }
  Result<std::vector<std::byte>> readTexture(TextureHandle t, uint32_t mip) override {
    return inner_.readTexture(t, mip);
  }
  void beginFrame(uint64_t frame) override { inner_.beginFrame(frame); }
  void endFrame(uint64_t frame) override {
    inner_.endFrame(frame);
    lastFrameNs.store(threadCpuNs() - frameStartNs, std::memory_order_release);
  }
  void waitIdle() override {}
#define REEL_COMMAND(Name, Semantics, ...)                            \
  void execute(const cmd::Name& p, const PacketContext& c) override { \
    inner_.execute(p, c);                                             \
  }
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

  uint64_t frameStartNs = 0;  // render thread
  std::atomic<uint64_t> lastFrameNs{0};

 private:
  NullDevice inner_{false};
};

// Times the observers added between its two halves: opening() is added before them and closing() after,
// and a frame calls its observers in the order they were added.
class ObserverTimer {
 public:
  explicit ObserverTimer(TimedDevice& device) : opening_(*this), closing_(*this), device_(device) {}
  FrameObserver& opening() { return opening_; }
  FrameObserver& closing() { return closing_; }

  uint64_t observerNs = 0;  // render-thread CPU inside the observers this frame (read after flushAndWait)

 private:
  struct Opening final : FrameObserver {
    explicit Opening(ObserverTimer& owner) : timer(owner) {}
    void onFrameStart(const FrameStart&) override {
      timer.device_.frameStartNs = timer.mark_ = threadCpuNs();
    }
    void onFrame(const FrameView&) override { timer.mark_ = threadCpuNs(); }
    ObserverTimer& timer;
  };
  struct Closing final : FrameObserver {
    explicit Closing(ObserverTimer& owner) : timer(owner) {}
    void onFrameStart(const FrameStart&) override { timer.observerNs = threadCpuNs() - timer.mark_; }
    void onFrame(const FrameView&) override { timer.observerNs += threadCpuNs() - timer.mark_; }
    ObserverTimer& timer;
  };

  Opening opening_;
  Closing closing_;
  TimedDevice& device_;
  uint64_t mark_ = 0;  // render thread
};

capture::CaptureOptions captureOptions(const std::string& path) {
  capture::CaptureOptions options;
  options.path = path;
  options.appName = "reel_capture_bench";
  options.handleSignals = false;
  return options;
}

// Render-thread and recording-thread CPU per frame, capture off vs on, interleaved in blocks. The app is
// paced (a frame every 33 ms, like a 30 Hz game) so that the writer keeps up, as it must in a real
// capture; renderWaits counts the times it did not. With capture on, each frame is recorded once the
// writer is done with the previous one, so that the recording thread's figure is the capture's own cost
// to it (none is expected: it never touches the capture) and not the writer competing for the VM's two
// cores; the render thread runs while the writer builds and compresses, as it would in an app.
// Targets: <= 2% on the render thread, none on the recording thread. noise_pct compares the first and
// second half of the "off" blocks: differences below it are noise. observer_pct_of_frame is the
// capture's own render-thread CPU (inside onFrameStart/onFrame) per frame, which noise does not hide.
void BM_CaptureOverhead(benchmark::State& state) {
  constexpr int kBlocks = 6, kFramesPerBlock = 20;
  constexpr auto kPeriod = std::chrono::milliseconds(33);
  TimedDevice device;
  Renderer renderer(device, {.framesInFlight = 2});
  StressScene scene(renderer);
  double renderNs[2] = {}, recordNs[2] = {}, offHalves[2] = {}, observerNs = 0;
  uint64_t frames[2] = {}, offHalfFrames[2] = {}, waits = 0, writerNs = 0, written = 0;
  for (auto _ : state) {
    for (int block = 0; block < 2 * kBlocks; ++block) {
      const int on = block % 2;
      ObserverTimer timing(device);
      ObserverRegistration opening = renderer.addObserver(timing.opening());
      std::unique_ptr<capture::Capture> capture;
      if (on)
        capture =
            std::move(capture::Capture::start(renderer, captureOptions(tempPath("overhead.reel"))).value());
      ObserverRegistration closing = renderer.addObserver(timing.closing());
      auto next = Clock::now();
      for (int f = 0; f < kFramesPerBlock + 2; ++f) {
        while (capture && capture->stats().framesWritten < uint64_t(f))
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        const uint64_t before = threadCpuNs();
        scene.record(renderer.recordingFrame());
        const uint64_t recorded = threadCpuNs() - before;
        renderer.kick();
        renderer.flushAndWait();  // one frame at a time: its render time is read below
        // The first two frames of a block warm up (streams first used, the capture's resource snapshot).
        if (f >= 2) {
          const double render = double(device.lastFrameNs.load(std::memory_order_acquire));
          recordNs[on] += double(recorded);
          renderNs[on] += render;
          ++frames[on];
          if (on) observerNs += double(timing.observerNs);
          if (!on) {
            offHalves[block < kBlocks ? 0 : 1] += render;
            ++offHalfFrames[block < kBlocks ? 0 : 1];
          }
        }
        next += kPeriod;
        if (next < Clock::now()) next = Clock::now();
        std::this_thread::sleep_until(next);
      }
      opening.reset();
      closing.reset();
      if (capture) {
        (void)capture->finish();
        const capture::CaptureStats stats = capture->stats();
        waits += stats.renderWaits;
        writerNs += stats.writerCpuNs;
        written += stats.framesWritten;
        capture.reset();
      }
    }
  }
  const double renderOff = renderNs[0] / double(frames[0]), renderOn = renderNs[1] / double(frames[1]);
  const double recordOff = recordNs[0] / double(frames[0]), recordOn = recordNs[1] / double(frames[1]);
  const double half0 = offHalves[0] / double(offHalfFrames[0]),
               half1 = offHalves[1] / double(offHalfFrames[1]);
  state.counters["render_ms_off"] = renderOff / 1e6;
  state.counters["render_ms_on"] = renderOn / 1e6;
  state.counters["render_extra_pct"] = (renderOn / renderOff - 1.0) * 100.0;
  state.counters["record_ms_off"] = recordOff / 1e6;
  state.counters["record_ms_on"] = recordOn / 1e6;
  state.counters["record_extra_pct"] = (recordOn / recordOff - 1.0) * 100.0;
  state.counters["noise_pct"] = std::abs(half1 / half0 - 1.0) * 100.0;
  // The capture's own work on the render thread (onFrameStart + onFrame, waits for the writer included),
  // against the frame: what the A/B comparison above measures too, without the machine's noise.
  state.counters["observer_us_on"] = observerNs / double(frames[1]) / 1e3;
  state.counters["observer_pct_of_frame"] = observerNs / double(frames[1]) / renderOff * 100.0;
  state.counters["render_waits"] = double(waits);
  state.counters["writer_ms_per_frame"] = double(writerNs) / double(written) / 1e6;
  std::filesystem::remove(tempPath("overhead.reel"));
}
BENCHMARK(BM_CaptureOverhead)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// The encode threads' two steps on their own, per packet of the stress-like frame: gathering a leased
// frame's columns out of its streams, and encoding its message predicted from the two frames before
// (FrameGatherer, FrameEncoder, as the capture's encode threads run them). Thread CPU time of those
// calls alone, inside the observer call while the frame's streams are held; many frames, so that the
// figures hold still on a noisy machine.
class GatherEncodeTimer final : public FrameObserver {
 public:
  void onFrame(const FrameView& view) override {
    trace::bucketSources(view.buckets, sources_);
    const trace::FrameSource source{view.frame, view.sortedOrderHash, view.requests, sources_};
    const uint32_t slot = (newest_ + 1) % 3;
    const uint64_t t0 = threadCpuNs();
    if (auto ok = gatherer_.gather(source, frames_[slot]); !ok) {
      error = ok.error().message;
      return;
    }
    const uint64_t t1 = threadCpuNs();
    const auto message = encoder_.encode(frames_[slot], seen_ >= 1 ? &frames_[newest_] : nullptr,
                                         seen_ >= 2 ? &frames_[(newest_ + 2) % 3] : nullptr);
    const uint64_t t2 = threadCpuNs();
    newest_ = slot;
    ++seen_;
    if (seen_ > 2) {  // the first two encode without (all of) their prediction
      gatherNs += t1 - t0;
      encodeNs += t2 - t1;
      packets += frames_[slot].counts.packets;
      messageBytes += message.size();
      ++frames;
    }
  }
  uint64_t gatherNs = 0, encodeNs = 0, packets = 0, messageBytes = 0, frames = 0;
  std::string error;

 private:
  trace::FrameGatherer gatherer_;
  trace::FrameEncoder encoder_;
  trace::GatheredFrame frames_[3];
  std::vector<trace::BucketSource> sources_;
  uint32_t newest_ = 2;
  uint64_t seen_ = 0;
};

void BM_GatherEncode(benchmark::State& state) {
  NullDevice device(/*recordCalls=*/false);  // a log of every call would grow, and fault, all run long
  Renderer renderer(device, {.framesInFlight = 2});
  StressScene scene(renderer);
  GatherEncodeTimer timer;
  const ObserverRegistration registration = renderer.addObserver(timer);
  for (auto _ : state) {
    scene.record(renderer.recordingFrame());
    renderer.kick();
  }
  renderer.flushAndWait();
  if (!timer.error.empty()) state.SkipWithError(timer.error.c_str());
  const double packets = double(timer.packets);
  state.counters["gather_ns_per_packet"] = double(timer.gatherNs) / packets;
  state.counters["encode_ns_per_packet"] = double(timer.encodeNs) / packets;
  state.counters["message_bytes_per_packet"] = double(timer.messageBytes) / packets;
  state.counters["frames"] = double(timer.frames);
}
BENCHMARK(BM_GatherEncode)->Unit(benchmark::kMillisecond)->MinTime(3.0);

// Keeps three consecutive frames' streams (their leases) once the scene has recorded a few.
class FrameKeeper final : public FrameObserver {
 public:
  void onFrame(const FrameView& view) override {
    if (view.frame >= 3 && kept < leases.size()) leases[kept++] = view.lease();
  }
  std::array<FrameLease, 3> leases;
  size_t kept = 0;
};

// The stress scene's frames 3-5, leased, for benchmarks of one capture step at a time on this thread.
struct KeptFrames {
  KeptFrames() : renderer(device, {.framesInFlight = 2}), scene(renderer) {
    ObserverRegistration registration = renderer.addObserver(keeper);
    for (uint64_t i = 0; i < 8; ++i) {
      scene.record(renderer.recordingFrame());
      renderer.kick();
    }
    renderer.flushAndWait();
    registration.reset();
    for (size_t f = 0; f < keeper.kept; ++f) trace::bucketSources(keeper.leases[f].buckets(), buckets[f]);
  }
  trace::FrameSource source(size_t f) const {
    return {keeper.leases[f].frame(), 0, &keeper.leases[f].requests(), buckets[f]};
  }
  NullDevice device{/*recordCalls=*/false};
  Renderer renderer;
  StressScene scene;
  FrameKeeper keeper;
  std::array<std::vector<trace::BucketSource>, 3> buckets;
};

// Gathering alone: the same leased stress frame gathered again and again on this thread, with nothing
// else running, so that a change to FrameGatherer shows in ns a packet on a noisy machine (BM_GatherEncode
// times it on the render thread, beside the app's recording). Argument 1: the caches are flushed before each
// gather (a frame recorded on other cores, read once).
void BM_Gather(benchmark::State& state) {
  KeptFrames kept;
  if (kept.keeper.kept < 1) return state.SkipWithError("no frame was leased");
  const trace::FrameSource source = kept.source(0);
  trace::FrameGatherer gatherer;
  trace::GatheredFrame frame;
  const bool cold = state.range(0) != 0;
  std::vector<uint8_t> flush(cold ? 256u << 20 : 0);
  uint64_t packets = 0;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      std::memset(flush.data(), static_cast<int>(packets & 0xff), flush.size());
      benchmark::ClobberMemory();
      state.ResumeTiming();
    }
    if (auto ok = gatherer.gather(source, frame); !ok) return state.SkipWithError(ok.error().message.c_str());
    packets += frame.counts.packets;
    benchmark::DoNotOptimize(frame.buckets.data());
  }
  state.counters["ns_per_packet"] =
      benchmark::Counter(double(packets), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["packets_per_frame"] = double(frame.counts.packets);
  state.counters["gathered_MB"] = double(frame.gatheredBytes) / 1e6;
}
BENCHMARK(BM_Gather)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Encoding alone: the third of three gathered stress frames encoded against the two before it (as in a
// chunk), again and again on this thread.
void BM_Encode(benchmark::State& state) {
  KeptFrames kept;
  if (kept.keeper.kept < 3) return state.SkipWithError("fewer than three frames were leased");
  trace::FrameGatherer gatherer;
  std::array<trace::GatheredFrame, 3> frames;
  std::vector<uint64_t> lastEpoch;
  for (size_t f = 0; f < 3; ++f) {
    if (auto ok = gatherer.gather(kept.source(f), frames[f]); !ok)
      return state.SkipWithError(ok.error().message.c_str());
    trace::markRetained(frames[f], lastEpoch);
  }
  trace::FrameEncoder encoder;
  uint64_t packets = 0, bytes = 0;
  for (auto _ : state) {
    const auto message = encoder.encode(frames[2], &frames[1], &frames[0]);
    packets += frames[2].counts.packets;
    bytes += message.size();
    benchmark::DoNotOptimize(message.data());
  }
  state.counters["ns_per_packet"] =
      benchmark::Counter(double(packets), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["message_bytes_per_packet"] = double(bytes) / double(packets);
}
BENCHMARK(BM_Encode)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The writer flat out: frames kicked as fast as the render thread takes them, so the writer is the
// bottleneck. MB/s of raw packets (keys, payloads, aux data) per second of writer-thread CPU, at the
// chosen settings (target >= 200 MB/s on one core); bytes per packet and ratio (target >= 4x).
void BM_WriterThroughput(benchmark::State& state) {
  constexpr int kFrames = 48;
  TimedDevice device;
  Renderer renderer(device, {.framesInFlight = 2});
  StressScene scene(renderer);
  capture::CaptureStats stats;
  double wall = 0;
  for (auto _ : state) {
    auto capture =
        std::move(capture::Capture::start(renderer, captureOptions(tempPath("writer.reel"))).value());
    const auto start = Clock::now();
    for (int f = 0; f < kFrames; ++f) {
      scene.record(renderer.recordingFrame());
      renderer.kick();
    }
    (void)capture->finish();
    wall = std::chrono::duration<double>(Clock::now() - start).count();
    stats = capture->stats();
  }
  const double cpu = double(stats.writerCpuNs) / 1e9;
  state.counters["packets_per_frame"] = double(stats.packets) / double(stats.framesWritten);
  state.counters["raw_packet_MB"] = double(stats.packetBytes) / 1e6;
  state.counters["message_MB"] = double(stats.messageBytes) / 1e6;
  state.counters["file_MB"] = double(stats.fileBytes) / 1e6;
  state.counters["writer_packet_MBps_per_core"] = double(stats.packetBytes) / 1e6 / cpu;
  state.counters["writer_message_MBps_per_core"] = double(stats.messageBytes) / 1e6 / cpu;
  state.counters["writer_ms_per_frame"] = cpu * 1e3 / double(stats.framesWritten);
  state.counters["wall_frames_per_s"] = double(stats.framesWritten) / wall;
  state.counters["bytes_per_packet_raw"] = double(stats.packetBytes) / double(stats.packets);
  state.counters["bytes_per_packet_file"] = double(stats.fileBytes) / double(stats.packets);
  state.counters["ratio_vs_raw_packets"] = double(stats.packetBytes) / double(stats.fileBytes);
  state.counters["ratio_vs_messages"] = double(stats.messageBytes) / double(stats.fileBytes);
  state.counters["render_waits"] = double(stats.renderWaits);
}
BENCHMARK(BM_WriterThroughput)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// ---- compression settings, on the frame messages of a real capture ----

// Captures `frames` frames of the stress scene to `path`, with the benchmarks' capture options.
void captureStressFrames(const std::string& path, int frames) {
  TimedDevice device;
  Renderer renderer(device);
  StressScene scene(renderer);
  auto capture = std::move(capture::Capture::start(renderer, captureOptions(path)).value());
  for (int f = 0; f < frames; ++f) {
    scene.record(renderer.recordingFrame());
    renderer.kick();
  }
  (void)capture->finish();
}

// The raw Frame messages of a capture of `frames` stress frames, in order.
const std::vector<std::vector<uint8_t>>& frameMessages() {
  static const std::vector<std::vector<uint8_t>> messages = [] {
    const std::string path = tempPath("messages.reel");
    captureStressFrames(path, 32);
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto reader = trace::TraceReader::open(path);
    std::vector<std::vector<uint8_t>> out;
    std::vector<uint8_t> raw;
    uint32_t loaded = UINT32_MAX;
    for (const trace::MessageInfo& m : reader->messages()) {
      if (m.kind != static_cast<uint8_t>(fb::Body::Frame)) continue;
      if (m.chunk != loaded) {
        const trace::ChunkInfo& c = reader->chunks()[m.chunk];
        raw.resize(c.rawSize);
        ZSTD_decompress(raw.data(), raw.size(), file.data() + c.offset, c.compressedSize);
        loaded = m.chunk;
      }
      out.emplace_back(raw.begin() + m.offset, raw.begin() + m.offset + m.size);
    }
    std::filesystem::remove(path);
    return out;
  }();
  return messages;
}

struct Setting {
  const char* name;
  int level;
  bool ldm;
  int windowLog;      // 0: the level's default
  int framesPerUnit;  // frames per chunk; for prefix mode, frames between independent (key) frames
  bool prefix;        // each frame compressed with the previous one as a prefix (ZSTD_CCtx_refPrefix)
};

constexpr Setting kSettings[] = {
    {"plain_l1_1frame", 1, false, 0, 1, false},    {"plain_l1_8frames", 1, false, 0, 8, false},
    {"plain_l3_8frames", 3, false, 0, 8, false},   {"plain_l9_8frames", 9, false, 0, 8, false},
    {"plain_l19_8frames", 19, false, 0, 8, false}, {"window26_l1_8frames", 1, false, 26, 8, false},
    {"ldm_l1_w26_8frames", 1, true, 26, 8, false},  // the chosen setting (CompressionSettings defaults)
    {"ldm_l3_w26_8frames", 3, true, 26, 8, false}, {"ldm_l1_w27_16frames", 1, true, 27, 16, false},
    {"prefix_l1_key8", 1, false, 0, 8, true},      {"prefix_l3_key8", 3, false, 0, 8, true},
    {"prefix_ldm_l1_key8", 1, true, 26, 8, true},
};

// Compression ratio and speed (MB/s of input per second of this thread's CPU) of one setting over the
// same frames. Chunks of several frames are one
// zstd frame each (what `zstd -dc` reads); prefix mode makes each frame depend on the one before it,
// back to the last key frame (random access decompresses up to framesPerUnit frames, and a plain
// `zstd -dc` cannot decode such frames: the prefix is not in the stream).
void BM_Compression(benchmark::State& state) {
  const Setting& s = kSettings[state.range(0)];
  state.SetLabel(s.name);
  const auto& frames = frameMessages();
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, s.level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, s.ldm ? 1 : 0);
  if (s.windowLog) ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, s.windowLog);
  ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 27);
  uint64_t raw = 0, compressed = 0;
  double compressSeconds = 0, decompressSeconds = 0;
  for (auto _ : state) {
    raw = compressed = 0;
    compressSeconds = decompressSeconds = 0;
    std::vector<uint8_t> unit, out, back;
    for (size_t first = 0; first < frames.size(); first += size_t(s.framesPerUnit)) {
      const size_t last = std::min(frames.size(), first + size_t(s.framesPerUnit));
      if (s.prefix) {
        for (size_t f = first; f < last; ++f) {
          out.resize(ZSTD_compressBound(frames[f].size()));
          const uint64_t t0 = threadCpuNs();
          if (f > first) ZSTD_CCtx_refPrefix(cctx, frames[f - 1].data(), frames[f - 1].size());
          const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), frames[f].data(), frames[f].size());
          const uint64_t t1 = threadCpuNs();
          back.resize(frames[f].size());
          if (f > first) ZSTD_DCtx_refPrefix(dctx, frames[f - 1].data(), frames[f - 1].size());
          const size_t m = ZSTD_decompressDCtx(dctx, back.data(), back.size(), out.data(), n);
          const uint64_t t2 = threadCpuNs();
          if (ZSTD_isError(n) || ZSTD_isError(m) || m != frames[f].size() || back != frames[f]) {
            state.SkipWithError("round trip failed");
            return;
          }
          compressSeconds += double(t1 - t0) / 1e9;
          decompressSeconds += double(t2 - t1) / 1e9;
          raw += frames[f].size();
          compressed += n;
        }
      } else {
        unit.clear();
        for (size_t f = first; f < last; ++f) unit.insert(unit.end(), frames[f].begin(), frames[f].end());
        out.resize(ZSTD_compressBound(unit.size()));
        const uint64_t t0 = threadCpuNs();
        const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), unit.data(), unit.size());
        const uint64_t t1 = threadCpuNs();
        back.resize(unit.size());
        const size_t m = ZSTD_decompressDCtx(dctx, back.data(), back.size(), out.data(), n);
        const uint64_t t2 = threadCpuNs();
        if (ZSTD_isError(n) || ZSTD_isError(m) || back != unit) {
          state.SkipWithError("round trip failed");
          return;
        }
        compressSeconds += double(t1 - t0) / 1e9;
        decompressSeconds += double(t2 - t1) / 1e9;
        raw += unit.size();
        compressed += n;
      }
    }
  }
  ZSTD_freeCCtx(cctx);
  ZSTD_freeDCtx(dctx);
  state.counters["frames"] = double(frames.size());
  state.counters["frame_KB"] = double(raw) / double(frames.size()) / 1e3;
  state.counters["ratio"] = double(raw) / double(compressed);
  state.counters["compress_MBps"] = double(raw) / 1e6 / compressSeconds;
  state.counters["decompress_MBps"] = double(raw) / 1e6 / decompressSeconds;
  state.counters["zstd_dc_reads_it"] = s.prefix ? 0 : 1;
  state.counters["frames_to_decode_worst"] = double(s.framesPerUnit);
}
BENCHMARK(BM_Compression)
    ->DenseRange(0, std::size(kSettings) - 1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

// Reading back: frames/s opened, decompressed, verified and decoded (every packet visited), in order.
void BM_ReaderFrames(benchmark::State& state) {
  const std::string path = tempPath("reader.reel");
  captureStressFrames(path, 32);
  uint64_t frames = 0, packets = 0, rawBytes = 0, cpuNs = 0;
  for (auto _ : state) {
    const uint64_t cpuStart = threadCpuNs();
    auto reader = trace::TraceReader::open(path);
    if (!reader) {
      state.SkipWithError(reader.error().message.c_str());
      return;
    }
    for (size_t i = 0; i < reader->frameCount(); ++i) {
      auto frame = reader->readFrame(i);
      if (!frame) {
        state.SkipWithError(frame.error().message.c_str());
        return;
      }
      uint64_t sum = 0;
      for (const trace::BucketRecord& b : frame->buckets) {
        for (size_t k = 0; k < b.keyCount(); ++k) {
          b.forEachInChain(k, [&](const trace::PacketRecord& p) {
            sum += p.payload.size() + p.aux.size();
            ++packets;
          });
        }
      }
      benchmark::DoNotOptimize(sum);
      rawBytes += sum;
      ++frames;
    }
    cpuNs += threadCpuNs() - cpuStart;
  }
  // Per second of this thread's CPU: what one core does, whatever else the machine runs.
  state.counters["frames_per_cpu_s"] = double(frames) / (double(cpuNs) / 1e9);
  state.counters["payload_MB_per_cpu_s"] = double(rawBytes) / 1e6 / (double(cpuNs) / 1e9);
  state.counters["frames_per_s"] = benchmark::Counter(double(frames), benchmark::Counter::kIsRate);
  state.counters["packets_per_s"] = benchmark::Counter(double(packets), benchmark::Counter::kIsRate);
  state.counters["payload_MBps"] = benchmark::Counter(double(rawBytes) / 1e6, benchmark::Counter::kIsRate);
  std::filesystem::remove(path);
}
BENCHMARK(BM_ReaderFrames)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// A capture of 32 stress frames (in chunks of 8 frames), written once for the replay benchmarks below;
// REEL_BENCH_TRACE=T.reel measures T instead (e.g. a `reel-sample --scene stress` capture).
const std::string& stressTrace() {
  static const std::string path = [] {
    if (const char* given = std::getenv("REEL_BENCH_TRACE")) return std::string(given);
    std::string p = tempPath("replay.reel");
    captureStressFrames(p, 32);
    return p;
  }();
  return path;
}

// What a replay costs its replay thread per frame (issue 5: `decode_share` of `reel replay --json`):
// TraceReader::readFrame into one reused record (decompress when the frame starts a chunk, verify,
// decode) and FrameFeeder::submitFrame (refill the buckets), frame after frame in a loop over the trace,
// each frame then kicked to a NullDevice renderer. Thread CPU time of the replay thread only: the render
// thread's sort and translate run beside it and are not counted.
void BM_ReplayReadFeed(benchmark::State& state) {
  auto reader = trace::TraceReader::open(stressTrace());
  if (!reader) {
    state.SkipWithError(reader.error().message.c_str());
    return;
  }
  NullDevice device(false);
  Renderer renderer(device);
  auto feeder = replay::FrameFeeder::create(renderer, reader->header());
  if (!feeder) {
    state.SkipWithError(feeder.error().message.c_str());
    return;
  }
  if (auto resources = reader->readResources(); resources) {
    for (const auto& r : *resources) (void)(*feeder)->submitResources(r);
  }
  renderer.kick();
  trace::FrameRecord record;
  uint64_t frames = 0, packets = 0, readNs = 0, feedNs = 0;
  size_t next = 0;
  for (auto _ : state) {
    const uint64_t t0 = threadCpuNs();
    if (auto ok = reader->readFrame(next, record); !ok) {
      state.SkipWithError(ok.error().message.c_str());
      return;
    }
    const uint64_t t1 = threadCpuNs();
    if (auto ok = (*feeder)->submitFrame(record); !ok) {
      state.SkipWithError(ok.error().message.c_str());
      return;
    }
    const uint64_t t2 = threadCpuNs();
    renderer.kick();
    readNs += t1 - t0;
    feedNs += t2 - t1;
    packets += record.packetCount();
    ++frames;
    // Frame 0 created the resources (the capture started with the app): later passes skip it.
    next = next + 1 < reader->frameCount() ? next + 1 : 1;
  }
  renderer.flushAndWait();
  state.counters["read_ms_per_frame"] = double(readNs) / 1e6 / double(frames);
  state.counters["feed_ms_per_frame"] = double(feedNs) / 1e6 / double(frames);
  state.counters["ns_per_packet"] = double(readNs + feedNs) / double(packets);
  state.counters["packets_per_frame"] = double(packets) / double(frames);
}
BENCHMARK(BM_ReplayReadFeed)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The floor under readFrame: zstd alone decompressing (and checking the content checksum of) the same
// chunks into one reused buffer, like `zstd -b` on them. Per frame: a chunk's time over its frames.
void BM_ZstdFloor(benchmark::State& state) {
  std::ifstream in(stressTrace(), std::ios::binary);
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto reader = trace::TraceReader::open(stressTrace());
  if (!reader) {
    state.SkipWithError(reader.error().message.c_str());
    return;
  }
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::vector<uint8_t> out;
  uint64_t rawBytes = 0, cpuNs = 0, passes = 0;
  for (auto _ : state) {
    const uint64_t t0 = threadCpuNs();
    for (const trace::ChunkInfo& c : reader->chunks()) {
      if (out.size() < c.rawSize) out.resize(c.rawSize);
      const size_t n =
          ZSTD_decompressDCtx(dctx, out.data(), out.size(), file.data() + c.offset, c.compressedSize);
      if (ZSTD_isError(n)) {
        state.SkipWithError(ZSTD_getErrorName(n));
        ZSTD_freeDCtx(dctx);
        return;
      }
      rawBytes += n;
    }
    cpuNs += threadCpuNs() - t0;
    ++passes;
  }
  ZSTD_freeDCtx(dctx);
  state.counters["ms_per_frame"] = double(cpuNs) / 1e6 / double(passes * reader->frameCount());
  state.counters["decompress_MB_per_cpu_s"] = double(rawBytes) / 1e6 / (double(cpuNs) / 1e9);
}
BENCHMARK(BM_ZstdFloor)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace reel

BENCHMARK_MAIN();
