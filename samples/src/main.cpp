// reel-sample: renders the sample's scenes, headless or in a window, and writes frame images.
//
//   reel-sample --scene cubes --frames 60 --out out/   ->  out/frame_0.png ... out/frame_59.png
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "reel/capture/environment.h"
#include "reel/image/image.h"
#include "reel/window/window.h"
#include "run.h"
#include "scene.h"

namespace {

// --save-frames A-B (or a single frame A).
bool parseRange(const std::string& text, uint64_t& first, uint64_t& last) {
  static const std::regex kRange(R"((\d+)(?:-(\d+))?)");
  std::smatch m;
  if (!std::regex_match(text, m, kRange)) return false;
  first = std::stoull(m[1]);
  last = m[2].matched ? std::stoull(m[2]) : first;
  return first <= last;
}

void printStats(const reel::samples::RunResult& r) {
  // Steady state: the first frames compile pipelines and fill caches.
  const size_t skip = r.timings.size() > 4 ? 2 : 0;
  auto steadyMedian = [skip](const std::vector<double>& values) {
    return reel::samples::medianOf(values.size() > skip
                                       ? std::vector<double>(values.begin() + skip, values.end())
                                       : std::vector<double>());
  };
  // Where a frame's time goes, phase by phase, as medians over the frames: which side slows down when
  // something else (a capture, another process) takes cores.
  std::string phases;
  for (size_t p = 0; p < reel::kFramePhaseCount; ++p) {
    std::vector<double> wall;
    for (const reel::FrameTiming& t : r.timings) wall.push_back(double(t.wall[p].count()) / 1e6);
    phases += std::string(phases.empty() ? "" : ", ") + "\"" +
              reel::framePhaseName(static_cast<reel::FramePhase>(p)) +
              "\": " + std::to_string(steadyMedian(wall));
  }
  double sort = 0, translate = 0, submit = 0, packets = 0;
  for (size_t i = skip; i < r.timings.size(); ++i) {
    const reel::FrameTiming& t = r.timings[i];
    sort += double((t.wallOf(reel::FramePhase::Merge) + t.wallOf(reel::FramePhase::Sort)).count());
    translate += double(t.wallOf(reel::FramePhase::Translate).count());
    submit += double(t.wallOf(reel::FramePhase::Submit).count());
    packets += double(r.timings[i].packets);
  }
  const double n = double(r.timings.size() - skip);
  const double perPacket = packets > 0 ? 1.0 / packets : 0.0;
  const auto& s = r.deviceStats;
  std::printf(
      "{\"device\": \"%s\", \"frames\": %llu, \"seconds\": %.4f, \"ms_per_frame\": %.3f, "
      "\"median_frame_ms\": %.4f,\n"
      " \"app_thread_ms_median\": {\"record\": %.4f, \"kick\": %.4f},\n"
      " \"render_thread_phase_ms_median\": {%s},\n"
      " \"measured_frames\": %.0f, \"packets_per_frame\": %.1f,\n"
      " \"render_thread_us_per_frame\": {\"sort\": %.1f, \"translate\": %.1f, \"submit\": %.1f},\n"
      " \"render_thread_ns_per_packet\": {\"sort\": %.2f, \"translate\": %.2f, \"submit\": %.2f},\n"
      " \"device_counters\": {\"draws\": %llu, \"dispatches\": %llu, \"pipeline_binds\": %llu, "
      "\"descriptor_pushes\": "
      "%llu,"
      " \"push_constant_calls\": %llu, \"redundant_binds_skipped\": %llu, \"barriers\": %llu,"
      " \"render_passes\": %llu, \"render_pass_suspensions\": %llu, \"stores_discarded\": %llu,"
      " \"queues\": %u, \"compute_submits\": %llu,"
      " \"transfer_submits\": %llu, \"queue_waits\": %llu, \"wait_splits\": %llu}}\n",
      r.device.name.c_str(), static_cast<unsigned long long>(r.frames), r.seconds,
      r.frames ? r.seconds * 1000.0 / double(r.frames) : 0.0, r.medianFrameMs, steadyMedian(r.recordMs),
      steadyMedian(r.kickMs), phases.c_str(), n, n > 0 ? packets / n : 0.0, n > 0 ? sort / n / 1e3 : 0.0,
      n > 0 ? translate / n / 1e3 : 0.0, n > 0 ? submit / n / 1e3 : 0.0, sort * perPacket,
      translate * perPacket, submit * perPacket, static_cast<unsigned long long>(s.draws),
      static_cast<unsigned long long>(s.dispatches), static_cast<unsigned long long>(s.pipelineBinds),
      static_cast<unsigned long long>(s.descriptorPushes),
      static_cast<unsigned long long>(s.pushConstantCalls),
      static_cast<unsigned long long>(s.redundantBindsSkipped), static_cast<unsigned long long>(s.barriers),
      static_cast<unsigned long long>(s.renderPasses),
      static_cast<unsigned long long>(s.renderPassSuspensions),
      static_cast<unsigned long long>(s.storesDiscarded), s.queues,
      static_cast<unsigned long long>(s.computeSubmits), static_cast<unsigned long long>(s.transferSubmits),
      static_cast<unsigned long long>(s.queueWaits), static_cast<unsigned long long>(s.waitSplits));
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using reel::samples::RunOptions;
  RunOptions options;
  CLI::App app(
      "reel-sample: renders reel's sample scenes (deterministic: frame N is the same image on every run)");
  std::string scenes;
  for (const char* name : reel::samples::sceneNames()) {
    scenes += std::string(scenes.empty() ? "" : ", ") + name;
  }
  app.add_option("--scene", options.scene, "scene: " + scenes)->capture_default_str();
  uint64_t frames = 0;
  app.add_option("--frames", frames, "frames to render (default: 120 headless, until closed in a window)");
  app.add_option("--draws", options.draws, "objects of the scene (cubes: 2000, stress: 100000, ...)");
  bool headless = false;
  app.add_flag("--headless", headless, "render offscreen even when a display is available");
  std::string out;
  app.add_option("--out", out, "write DIR/frame_<n>.png for every frame (or for --save-frames)");
  std::string saveFrames;
  app.add_option("--save-frames", saveFrames, "only these frames: A-B or A");
  app.add_option("--render-workers", options.renderWorkers,
                 "threads that translate a large frame (0: REEL_RENDER_WORKERS, else every core)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  app.add_option("--frames-in-flight", options.framesInFlight, "frames in flight, 1..4")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  app.add_option("--device", options.device,
                 "Vulkan device: a substring of its name (else REEL_DEVICE, else auto)");
  app.add_flag("--validate", options.validate, "enable the Khronos validation layer (also REEL_VALIDATE=1)");
  app.add_option("--width", options.width, "frame width")->check(CLI::Range(1, 16384))->capture_default_str();
  app.add_option("--height", options.height, "frame height")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  app.add_option("--threads", options.threads, "recording threads")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  bool stats = false;
  app.add_flag("--stats", stats, "print render-thread timings (sort / translate / submit) as JSON");
  app.add_option("--pipeline-cache", options.pipelineCachePath,
                 "load and save the Vulkan pipeline cache here");
  app.add_flag("--exercise-window", options.exerciseWindow,
               "resize, minimize and restore the window on a schedule")
      ->group("");  // hidden: for testing the windowed path
  bool listDevices = false;
  app.add_flag("--list-devices", listDevices, "list the Vulkan devices and exit");
  std::string captureFrames;
  app.add_option("--capture", captureFrames,
                 "capture these frames into a trace: A-B or A (see --capture-out)");
  app.add_option("--capture-out", options.captureOut,
                 "the trace to write (.reel); with no --capture, every frame. A capture that cannot write "
                 "(disk full, ...) makes reel-sample exit 1 with the error on stderr");
  app.add_option("--f12-frames", options.hotkeyFrames,
                 "in a window, F12 captures this many frames into <capture-out>_frame<N>.reel")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  std::string frameTap, frameTapPriority = "normal";
  uint32_t frameTapThreads = 1;
  app.add_option("--frame-tap", frameTap,
                 "lease every frame and read its streams (read), copy them out (copy) or compress them "
                 "with zstd level 1 (zstd) on threads of its own, or only hold each frame until the next "
                 "(hold), writing nothing: the least a capture does, to measure what a capture costs "
                 "against");
  app.add_option("--frame-tap-threads", frameTapThreads, "the frame tap's threads")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--frame-tap-priority", frameTapPriority,
                 "the frame tap's threads: normal, background or idle")
      ->capture_default_str();
  app.add_option("--ab", options.abBlockFrames,
                 "blocks of this many frames without and with the capture (REEL_CAPTURE or "
                 "--capture-out) or the frame tap, or with nothing, in the order off, on, on, off, and "
                 "print each kind's median frame time and each pair of blocks' ratio: what the capture "
                 "costs, measured in one process")
      ->check(CLI::Range(4, 100000));
  app.add_option("--ab-workers", options.abWorkerLimit,
                 "with --ab: the blocks alternate between every render worker and at most this many "
                 "(Renderer::limitWorkers), capturing nothing: what the thread count does to the frame, "
                 "in one process")
      ->check(CLI::Range(1, 64))
      ->needs("--ab");
  uint64_t pressF12At = 0;
  auto* pressF12 = app.add_option("--press-f12-at", pressF12At, "press F12 before frame N")
                       ->group("");  // hidden: for testing the F12 capture
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "reel-sample: %s (see --help)\n", e.what());
    return 2;
  }

  if (listDevices) {
    auto devices = reel::listVulkanDevices();
    if (!devices) {
      std::fprintf(stderr, "reel-sample: %s\n", devices.error().message.c_str());
      return 1;
    }
    for (const std::string& d : *devices) std::printf("%s\n", d.c_str());
    return 0;
  }
  if (!reel::samples::makeScene(options.scene)) {
    std::fprintf(stderr, "reel-sample: unknown scene '%s' (scenes: %s)\n", options.scene.c_str(),
                 scenes.c_str());
    return 2;
  }
  if (!frameTap.empty()) {
    const auto mode = reel::samples::FrameTap::parseMode(frameTap);
    const auto priority = reel::parseThreadPriority(frameTapPriority);
    if (!mode) {
      std::fprintf(stderr, "reel-sample: --frame-tap wants read, copy, zstd or hold, not '%s'\n",
                   frameTap.c_str());
      return 2;
    }
    if (!priority) {
      std::fprintf(stderr, "reel-sample: --frame-tap-priority wants normal, background or idle, not '%s'\n",
                   frameTapPriority.c_str());
      return 2;
    }
    options.frameTap = reel::samples::FrameTap::Options{*mode, frameTapThreads, *priority};
  }
  if (!saveFrames.empty() && !parseRange(saveFrames, options.saveFirst, options.saveLast)) {
    std::fprintf(stderr, "reel-sample: --save-frames wants A-B or A, not '%s'\n", saveFrames.c_str());
    return 2;
  }
  if (!captureFrames.empty() && !parseRange(captureFrames, options.captureFirst, options.captureLast)) {
    std::fprintf(stderr, "reel-sample: --capture wants A-B or A, not '%s'\n", captureFrames.c_str());
    return 2;
  }
  if (!captureFrames.empty() && options.captureOut.empty()) {
    std::fprintf(stderr, "reel-sample: --capture needs --capture-out FILE\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) options.args.emplace_back(argv[i]);
  if (!saveFrames.empty() && out.empty()) {
    std::fprintf(stderr, "reel-sample: --save-frames needs --out DIR\n");
    return 2;
  }
  options.headless = headless || !reel::window::displayAvailable();
  if (pressF12->count() > 0) {
    if (options.headless) {
      std::fprintf(stderr, "reel-sample: --press-f12-at needs a window (a display, no --headless)\n");
      return 2;
    }
    options.pressF12At = pressF12At;
  }
  // With --stats, stdout holds the JSON alone; what people read goes to stderr.
  FILE* const human = stats ? stderr : stdout;
  options.log = [human](std::string_view line) {
    std::fprintf(human, "reel-sample: %.*s\n", static_cast<int>(line.size()), line.data());
    std::fflush(human);
  };
  // A malformed capture variable is bad input like a malformed flag (the capture itself starts later).
  const char* envFrames = std::getenv("REEL_CAPTURE_FRAMES");
  const char* envPath = std::getenv("REEL_CAPTURE");
  if (options.captureOut.empty() && envPath && *envPath && envFrames && *envFrames) {
    if (auto range = reel::capture::parseFrameRange(envFrames); !range) {
      std::fprintf(stderr, "reel-sample: %s\n", range.error().message.c_str());
      return 2;
    }
  }
  options.frames = frames ? frames : (options.headless ? 120 : 0);
  options.collectTimings = stats;

  reel::samples::ImageSink sink;
  uint64_t written = 0;
  std::string writeError;
  if (!out.empty()) {
    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec) {
      std::fprintf(stderr, "reel-sample: cannot create %s: %s\n", out.c_str(), ec.message().c_str());
      return 1;
    }
    sink = [&](uint64_t frame, reel::image::Image&& image) {
      if (auto r =
              reel::image::writePng(fs::path(out) / ("frame_" + std::to_string(frame) + ".png"), image)) {
        ++written;
      } else if (writeError.empty()) {
        writeError = r.error().message;
      }
    };
  }

  auto result = reel::samples::runSample(options, sink);
  if (!result) {
    std::fprintf(stderr, "reel-sample: %s\n", result.error().message.c_str());
    return 1;
  }
  const auto& r = *result;
  for (const std::string& e : r.errors) std::fprintf(stderr, "reel-sample: %s\n", e.c_str());
  for (const std::string& e : r.imageErrors) std::fprintf(stderr, "reel-sample: %s\n", e.c_str());
  if (!writeError.empty()) std::fprintf(stderr, "reel-sample: %s\n", writeError.c_str());
  // The trace on disk reads up to its last whole chunk, but the capture asked for is not all there.
  for (const std::string& e : r.captureErrors)
    std::fprintf(stderr, "reel-sample: capture failed: %s\n", e.c_str());
  if (stats) printStats(r);

  std::string images = "no images written";
  if (!out.empty()) {
    const std::string first = std::to_string(options.saveFirst);
    const std::string last =
        std::to_string(std::min<uint64_t>(options.saveLast, r.frames ? r.frames - 1 : 0));
    images = std::to_string(written) + " images in " + (fs::path(out) / "frame_<n>.png").string() +
             " (frames " + first + "-" + last + ")";
  }
  if (!options.headless) {
    images += "; " + std::to_string(r.presents) + " frames presented, swapchain created " +
              std::to_string(r.swapchainRecreations) + " times";
  }
  std::fprintf(human,
               "reel-sample: %s, %llu frames in %.2f s (%.2f ms/frame, median %.3f ms, %s, %s, %u in flight) "
               "on %s; %s; "
               "%zu errors\n",
               options.scene.c_str(), static_cast<unsigned long long>(r.frames), r.seconds,
               r.frames ? r.seconds * 1000.0 / double(r.frames) : 0.0, r.medianFrameMs,
               options.headless ? "headless" : "windowed",
               (std::to_string(options.width) + "x" + std::to_string(options.height)).c_str(),
               options.framesInFlight, r.device.name.c_str(), images.c_str(), r.errorCount);
  if (!r.captureSummary.empty() && r.captureErrors.empty())
    std::fprintf(human, "reel-sample: capture: %s\n", r.captureSummary.c_str());
  if (!r.abSummary.empty()) std::fprintf(human, "reel-sample: %s\n", r.abSummary.c_str());
  if (!r.abPairs.empty()) std::fprintf(human, "reel-sample: %s\n", r.abPairs.c_str());
  if (!r.abBreakdown.empty()) std::fprintf(human, "reel-sample: %s\n", r.abBreakdown.c_str());
  if (!r.frameTapSummary.empty()) {
    std::fprintf(human, "reel-sample: %s, render thread waited %llu times for leases\n",
                 r.frameTapSummary.c_str(), static_cast<unsigned long long>(r.rendererStats.leaseWaits));
  }
  return r.errorCount == 0 && r.errors.empty() && r.imageErrors.empty() && writeError.empty() &&
                 r.captureErrors.empty()
             ? 0
             : 1;
}
