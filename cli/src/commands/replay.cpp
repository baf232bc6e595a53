// reel replay TRACE: replays frames through the sorted-submit render thread on a Vulkan device.

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

#include "../json.h"
#include "../progress.h"
#include "../trace_input.h"
#include "reel/replay/session.h"
#include "reel/runtime/vulkan/vulkan_device.h"

namespace reel::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class ReplayCommand final : public Subcommand {
 public:
  const char* name() const override { return "replay"; }
  const char* description() const override {
    return "Replay frames on a Vulkan device (headless); write their images and timings";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_option("--frames", frames_, "Frames to replay: A-B, A or A- (default: all)");
    app.add_option("--out", out_, "Write DIR/frame_<n>.png for every replayed frame");
    app.add_option("--target", target_, "Image to write: last (default), rt:N[.A] or tex:N");
    app.add_option("--stop-at", stopAt_, "Stop each frame after its N-th sorted packet (counted from 1)");
    app.add_option("--loop", loop_, "Replay the range N times (for benchmarking)")->check(CLI::Range(1, 1000000));
    app.add_option("--frames-in-flight", framesInFlight_, "1-4 (default 2)")->check(CLI::Range(1, 4));
    app.add_option("--device", device_, "Substring of the device name (default: REEL_DEVICE, else automatic)");
    app.add_flag("--validate", validate_, "Turn on the Khronos validation layer");
    app.add_flag("--json", json_, "Print per-frame times and a summary as JSON");
  }

  int run() override {
    trace::TraceReader reader = openTrace(path_);
    const auto [first, last] = frameRange(reader, frames_);
    auto target = replay::parseTarget(target_);
    if (!target) throw BadInput(target.error().message);
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
    auto session = replay::ReplaySession::create(
        reader, {.device = device_, .validate = validate_, .framesInFlight = framesInFlight_, .collectTimings = json_});
    if (!session) throw BadInput(session.error().message);
    replay::ReplaySession& s = **session;

    // Render-thread times per frame, from the Vulkan device.
    std::mutex timingMutex;
    std::map<uint64_t, VulkanFrameTiming> timings;
    auto* vulkan = dynamic_cast<VulkanDevice*>(&s.device());
    if (vulkan && json_) {
      vulkan->setTimingCallback([&](const VulkanFrameTiming& t) {
        std::lock_guard lock(timingMutex);
        timings[t.frame] = t;
      });
    }

    const uint64_t stop = stopAt_ ? *stopAt_ : UINT64_MAX;
    const bool wantImages = !out_.empty();
    std::string frameJson;
    uint64_t replayed = 0, written = 0;
    Progress progress("replay", (last - first + 1) * loop_);
    const auto start = Clock::now();
    for (uint32_t pass = 0; pass < loop_; ++pass) {
      for (size_t i = first; i <= last; ++i) {
        progress.step(replayed);
        const auto frameStart = Clock::now();
        auto result = s.replayFrame(i, stop, wantImages ? std::optional(*target) : std::nullopt);
        if (!result) throw BadInput(result.error().message);
        const double wall = std::chrono::duration<double>(Clock::now() - frameStart).count();
        ++replayed;
        if (result->image && pass == 0) {
          const fs::path file = fs::path(out_) / ("frame_" + std::to_string(result->frame) + ".png");
          if (auto ok = image::writePng(file, *result->image); !ok) throw BadInput(ok.error().message);
          ++written;
        }
        if (json_) {
          JsonObject o;
          o.add("frame", result->frame).add("loop", uint64_t{pass}).add("packets", result->packets);
          o.add("executed", result->executed).add("wall_ms", wall * 1e3);
          frameJson += (frameJson.empty() ? "" : ",") + o.str();
        }
      }
    }
    s.renderer().flushAndWait();
    progress.finish();
    const double total = std::chrono::duration<double>(Clock::now() - start).count();

    const std::vector<std::string> errors = s.takeDeviceErrors();
    for (const std::string& e : errors) std::fprintf(stderr, "device: %s\n", e.c_str());
    const auto mismatches = s.feeder().sortMismatches();
    for (const auto& m : mismatches) {
      std::fprintf(stderr, "frame %" PRIu64 ": the sorted order differs from the recorded one (sort changed)\n", m.frame);
    }
    const DeviceInfo info = s.device().info();
    if (json_) {
      // Attach the render-thread times now that every frame is done.
      std::string perFrame;
      {
        std::lock_guard lock(timingMutex);
        for (const auto& [frame, t] : timings) {
          JsonObject o;
          o.add("frame", frame).add("packets", t.packets);
          o.add("sort_ms", std::chrono::duration<double, std::milli>(t.sort).count());
          o.add("translate_ms", std::chrono::duration<double, std::milli>(t.translate).count());
          o.add("submit_ms", std::chrono::duration<double, std::milli>(t.submit).count());
          perFrame += (perFrame.empty() ? "" : ",") + o.str();
        }
      }
      JsonObject summary;
      summary.add("trace", path_).add("device", info.name).add("driver", info.driver);
      summary.add("frames", replayed).add("seconds", total).add("fps", replayed / total);
      summary.add("images_written", written).add("device_errors", uint64_t{errors.size()});
      summary.add("sort_mismatches", uint64_t{mismatches.size()});
      summary.raw("frames_replayed", "[" + frameJson + "]");
      summary.raw("render_thread", "[" + perFrame + "]");
      std::printf("%s\n", summary.str().c_str());
    } else {
      std::printf("replayed %" PRIu64 " frame%s (%" PRIu64 "-%" PRIu64 ")%s on %s in %.1f ms (%.1f frames/s)\n", replayed,
                  replayed == 1 ? "" : "s", reader.frameNumber(first), reader.frameNumber(last),
                  loop_ > 1 ? (" x" + std::to_string(loop_)).c_str() : "", info.name.c_str(), total * 1e3,
                  replayed / total);
      if (written) std::printf("images: %s/frame_<n>.png (%" PRIu64 " written)\n", out_.c_str(), written);
    }
    return errors.empty() ? kSuccess : kCheckFailed;
  }

 private:
  std::string path_, frames_, out_, target_ = "last", device_;
  std::optional<uint64_t> stopAt_;
  uint32_t loop_ = 1, framesInFlight_ = 2;
  bool validate_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeReplayCommand() { return std::make_unique<ReplayCommand>(); }

}  // namespace reel::cli
