// reel_viewer_bench: the viewer's speed targets, measured. Prints one JSON object.
//
//   xvfb-run -a build/release/tests/viewer/reel_viewer_bench [--packets N] [--frames F] [--scroll-frames K]
//                                                           [--step-trace FILE --step-frame I] [--no-window]
//                                                           [--step-only]
//
//  - a trace of N packets (default 1,000,000, in F frames, default 1) written with reel::capture over a
//    null device: capture time, file size;
//  - open: TraceDocument::open, reading frame 0 and building its table (rows + sorted order), filtering,
//    stats; then the window: from creating the app to the first frame on screen ("usable");
//  - scrolling: K frames (default 600) of the Commands table scrolled a page per frame with jumps,
//    vsync off, in sorted order, then with a key filter: frame time mean / p50 / p95 / max;
//  - stepping: the replay session on the viewer test scene at 1280x720 (or --step-trace) on the default
//    Vulkan device: the first replay, then every next sorted command of the frame (the image panel's
//    step), plus converting and uploading the image.
// Speed targets are checked here, not in unit tests (CONTRIBUTING.md).

#include <GL/gl.h>
#include <imgui.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "app/gl_texture.h"
#include "app/viewer_app.h"
#include "app/window.h"
#include "model/filter.h"
#include "model/frame_stats.h"
#include "model/stepping_replay.h"
#include "model/texels.h"
#include "model/trace_document.h"
#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"
#include "viewer_scene.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// CPU time of the whole process (every thread, llvmpipe's rasterizer threads too), in ms: what a frame
// costs whatever else the machine runs at the time.
double cpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

struct Distribution {
  double mean = 0, p50 = 0, p95 = 0, max = 0;
  size_t n = 0;
};
Distribution distribution(std::vector<double> v) {
  Distribution d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  d.n = v.size();
  for (double x : v) d.mean += x;
  d.mean /= static_cast<double>(v.size());
  d.p50 = v[v.size() / 2];
  d.p95 = v[std::min(v.size() - 1, v.size() * 95 / 100)];
  d.max = v.back();
  return d;
}
std::string json(const Distribution& d) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "{\"n\": %zu, \"mean_ms\": %.3f, \"p50_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f}", d.n,
                d.mean, d.p50, d.p95, d.max);
  return buf;
}

