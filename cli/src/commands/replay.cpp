// reel replay TRACE: replays frames through the sorted-submit render thread on a Vulkan device, headless
// or into a window; writes their images and, with --json, their CPU and GPU times.

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

#include "../progress.h"
#include "../trace_input.h"
#include "reel/json/json.h"
#include "reel/replay/session.h"
#include "reel/runtime/cpu_time.h"
#include "reel/vulkan/vulkan_device.h"
#include "reel/window/window.h"

namespace reel::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Nanoseconds = std::chrono::nanoseconds;

double ms(Nanoseconds t) {
  return std::chrono::duration<double, std::milli>(t).count();
}

// {"frames":n,"mean":..,"median":..,"p95":..,"min":..,"max":..} of milliseconds; null when there are none.
std::string distributionJson(std::vector<double> values) {
  if (values.empty()) return "null";
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  double sum = 0;
  for (const double v : values) sum += v;
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  // Nearest rank: the smallest value that at least 95% of the frames do not exceed.
  const size_t rank95 = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(n)));
  JsonObject o;
  o.add("frames", uint64_t{n}).add("mean", sum / static_cast<double>(n)).add("median", median);
  o.add("p95", values[std::max<size_t>(rank95, 1) - 1]).add("min", values.front()).add("max", values.back());
  return o.str();
}

// Each frame the render thread ran, in the order it ran them (catch-up frames before a --frames range and
// the empty frame of a restart included): its phases from the renderer, and its GPU time from the Vulkan
// device, which comes framesInFlight frames later, from the render thread, in frame order.
class FrameTimes final : public FrameObserver {
 public:
  struct Frame {
    FrameTiming cpu;
    std::optional<Nanoseconds> gpu;
  };

  // Before the first frame; the CPU times come from registering this as the renderer's observer.
  void attachGpu(VulkanDevice& device) {
    device.setGpuTimingCallback([this](const VulkanGpuTiming& t) {
      std::lock_guard lock(mutex_);
      // Frame numbers repeat after a restart (--loop): the GPU time belongs to the oldest frame of that
      // number still waiting for one, which is at or after the last one matched.
      for (size_t i = gpuCursor_; i < frames_.size(); ++i) {
        if (frames_[i].cpu.frame == t.frame) {
          frames_[i].gpu = t.gpu;
          gpuCursor_ = i + 1;
          break;
        }
      }
    });
  }
  void onFrame(const FrameView&) override {}
  void onFrameEnd(const FrameTiming& timing) override {
    std::lock_guard lock(mutex_);
    frames_.push_back({timing, std::nullopt});
  }
  // Once the render thread is idle (after flushAndWait).
  std::vector<Frame> take() {
    std::lock_guard lock(mutex_);
    return std::move(frames_);
  }

 private:
  std::mutex mutex_;
  std::vector<Frame> frames_;
  size_t gpuCursor_ = 0;
};

// Frames a replay could not run (a damaged chunk, or a frame after one before the next key frame), as
// runs of consecutive frame numbers, each with the first frame's error: a lost chunk is one line, not one
// per frame.
struct LostFrames {
  struct Range {
    uint64_t first, last;
    std::string error;
    std::string frames() const {
      return first == last ? "frame " + std::to_string(first)
                           : "frames " + std::to_string(first) + "-" + std::to_string(last);
    }
  };
  std::vector<Range> ranges;
  uint64_t count = 0;

  void add(uint64_t frame, std::string error) {
    ++count;
    if (!ranges.empty() && ranges.back().last + 1 == frame) {
      ranges.back().last = frame;
    } else {
      ranges.push_back({frame, frame, std::move(error)});
    }
  }
  bool empty() const { return ranges.empty(); }
};

class ReplayCommand final : public Subcommand {
 public:
  const char* name() const override { return "replay"; }
  const char* description() const override {
    return "Replay frames on a Vulkan device, headless or in a window; write their images and timings. "
           "Exit 1 when the device reports errors, a frame's sorted order differs from the recorded one "
           "(the sort changed), or frames are lost to a damaged trace (the others still replay: from the "
           "next key frame after the damage)";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_option("--frames", frames_, "Frames to replay: A-B, A or A- (default: all)");
    app.add_option("--out", out_,
                   "Write DIR/frame_<n>.png for every replayed frame (not with --device null)");
    app.add_option("--target", target_, "Image to write and show: last (default), rt:N[.A] or tex:N");
    app.add_option("--stop-at", stopAt_, "Stop each frame after its N-th sorted packet (counted from 1)");
    app.add_option("--loop", loop_, "Replay the range N times (for benchmarking)")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--frames-in-flight", framesInFlight_, "1-4 (default 2)")->check(CLI::Range(1, 4));
    app.add_option("--render-workers", renderWorkers_,
                   "threads that translate a large frame (default: REEL_RENDER_WORKERS, else every core)")
        ->check(CLI::Range(1, 64));
    app.add_option("--lookahead", lookahead_,
                   "frames read and decoded ahead on worker threads, at most (default 32, fewer when 64 MiB "
                   "of the trace's largest frames would not fit; 0: read in line)")
        ->check(CLI::Range(0, 64));
    app.add_option("--read-workers", readWorkers_,
                   "threads reading ahead, a chunk each at a time (default: the cores less two, 1 to 4)")
        ->check(CLI::Range(1, 16));
    app.add_option("--device", device_,
                   "Substring of the device name (default: REEL_DEVICE, else automatic)");
    app.add_flag("--validate", validate_, "Turn on the Khronos validation layer");
    app.add_flag("--json", json_, "Print per-frame CPU and GPU times and a summary as JSON");
    app.add_flag("--window", window_,
                 "Show each replayed frame's --target in a window (closing it stops the replay)");
    app.add_flag("--exercise-window", exerciseWindow_,
                 "With --window: resize at frame 10, minimized 20-29, restored at 30, closed at 40")
        ->group("");  // hidden: for testing the windowed path under Xvfb
  }