// N packets: keys of seven-packet chains (binds, push constants with aux data, an indexed draw), a
// tag every 16 keys, materials and depths spread so that the sort has work.
reel::Result<void> writeBigTrace(const std::string& path, uint64_t packets, uint32_t frames) {
  reel::NullDevice device(false);
  reel::Renderer renderer(device);
  auto& world = renderer.createBucket<reel::DrawKey>("world", reel::BucketConfig{1ull << 30, 8u << 20});
  reel::capture::CaptureOptions o;
  o.path = path;
  o.appName = "reel_viewer_bench";
  o.handleSignals = false;
  auto capture = reel::capture::Capture::start(renderer, o);
  if (!capture) return capture.error();
  reel::ResourceContext& rc = renderer.resources();
  const std::byte code[64] = {};
  const auto vs = rc.createShader({reel::ShaderStage::Vertex}, code);
  reel::PipelineDesc desc{};
  desc.vertexShader = vs;
  std::vector<reel::PipelineHandle> pipelines;
  for (int i = 0; i < 16; ++i) pipelines.push_back(rc.createPipeline(desc));
  const auto vb = rc.createBuffer({1 << 20, reel::buffer_usage::kVertex, reel::MemoryDomain::Device});
  const auto ib = rc.createBuffer({1 << 20, reel::buffer_usage::kIndex, reel::MemoryDomain::Device});
  const auto ub = rc.createBuffer({1 << 16, reel::buffer_usage::kUniform, reel::MemoryDomain::HostUpload});
  const auto tex = rc.createTexture({64, 64, 1, reel::Format::RGBA8Unorm, reel::texture_usage::kSampled});
  const auto sampler = rc.createSampler({});
  const uint64_t keysPerFrame = packets / 7 / frames;
  uint32_t state = 12345;
  for (uint32_t f = 0; f < frames; ++f) {
    for (uint64_t k = 0; k < keysPerFrame; ++k) {
      state = state * 1664525u + 1013904223u;
      const uint32_t material = (state >> 8) % 500;
      const auto key =
          reel::DrawKey::draw(0, 1 + (k % 3), reel::Translucency::Opaque, {material, 0}, state >> 4);
      auto& bind = world.add<reel::cmd::BindPipeline>(key);
      bind.pipeline = pipelines[material % pipelines.size()];
      auto& v = world.append<reel::cmd::BindVertexBuffer>(&bind);
      v.buffer = vb;
      v.offset = (k % 1024) * 64;
      auto& i = world.append<reel::cmd::BindIndexBuffer>(&v);
      i.buffer = ib;
      auto& t = world.append<reel::cmd::BindTexture>(&i);
      t.texture = tex;
      t.sampler = sampler;
      auto& u = world.append<reel::cmd::BindUniformBuffer>(&t);
      u.buffer = ub;
      u.range = 256;
      auto& push = world.append<reel::cmd::PushConstants>(&u, 32);
      std::memset(world.aux(push).data(), static_cast<int>(k & 0xff), 32);
      auto& draw = world.append<reel::cmd::DrawIndexed>(&push);
      draw.indexCount = 36;
      if (k % 16 == 0) REEL_TAG(world, &draw, "mesh");
    }
    renderer.kick();
  }
  return capture.value()->finish();
}