  int run() override {
    const Nanoseconds openCpu0 = threadCpuTime();
    trace::TraceReader reader = openTrace(path_);
    const Nanoseconds openCpu = threadCpuTime() - openCpu0;
    const auto [first, last] = frameRange(reader, frames_);
    auto target = replay::parseTarget(target_);
    if (!target) throw BadInput(target.error().message);
    // Refused before the output folder is made: nothing is written.
    if (device_ == "null" && !out_.empty()) throw BadInput(kNullDeviceImages);
    if (!out_.empty()) {
      std::error_code ec;
      fs::create_directories(out_, ec);
      if (ec || !fs::is_directory(out_)) throw BadInput(out_ + ": cannot create the output folder");
      const fs::path probe = fs::path(out_) / ".reel_write_probe";
      if (FILE* f = std::fopen(probe.c_str(), "w")) {
        std::fclose(f);
        fs::remove(probe, ec);
      } else {
        throw BadInput(out_ + ": the output folder is not writable");
      }
    }
    if (exerciseWindow_ && !window_) throw BadInput("--exercise-window needs --window");
    std::unique_ptr<window::Window> window;
    if (window_) {
      if (!window::displayAvailable()) {
        throw BadInput("--window: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set)");
      }
      auto created = window::Window::create(kWindowWidth, kWindowHeight,
                                            "reel replay: " + fs::path(path_).filename().string());
      if (!created) throw BadInput("--window: " + created.error().message);
      window = std::move(*created);
    }

    // Declared before the session: the device delivers GPU times until it is destroyed.
    FrameTimes frameTimes;
    // The replay's renderer reads its worker count where every renderer does (RendererConfig::workers 0).
    if (renderWorkers_ > 0) setenv("REEL_RENDER_WORKERS", std::to_string(renderWorkers_).c_str(), 1);
    replay::SessionOptions options{
        .device = device_, .validate = validate_, .framesInFlight = framesInFlight_, .collectTimings = json_};
    options.lookahead = lookahead_;
    options.readWorkers = readWorkers_;
    if (window) {
      options.configureDevice = [&window](VulkanDeviceOptions& o) { window->attach(o); };
      options.present = *target;
    }
    auto session = replay::ReplaySession::create(reader, options);
    if (!session) throw BadInput(session.error().message);
    replay::ReplaySession& s = **session;
    VulkanDevice* vulkan = s.vulkanDevice();
    // The null device rasterizes nothing: its "images" are whatever requests and copies left in the
    // target (the capture-start snapshot, or blank), which look like frames and are not.
    if (!vulkan && !out_.empty()) throw BadInput(kNullDeviceImages);
    if (vulkan && json_) frameTimes.attachGpu(*vulkan);
    const ObserverRegistration timing = json_ ? s.renderer().addObserver(frameTimes) : ObserverRegistration{};
    const Nanoseconds decodeBeforeLoop = s.decodeTimes().cpu;  // the resources, read when the session started

    // Only with --json: without it a --loop of a million frames keeps nothing per frame.
    struct Replayed {
      uint64_t frame, loop, packets, executed, deviceFrame;
    };
    std::vector<Replayed> replayedFrames;
    LostFrames lost;
    const uint64_t stop = stopAt_ ? *stopAt_ : UINT64_MAX;
    const bool wantImages = !out_.empty();
    uint64_t replayed = 0, attempted = 0, written = 0, presented = 0;
    bool closed = false;
    Progress progress("replay", (last - first + 1) * loop_);
    const auto start = Clock::now();
    const Nanoseconds threadCpu0 = threadCpuTime();
    const Nanoseconds processCpu0 = processCpuTime();
    for (uint32_t pass = 0; pass < loop_ && !closed; ++pass) {
      for (size_t i = first; i <= last; ++i) {
        if (window) {
          if (exerciseWindow_) {
            window->exercise(replayed, kWindowWidth, kWindowHeight);
            if (replayed == 40) window->requestClose();
          }
          window->poll();
          if (window->shouldClose()) {
            closed = true;
            break;
          }
        }
        progress.step(attempted++);
        auto result = s.replayFrame(i, stop, wantImages ? std::optional(*target) : std::nullopt);
        if (!result) {
          // A frame whose chunk is unreadable, or one that needs such a frame's state: the engine starts
          // again at the next key frame it can read, so the replay goes on and reports what it lost.
          if (pass == 0) lost.add(reader.frameNumber(i), result.error().message);
          continue;
        }
        ++replayed;
        presented += result->presented;
        if (result->image && pass == 0) {
          const fs::path file = fs::path(out_) / ("frame_" + std::to_string(result->frame) + ".png");
          if (auto ok = image::writePng(file, *result->image); !ok) throw BadInput(ok.error().message);
          ++written;
        }
        if (json_) {
          replayedFrames.push_back(
              {result->frame, pass, result->packets, result->executed, s.renderer().recordingFrame() - 1});
        }
      }
    }
    s.renderer().flushAndWait();
    const Nanoseconds threadCpu = threadCpuTime() - threadCpu0;
    const Nanoseconds processCpu = processCpuTime() - processCpu0;
    progress.finish();
    const double total = std::chrono::duration<double>(Clock::now() - start).count();

    const std::vector<std::string> errors = s.takeDeviceErrors();
    for (const std::string& e : errors) std::fprintf(stderr, "device: %s\n", e.c_str());
    const auto mismatches = s.feeder().sortMismatches();
    // Frames the capture left out (its writer was behind): their requests ran, their commands are not in
    // the trace, so their images are not the app's.
    const std::vector<uint64_t> dropped = s.feeder().droppedFrames();
    if (!dropped.empty()) {
      std::fprintf(stderr, "%zu frame%s dropped by the capture (first: frame %" PRIu64 "): not replayed\n",
                   dropped.size(), dropped.size() == 1 ? " was" : "s were", dropped.front());
    }
    for (const auto& m : mismatches) {
      std::fprintf(stderr,
                   "frame %" PRIu64 ": the sorted order differs from the recorded one (sort changed)\n",
                   m.frame);
    }
    if (replayed == 0 && !lost.empty()) throw BadInput(lost.ranges.front().error);
    for (const LostFrames::Range& r : lost.ranges) {
      std::fprintf(stderr, "%s: %s could not be replayed: %s\n", path_.c_str(), r.frames().c_str(),
                   r.error.c_str());
    }
    const DeviceInfo info = s.device().info();
    const double fps = total > 0 ? static_cast<double>(replayed) / total : 0.0;
    if (json_) {
      const std::vector<FrameTimes::Frame> times = frameTimes.take();
      const bool gpuTimestamps = vulkan && vulkan->gpuTimestamps();
      auto gpuJson = [&](const FrameTimes::Frame& t) {
        return gpuTimestamps && t.gpu ? jsonNumber(ms(*t.gpu)) : std::string("null");
      };
      // Every frame the render thread ran, and the render-thread CPU time of the whole replay.
      std::string perFrame;
      Nanoseconds renderThreadCpu{0};
      for (const FrameTimes::Frame& t : times) {
        JsonObject o;
        o.add("frame", t.cpu.frame).add("packets", t.cpu.packets);
        // Instance merging (REEL_MERGE_INSTANCES=0 turns it off): the frame's draws as recorded and the
        // draws the device got.
        o.add("draws_recorded", t.cpu.drawsRecorded).add("draws_submitted", t.cpu.drawsSubmitted);
        o.add("merged_runs", t.cpu.mergedRuns);
        o.add("sort_ms", ms(t.cpu.wallOf(FramePhase::Merge) + t.cpu.wallOf(FramePhase::Sort)))
            .add("translate_ms", ms(t.cpu.wallOf(FramePhase::Translate)))
            .add("submit_ms", ms(t.cpu.wallOf(FramePhase::Submit)));
        // Every phase of the renderer's own timing (frame_timing.h): wall and render-thread CPU.
        JsonObject phases;
        for (size_t p = 0; p < kFramePhaseCount; ++p) {
          JsonObject phase;
          phase.add("wall_ms", ms(t.cpu.wall[p])).add("cpu_ms", ms(t.cpu.cpu[p]));
          phases.raw(framePhaseName(static_cast<FramePhase>(p)), phase.str());
        }
        o.raw("phases", phases.str());
        // Wide translation: each job's wall time and its share of the frame's packets, and the render
        // thread's wait for the slowest job (1 job: the render thread translated alone).
        std::string jobs;
        for (uint32_t j = 0; j < t.cpu.jobs && j < kMaxRenderWorkers; ++j) {
          JsonObject job;
          job.add("wall_ms", ms(t.cpu.jobWall[j])).add("packets", t.cpu.jobPackets[j]);
          job.add("share", t.cpu.packets ? double(t.cpu.jobPackets[j]) / double(t.cpu.packets) : 0.0);
          jobs += (jobs.empty() ? "" : ",") + job.str();
        }
        o.add("cpu_ms", ms(t.cpu.totalCpu())).raw("gpu_ms", gpuJson(t));
        o.raw("jobs", "[" + jobs + "]").add("wait_ms", ms(t.cpu.wallOf(FramePhase::Wait)));
        perFrame += (perFrame.empty() ? "" : ",") + o.str();
        renderThreadCpu += t.cpu.totalCpu();
      }
      // The frames asked for, each matched with the render thread's frame it became (frames are matched
      // in order: a number repeats after a restart).
      std::string frameJson;
      std::vector<double> cpuMs, gpuMs;
      size_t cursor = 0;
      for (const Replayed& r : replayedFrames) {
        JsonObject o;
        o.add("frame", r.frame).add("loop", r.loop).add("packets", r.packets);
        o.add("executed", r.executed);
        size_t k = cursor;
        while (k < times.size() && times[k].cpu.frame != r.deviceFrame) ++k;
        if (k < times.size()) {
          cursor = k + 1;
          // The frame's own time on the render thread, from its beginFrame to its submit (every phase of
          // frame_timing.h); replayFrame returns once the frame is kicked, long before that.
          o.add("wall_ms", ms(times[k].cpu.totalWall()));
          o.add("cpu_ms", ms(times[k].cpu.totalCpu())).raw("gpu_ms", gpuJson(times[k]));
          cpuMs.push_back(ms(times[k].cpu.totalCpu()));
          if (gpuTimestamps && times[k].gpu) gpuMs.push_back(ms(*times[k].gpu));
        } else {
          o.raw("wall_ms", "null").raw("cpu_ms", "null").raw("gpu_ms", "null");
        }
        frameJson += (frameJson.empty() ? "" : ",") + o.str();
      }
      // Reading the trace (opening it, then TraceReader + FrameFeeder on this thread and the read-ahead
      // thread's TraceReader; thread CPU time) against all of reel's replay CPU: this thread's (opening
      // the trace, reading the first resources, then the frame loop), the read-ahead thread's and the
      // render thread's frames. Creating the device is setup, not replay.
      // The driver's own threads (all of the rendering on lavapipe) are only in process_ms.
      const replay::DecodeTimes& decode = s.decodeTimes();
      const Nanoseconds decodeCpu = openCpu + decode.cpu;
      const Nanoseconds replayThreadCpu = openCpu + decodeBeforeLoop + threadCpu;
      const Nanoseconds replayCpu = replayThreadCpu + renderThreadCpu + decode.aheadCpu;
      const Nanoseconds decodeInLoop = decode.cpu - decodeBeforeLoop;
      JsonObject cpu;
      cpu.add("decode_ms", ms(decodeCpu)).add("decode_wall_ms", ms(decode.wall)).add("open_ms", ms(openCpu));
      cpu.add("read_ms", ms(decode.readCpu)).add("feed_ms", ms(decode.feedCpu));
      // zstd on this thread's reader and on the read-ahead thread's.
      const Nanoseconds decompressCpu = reader.decompressStats().cpu + decode.aheadDecompressCpu;
      cpu.add("decompress_ms", ms(decompressCpu));
      cpu.add("replay_thread_ms", ms(replayThreadCpu)).add("render_thread_ms", ms(renderThreadCpu));
      cpu.add("read_ahead_thread_ms", ms(decode.aheadCpu));
      cpu.add("process_ms", ms(processCpu)).add("decode_in_loop_ms", ms(decodeInLoop));
      cpu.add("decode_share_of_process", processCpu.count() > 0 ? ms(decodeInLoop) / ms(processCpu) : 0.0);

      JsonObject summary;
      summary.add("trace", path_).add("device", info.name).add("driver", info.driver);
      summary.add("frames", replayed).add("seconds", total).add("fps", fps);
      summary.add("images_written", written).add("device_errors", uint64_t{errors.size()});
      summary.add("sort_mismatches", uint64_t{mismatches.size()});
      if (window) summary.add("presented", presented).add("window_closed", closed);
      summary.add("gpu_timestamps", gpuTimestamps);
      summary.raw("cpu_ms", distributionJson(cpuMs));
      summary.raw("gpu_ms", gpuTimestamps ? distributionJson(gpuMs) : "null");
      // decode_share: getting frames out of the trace and into the buckets (read + feed); read_share:
      // reading alone (open, decompress, verify, decode), without refilling the buckets; decompress_share:
      // zstd alone, the floor under read_share for this trace on this machine.
      summary.add("decode_ms", ms(decodeCpu));
      summary.add("decode_share", replayCpu.count() > 0 ? ms(decodeCpu) / ms(replayCpu) : 0.0);
      summary.add("read_share", replayCpu.count() > 0 ? ms(openCpu + decode.readCpu) / ms(replayCpu) : 0.0);
      summary.add("decompress_share", replayCpu.count() > 0 ? ms(decompressCpu) / ms(replayCpu) : 0.0);
      // critical_path_decode_share: the render thread's time spent waiting for the next frame (frames are
      // read, decompressed and decoded ahead on a worker thread; fed on this one), over its time from its
      // first frame's start to its last frame's end. decode_share above stays the CPU total.
      summary.add("critical_path_decode_share",
                  decode.renderSpan.count() > 0 ? ms(decode.renderIdle) / ms(decode.renderSpan) : 0.0);
      summary.add("render_wait_ms", ms(decode.renderIdle)).add("fetch_wait_ms", ms(decode.fetchWait));
      summary.add("dropped_frames", uint64_t{dropped.size()});
      std::string lostJson;
      for (const LostFrames::Range& r : lost.ranges) {
        JsonObject o;
        o.add("first", r.first).add("last", r.last).add("error", r.error);
        lostJson += (lostJson.empty() ? "" : ",") + o.str();
      }
      summary.add("frames_lost", lost.count).raw("lost", "[" + lostJson + "]");
      if (vulkan) {  // device memory at the end of the replay (sub-allocation: blocks shared by resources)
        const VulkanMemoryStats m = vulkan->stats().memory;
        JsonObject memory;
        memory.add("allocations", m.allocations).add("peak_allocations", m.peakAllocations);
        memory.add("blocks", m.blocks).add("dedicated", m.dedicated).add("resources", m.resources);
        memory.add("bytes_allocated", m.bytesAllocated).add("bytes_in_use", m.bytesInUse);
        memory.add("waste_bytes", m.wasteBytes);
        memory.add("transient_bytes", m.transientBytes).add("aliased_bytes_saved", m.aliasedBytesSaved);
        summary.raw("device_memory", memory.str());
        // Several queues: how many the device opened and what the replay submitted to each.
        const VulkanDeviceStats d = vulkan->stats();
        JsonObject queues;
        queues.add("opened", uint64_t{d.queues}).add("submits", d.submits);
        queues.add("compute_submits", d.computeSubmits).add("transfer_submits", d.transferSubmits);
        queues.add("waits", d.queueWaits).add("wait_splits", d.waitSplits).add("barriers", d.barriers);
        summary.raw("queues", queues.str());
        // vkCmdBeginRendering calls, those that go on with a pass an outside-rendering command
        // interrupted, and attachments stored DONT_CARE (transient textures at their last pass).
        JsonObject passes;
        passes.add("begun", d.renderPasses).add("suspensions", d.renderPassSuspensions);
        passes.add("stores_discarded", d.storesDiscarded);
        summary.raw("render_passes", passes.str());
      }
      summary.raw("cpu_time", cpu.str());
      summary.raw("frames_replayed", "[" + frameJson + "]");
      summary.raw("render_thread", "[" + perFrame + "]");
      std::printf("%s\n", summary.str().c_str());
    } else {
      std::printf(
          "replayed %" PRIu64 " frame%s (%" PRIu64 "-%" PRIu64 ")%s on %s in %.1f ms (%.1f frames/s)\n",
          replayed, replayed == 1 ? "" : "s", reader.frameNumber(first), reader.frameNumber(last),
          loop_ > 1 ? (" x" + std::to_string(loop_)).c_str() : "", info.name.c_str(), total * 1e3, fps);
      if (written) std::printf("images: %s/frame_<n>.png (%" PRIu64 " written)\n", out_.c_str(), written);
      if (window) {
        const VulkanDeviceStats stats = vulkan ? vulkan->stats() : VulkanDeviceStats{};
        std::printf("window: %" PRIu64 " frames presented, swapchain created %" PRIu64 " times%s\n",
                    stats.presents, stats.swapchainRecreations,
                    closed ? "; closed, so the replay stopped there" : "");
      }
    }
    // A changed sort fails the replay like a device error: its images may not be the captured frames.
    // So does a frame lost to a damaged trace: the replay did not show everything asked for.
    return errors.empty() && mismatches.empty() && lost.empty() ? kSuccess : kCheckFailed;
  }

 private:
  static constexpr uint32_t kWindowWidth = 960, kWindowHeight = 540;
  static constexpr const char* kNullDeviceImages =
      "--out with --device null: the null device rasterizes nothing, so its images would not be the "
      "frames; replay on a Vulkan device (lavapipe will do) to write images";

  std::string path_, frames_, out_, target_ = "last", device_;
  std::optional<uint64_t> stopAt_;
  uint32_t loop_ = 1, framesInFlight_ = 2, renderWorkers_ = 0,
           lookahead_ = replay::SessionOptions{}.lookahead;
  uint32_t readWorkers_ = 0;
  bool validate_ = false, json_ = false, window_ = false, exerciseWindow_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeReplayCommand() {
  return std::make_unique<ReplayCommand>();
}

}  // namespace reel::cli