void glFinishNow() {
  glFinish();
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t packets = 1000000;
  uint32_t frames = 1;
  int scrollFrames = 600;
  std::string stepTrace;
  size_t stepFrame = 1;
  bool window = true;
  bool stepOnly = false;  // only the stepping figures (of --step-trace): no big trace, no window
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--packets")
      packets = std::stoull(next());
    else if (a == "--frames")
      frames = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--scroll-frames")
      scrollFrames = std::stoi(next());
    else if (a == "--step-trace")
      stepTrace = next();
    else if (a == "--step-frame")
      stepFrame = std::stoul(next());
    else if (a == "--no-window")
      window = false;
    else if (a == "--step-only")
      stepOnly = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("reel_viewer_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string big = (dir / "big.reel").string();
  std::string out = "{\n";
  {
    // Other work on the machine (builds) skews every figure: say how busy it was.
    double load[3] = {};
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
      if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
      std::fclose(f);
    }
    char head[160];
    std::snprintf(head, sizeof head, "  \"machine\": {\"cpus\": %ld, \"load_average_1m_at_start\": %.2f},\n",
                  ::sysconf(_SC_NPROCESSORS_ONLN), load[0]);
    out += head;
  }
  char buf[2048];

  auto t0 = Clock::now();
  auto t1 = t0;
  if (stepOnly) window = false;
  if (!stepOnly) {
    // ---- the trace ----
    if (auto ok = writeBigTrace(big, packets, frames); !ok) {
      std::fprintf(stderr, "writing the trace: %s\n", ok.error().message.c_str());
      return 1;
    }
    t1 = Clock::now();
    std::snprintf(buf, sizeof buf,
                  "  \"trace\": {\"packets_requested\": %llu, \"frames\": %u, \"capture_ms\": %.1f, "
                  "\"file_bytes\": %llu},\n",
                  static_cast<unsigned long long>(packets), frames, ms(t0, t1),
                  static_cast<unsigned long long>(std::filesystem::file_size(big)));
    out += buf;

    // ---- the model, without a window ----
    {
      t0 = Clock::now();
      auto doc = reel::viewer::TraceDocument::open(big);
      if (!doc) {
        std::fprintf(stderr, "%s\n", doc.error().message.c_str());
        return 1;
      }
      t1 = Clock::now();
      auto frame = doc.value()->load(0);
      const auto t2 = Clock::now();
      const auto& f = *frame.value();
      reel::viewer::RowFilter filter;
      filter.key = reel::viewer::parseKeyConditions("material<100").value();
      const auto t3 = Clock::now();
      const auto rows = reel::viewer::applyFilter(filter, f.record, f.table, doc.value()->header(), true);
      const auto t4 = Clock::now();
      const auto stats = reel::viewer::computeStats(f.record, f.table, doc.value()->header());
      const auto t5 = Clock::now();
      std::snprintf(
          buf, sizeof buf,
          "  \"model\": {\"packets\": %zu, \"open_ms\": %.1f, \"read_frame_ms\": %.1f, \"build_table_ms\": "
          "%.1f, "
          "\"open_to_table_ms\": %.1f, \"filter_ms\": %.1f, \"filtered_rows\": %zu, \"stats_ms\": %.1f, "
          "\"pipeline_changes_sorted\": %llu, \"pipeline_changes_unsorted\": %llu},\n",
          f.table.size(), ms(t0, t1), f.readMs, f.buildMs, ms(t0, t2), ms(t3, t4), rows.size(), ms(t4, t5),
          static_cast<unsigned long long>(stats.states.empty() ? 0 : stats.states[0].changesSorted),
          static_cast<unsigned long long>(stats.states.empty() ? 0 : stats.states[0].changesSubmission));
      out += buf;
    }

    // ---- the window: open to usable, then scrolling ----
    if (window) {
      reel::viewer::ViewerOptions options;
      options.trace = big;
      options.device =
          "null";  // the big trace's pipelines have no real shaders; the replay runs on the null device
      options.sorted = true;
      t0 = Clock::now();
      auto win = reel::viewer::Window::create({"reel_viewer_bench", 1280, 800, false, false});
      if (!win) {
        std::fprintf(stderr, "%s (run under xvfb-run)\n", win.error().message.c_str());
        return 1;
      }
      t1 = Clock::now();
      reel::viewer::ViewerApp app(options);
      app.start();
      // Where a frame's time goes: building the UI (CPU), rendering it (llvmpipe), showing it.
      std::vector<double> buildTimes, renderTimes, presentTimes, cpuTimes;
      auto drawOne = [&] {
        const double cpu = cpuMs();
        const auto a = Clock::now();
        (*win)->beginFrame(0);
        const ImVec2 d = ImGui::GetIO().DisplaySize;
        app.drawFrame(d.x, d.y);
        const auto b = Clock::now();
        (*win)->render();
        glFinishNow();
        const auto c = Clock::now();
        (*win)->present();
        glFinishNow();
        const auto e = Clock::now();
        buildTimes.push_back(ms(a, b));
        renderTimes.push_back(ms(b, c));
        presentTimes.push_back(ms(c, e));
        cpuTimes.push_back(cpuMs() - cpu);
      };
      drawOne();
      const auto t2 = Clock::now();
      const double firstFrameCpu = cpuTimes.back();
      // Then the scan and the first replay run in the background while frames go on; scrolling is timed
      // once they are done.
      int framesUntilSettled = 0;
      while (!app.settled() && framesUntilSettled < 100000) {
        drawOne();
        ++framesUntilSettled;
      }
      const auto t3 = Clock::now();
      std::snprintf(buf, sizeof buf,
                    "  \"open\": {\"window_ms\": %.1f, \"start_to_first_frame_ms\": %.1f, "
                    "\"first_frame_cpu_ms\": %.1f, "
                    "\"usable_ms\": %.1f, \"target_ms\": 2000, \"background_done_ms\": %.1f, "
                    "\"frames_meanwhile\": %d},\n",
                    ms(t0, t1), ms(t1, t2), firstFrameCpu, ms(t0, t2), ms(t0, t3), framesUntilSettled);
      out += buf;
      for (int i = 0; i < 5; ++i) drawOne();

      auto scroll = [&](const char* name) {
        std::vector<double> times;
        buildTimes.clear();
        renderTimes.clear();
        presentTimes.clear();
        cpuTimes.clear();
        const size_t rows = app.state().visibleRows().size();
        size_t position = 0;
        for (int i = 0; i < scrollFrames; ++i) {
          position = (i % 60 == 59) ? (position * 7919 + 104729) % std::max<size_t>(rows, 1) : position + 37;
          if (position >= rows) position = 0;
          app.commands().scrollToPosition(position);
          const auto a = Clock::now();
          drawOne();
          times.push_back(ms(a, Clock::now()));
        }
        const auto d = distribution(times);
        std::snprintf(buf, sizeof buf, "    \"%s\": %s, \"%s_fps\": %.1f,\n", name, json(d).c_str(), name,
                      1000.0 / d.mean);
        out += buf;
        out += "    \"" + std::string(name) + "_build_ui\": " + json(distribution(buildTimes)) + ",\n";
        out += "    \"" + std::string(name) + "_render\": " + json(distribution(renderTimes)) + ",\n";
        out += "    \"" + std::string(name) + "_present\": " + json(distribution(presentTimes)) + ",\n";
        out += "    \"" + std::string(name) + "_cpu\": " + json(distribution(cpuTimes)) + ",\n";
      };
      out += "  \"scroll\": {\n";
      scroll("sorted");
      reel::viewer::RowFilter filter;
      filter.key = reel::viewer::parseKeyConditions("material<100").value();
      app.state().setFilter(filter);
      scroll("filtered");
      app.state().setFilter({});
      app.state().setSorted(false);
      scroll("submission");
      // The floor: a frame that draws no panel (clear, ImGui's own overhead, the swap), and the size of
      // the full UI's draw data, to tell the rasterizer's cost from the viewer's.
      std::vector<double> empty;
      for (int i = 0; i < 100; ++i) {
        const auto a = Clock::now();
        (*win)->beginFrame(0);
        (*win)->render();
        (*win)->present();
        glFinishNow();
        empty.push_back(ms(a, Clock::now()));
      }
      out += "    \"empty_frame\": " + json(distribution(empty)) + ",\n";
      (*win)->beginFrame(0);
      app.drawFrame(ImGui::GetIO().DisplaySize.x, ImGui::GetIO().DisplaySize.y);
      ImGui::Render();
      const ImDrawData* data = ImGui::GetDrawData();
      int commands = 0;
      for (int l = 0; l < data->CmdListsCount; ++l) commands += data->CmdLists[l]->CmdBuffer.Size;
      std::snprintf(buf, sizeof buf,
                    "    \"draw_data\": {\"vertices\": %d, \"indices\": %d, \"draw_calls\": %d},\n",
                    data->TotalVtxCount, data->TotalIdxCount, commands);
      out += buf;
      ImGui::NewFrame();  // balance the frame ended by Render above
      ImGui::EndFrame();
      std::snprintf(buf, sizeof buf, "    \"gl_renderer\": \"%s\",\n",
                    reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
      out += buf;
      out += "    \"target_fps\": 60\n  },\n";
    }
  }  // !stepOnly

  // ---- stepping the image after command ----
  {
    std::string trace = stepTrace;
    if (trace.empty()) {
      trace = (dir / "scene.reel").string();
      reel::NullDevice device;
      reel::viewer::testing::SceneOptions scene;
      scene.width = 1280;
      scene.height = 720;
      scene.draws = 40;
      if (auto ok = reel::viewer::testing::captureScene(trace, device, 3, 0, scene); !ok) {
        std::fprintf(stderr, "scene: %s\n", ok.error().message.c_str());
        return 1;
      }
    }
    t0 = Clock::now();
    auto session = reel::viewer::SteppingReplay::open(trace, {});
    t1 = Clock::now();
    if (!session) {
      std::fprintf(stderr, "replay: %s\n", session.error().message.c_str());
      return 1;
    }
    auto doc = reel::viewer::TraceDocument::open(trace);
    auto frame = doc.value()->load(std::min(stepFrame, doc.value()->frameCount() - 1));
    const auto& f = *frame.value();
    // The image panel's request: the color attachment of the target of the selected command.
    reel::viewer::PassTargets targets(f.record, f.table, doc.value()->header());
    std::vector<double> steps, uploads, restores, feeds, executes, readbacks;
    double first = 0;
    uint64_t checkpoint = 0;
    // Steps at the start, the middle and the end of the frame (a step near the end replays the most):
    // 60 consecutive "next command" steps from each place, after one jump there.
    const uint64_t n = f.table.size();
    std::vector<uint64_t> stops;
    for (const uint64_t from : {uint64_t{1}, n / 2, n > 60 ? n - 59 : uint64_t{1}}) {
      for (uint64_t s = from; s < from + 60 && s <= n; ++s) stops.push_back(s);
    }
    uint64_t previous = 0;
    bool firstRun = true;
    for (const uint64_t stop : stops) {
      reel::viewer::ReplayRequest r;
      r.frameIndex = f.index;
      r.stopAfterPackets = stop;
      const auto target = targets.targetAt(static_cast<uint32_t>(stop - 1));
      if (target) r.images.push_back({reel::viewer::ImageSource::Kind::TargetColor, *target, 0});
      auto o = session.value()->run(r);
      if (!o) {
        std::fprintf(stderr, "replay: %s\n", o.error().message.c_str());
        return 1;
      }
      if (firstRun) {
        first = o->milliseconds;
        checkpoint = o->checkpointBytes;
        firstRun = false;
      } else if (stop == previous + 1) {
        steps.push_back(o->milliseconds);
        restores.push_back(o->restoreMs);
        feeds.push_back(o->feedMs);
        executes.push_back(o->executeMs);
        readbacks.push_back(o->readbackMs);
      }
      previous = stop;
      if (!o->images.empty() && o->images[0].error.empty()) {
        const auto a = Clock::now();
        auto img = reel::viewer::texelsToImage(o->images[0].texels, o->images[0].desc.width,
                                               o->images[0].desc.height, o->images[0].desc.format);
        if (window && img) {
          reel::viewer::GlTexture texture;
          texture.upload(img.value());
          glFinishNow();
        }
        uploads.push_back(ms(a, Clock::now()));
      }
    }
    std::snprintf(
        buf, sizeof buf,
        "  \"step\": {\"trace\": \"%s\", \"device\": \"%s\", \"rasterizes\": %s, \"packets\": %zu, "
        "\"open_ms\": %.1f, "
        "\"first_ms\": %.1f, \"checkpoint_bytes\": %llu, \"next_command\": %s, \"of_which\": {\"restore\": "
        "%s, "
        "\"feed\": %s, \"execute\": %s, \"readback\": %s}, \"image_upload\": %s, \"target_ms\": 100}\n",
        stepTrace.empty() ? "viewer scene 1280x720, 40 quads" : stepTrace.c_str(),
        session.value()->deviceInfo().name.c_str(), session.value()->rasterizes() ? "true" : "false",
        f.table.size(), ms(t0, t1), first, static_cast<unsigned long long>(checkpoint),
        json(distribution(steps)).c_str(), json(distribution(restores)).c_str(),
        json(distribution(feeds)).c_str(), json(distribution(executes)).c_str(),
        json(distribution(readbacks)).c_str(), json(distribution(uploads)).c_str());
    out += buf;
  }
  out += "}\n";
  std::fputs(out.c_str(), stdout);
  std::filesystem::remove_all(dir);
  return 0;
}
