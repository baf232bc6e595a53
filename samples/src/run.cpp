#include "run.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "ab_blocks.h"
#include "assets.h"
#include "capture_hotkey.h"
#include "reel/capture/capture.h"
#include "reel/capture/environment.h"
#include "reel/runtime/worker_pool.h"
#include "reel/window/window.h"
#include "scene.h"
#include "scene_util.h"

namespace reel::samples {
namespace {

// Hands frame images from the render thread to the sink on a thread of its own.
class ImageWriter {
 public:
  explicit ImageWriter(const ImageSink& sink) : sink_(sink) {
    if (sink_) thread_ = std::thread([this] { loop(); });
  }
  ~ImageWriter() { finish(); }

  void push(uint64_t frame, image::Image&& image) {
    {
      std::lock_guard lock(mutex_);
      queue_.emplace_back(frame, std::move(image));
    }
    ready_.notify_one();
  }
  void finish() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    for (;;) {
      std::pair<uint64_t, image::Image> item;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return done_ || !queue_.empty(); });
        if (queue_.empty()) return;
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      sink_(item.first, std::move(item.second));
    }
  }

  const ImageSink& sink_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<uint64_t, image::Image>> queue_;
  bool done_ = false;
  std::thread thread_;
};

// A pass over the frame image for each view, in key-viewport order, after the scenes' own passes; each
// view's label as a debug label around what its scene records there.
void declareViewPasses(FrameRecorder& recorder, RenderTargetHandle target, const std::vector<View>& views) {
  bool first = true;
  for (const View& view : views) {
    // The first pass clears the whole image; the others keep what earlier views drew.
    PassDesc desc = passInto(target, first ? LoadOp::Clear : LoadOp::Load, {0.03f, 0.03f, 0.05f, 1.0f});
    const float viewport[4] = {float(view.x), float(view.y), float(view.width), float(view.height)};
    std::memcpy(desc.viewport, viewport, sizeof viewport);
    const uint32_t scissor[4] = {uint32_t(view.x), uint32_t(view.y), view.width, view.height};
    std::memcpy(desc.scissor, scissor, sizeof scissor);
    first = false;
    const PassId pass = recorder.resources().declarePass(*view.label ? view.label : "view", desc);
    recorder.setViewPass(view.keyViewport, pass);

    CommandBucket<DrawKey>& main = recorder.main();
    const size_t labelBytes = std::strlen(view.label);
    auto& marker = main.add<cmd::DebugMarkerBegin>(pass, keys::viewStart(view.keyViewport),
                                                   static_cast<uint32_t>(labelBytes));
    std::memcpy(main.aux(marker).data(), view.label, labelBytes);
    const float color[4] = {0.3f, 0.6f, 1.0f, 1.0f};
    std::memcpy(marker.color, color, sizeof color);
    main.add<cmd::DebugMarkerEnd>(pass, keys::viewEnd(view.keyViewport));
  }
}

// The HUD's pass, the frame's last: over the whole image.
PassId declareHudPass(ResourceContext& resources, RenderTargetHandle target, bool clear) {
  return resources.declarePass("hud", passInto(target, clear ? LoadOp::Clear : LoadOp::Load, {0, 0, 0, 0}));
}

// A progress bar along the bottom of the frame: which frame of a 120-frame cycle this is.
void recordHud(CommandBucket<DrawKey>& main, PassId pass, const Assets& assets, uint64_t frame) {
  const uint32_t vp = viewport::kHud;
  const float progress = float(frame % 120) / 119.0f;
  const SpritePush bars[] = {
      {{0, 0.97f, 2.0f, 0.04f}, {0, 0, 0, 0.5f}, {0, 0, 0, 0}},
      {{-1.0f + progress, 0.97f, 2.0f * progress + 0.001f, 0.025f}, {0.2f, 0.8f, 0.4f, 0.9f}, {0, 0, 0, 0}},
  };
  uint32_t order = 0;
  for (const SpritePush& bar : bars) {
    auto& pipeline =
        main.add<cmd::BindPipeline>(pass, DrawKey::draw(vp, 1, Translucency::Normal, {1, 0}, 1000 - order++));
    pipeline.pipeline = assets.sprite[static_cast<uint32_t>(BlendMode::Alpha)];
    auto& texture = main.append<cmd::BindTexture>(&pipeline);
    texture.texture = assets.texture(TextureId::White);
    auto& push = appendPush(main, texture, bar);
    main.append<cmd::Draw>(&push).vertexCount = 6;
  }
}

}  // namespace

double medianOf(std::vector<double> values) {
  if (values.empty()) return 0.0;
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 != 0) return *middle;
  // An even count's median is halfway between its two middle values (the lower one is the largest of
  // those nth_element left before the upper).
  return (*std::max_element(values.begin(), middle) + *middle) / 2;
}

Result<RunResult> runSample(const RunOptions& o, const ImageSink& sink) {
  std::unique_ptr<Scene> scene = makeScene(o.scene);
  if (!scene) {
    std::string names;
    for (const char* n : sceneNames()) names += std::string(names.empty() ? "" : ", ") + n;
    return fail("unknown scene '", o.scene, "' (scenes: ", names, ")");
  }
  if (o.framesInFlight < 1 || o.framesInFlight > kMaxFramesInFlight) {
    return fail("frames in flight must be 1..", kMaxFramesInFlight);
  }
  if (o.width == 0 || o.height == 0) return fail("the frame size must not be 0");
  if (o.threads == 0) return fail("at least one recording thread is needed");
  if (o.frames == 0 && o.headless) return fail("a headless run needs a frame count");

  std::unique_ptr<window::Window> window;
  VulkanDeviceOptions deviceOptions;
  deviceOptions.applicationName = "reel-sample";
  deviceOptions.deviceName = o.device;
  deviceOptions.validate = o.validate;
  deviceOptions.framesInFlight = o.framesInFlight;
  deviceOptions.collectTimings = o.collectTimings;
  deviceOptions.pipelineCachePath = o.pipelineCachePath;
  if (!o.headless) {
    auto w = window::Window::create(o.width, o.height, "reel-sample: " + o.scene);
    if (!w) return w.error();
    window = std::move(*w);
    window->attach(deviceOptions);
  }
  auto created = VulkanDevice::create(deviceOptions);
  if (!created) return created.error();
  std::unique_ptr<VulkanDevice> device = std::move(*created);

  RunResult result;
  result.device = device->info();
  std::mutex imageErrorMutex;
  ImageWriter writer(sink);
  // The renderer's phases of every frame, collected on the render thread (read after flushAndWait).
  struct TimingCollector final : FrameObserver {
    std::vector<FrameTiming>& timings;
    explicit TimingCollector(std::vector<FrameTiming>& into) : timings(into) {}
    void onFrame(const FrameView&) override {}
    void onFrameEnd(const FrameTiming& timing) override { timings.push_back(timing); }
  } timingCollector(result.timings);
  {
    Renderer renderer(*device, {.framesInFlight = o.framesInFlight, .workers = o.renderWorkers});
    const ObserverRegistration timing =
        o.collectTimings ? renderer.addObserver(timingCollector) : ObserverRegistration{};
    // Declared after the renderer: a capture must end before the renderer it observes.
    Result<std::unique_ptr<capture::Capture>> capture = std::unique_ptr<capture::Capture>();
    capture::CaptureOptions captureOptions;
    captureOptions.appName = "reel-sample";
    captureOptions.appArgs = o.args;
    captureOptions.log = [&result](std::string_view line) { result.captureSummary = std::string(line); };
    std::optional<FrameTap> tap;
    ObserverRegistration tapRegistration;
    std::optional<AbBlocks> ab;
    if (o.abBlockFrames) {
      // The capture or tap runs only in AbBlocks' on-blocks, started and ended there.
      AbBlocks::Setup setup;
      setup.blockFrames = o.abBlockFrames;
      setup.tap = o.frameTap;
      if (!o.captureOut.empty()) {
        setup.capture = captureOptions;
        setup.capture->path = o.captureOut;
      } else {
        auto fromEnvironment = capture::optionsFromEnvironment(captureOptions);
        if (!fromEnvironment) return fromEnvironment.error();
        setup.capture = std::move(*fromEnvironment);
      }
      if (setup.capture && setup.tap)
        return fail("--ab measures a capture (REEL_CAPTURE or --capture-out) or --frame-tap, not both");
      setup.workerLimit = o.abWorkerLimit;
      if (setup.workerLimit && (setup.capture || setup.tap))
        return fail("--ab-workers measures the render workers alone: no capture or --frame-tap beside it");
      ab.emplace(renderer, std::move(setup));
    } else {
      if (!o.captureOut.empty()) {
        captureOptions.path = o.captureOut;
        captureOptions.firstFrame = o.captureFirst;
        captureOptions.lastFrame = o.captureLast;
        capture = capture::Capture::start(renderer, captureOptions);
      } else {
        capture = capture::installFromEnvironment(renderer, captureOptions);
      }
      if (!capture) return capture.error();
      if (o.frameTap) tapRegistration = renderer.addObserver(tap.emplace(*o.frameTap));
    }
    // F12's captures run beside the command line's (the renderer takes several observers), one F12
    // capture at a time: a press while the last one still takes frames is refused, and a finished one
    // is closed (its writer waited for) before the next starts.
    std::unique_ptr<capture::Capture> hotkeyCapture;
    uint64_t hotkeyLast = 0;
    auto captureOnF12 = [&](const CaptureRequest& request) {
      const auto say = [&](const std::string& line) {
        if (o.log) o.log(line);
      };
      if (hotkeyCapture && !hotkeyCapture->finished() && request.firstFrame <= hotkeyLast) {
        say("F12: a capture is still running (" + hotkeyCapture->path() + "); not capturing frame " +
            std::to_string(request.firstFrame));
        return;
      }
      if (hotkeyCapture) {
        if (auto finished = hotkeyCapture->finish(); !finished)
          result.captureErrors.push_back(finished.error().message);
        hotkeyCapture.reset();
      }
      capture::CaptureOptions options = captureOptions;
      options.path = request.path;
      options.firstFrame = request.firstFrame;
      options.lastFrame = request.lastFrame;
      options.log = [say](std::string_view line) { say("capture: " + std::string(line)); };
      auto started = capture::Capture::start(renderer, options);
      if (!started) {
        say("F12: " + started.error().message);
        return;
      }
      hotkeyCapture = std::move(*started);
      hotkeyLast = request.lastFrame;
      result.hotkeyTraces.push_back(request.path);
      std::string frames = std::to_string(request.firstFrame);
      if (request.lastFrame > request.firstFrame)
        frames = "s " + frames + "-" + std::to_string(request.lastFrame);
      else
        frames = " " + frames;
      say("F12: capturing frame" + frames + " to " + request.path);
    };
    // Bucket order is merge order: the app's bucket, then one per recording thread.
    auto& main = renderer.createBucket<DrawKey>("main");
    std::vector<CommandBucket<DrawKey>*> workers;
    for (uint32_t i = 0; i < o.threads; ++i) {
      workers.push_back(&renderer.createBucket<DrawKey>("worker" + std::to_string(i)));
    }
    WorkerPool pool(o.threads);
    ResourceContext& resources = renderer.resources();

    Assets assets;
    assets.create(resources);
    const TextureHandle color = resources.createTexture(
        {.width = o.width,
         .height = o.height,
         .mipLevels = 1,
         .format = kColorFormat,
         .usage = texture_usage::kColorTarget | texture_usage::kSampled | texture_usage::kTransferSrc});
    const TextureHandle depth = resources.createTexture({.width = o.width,
                                                         .height = o.height,
                                                         .mipLevels = 1,
                                                         .format = kDepthFormat,
                                                         .usage = texture_usage::kDepthTarget});
    RenderTargetDesc targetDesc{};
    targetDesc.colorCount = 1;
    targetDesc.colors[0] = color;
    targetDesc.depth = depth;
    const RenderTargetHandle target = resources.createRenderTarget(targetDesc);

    scene->create(SceneSetup{resources, assets, o.width, o.height, o.draws},
                  View{viewport::kCubes, 0, 0, o.width, o.height, ""});
    std::vector<View> views;
    scene->views(views);
    std::sort(views.begin(), views.end(),
              [](const View& a, const View& b) { return a.keyViewport < b.keyViewport; });
    if (window) device->setPresentSource(color);

    const auto start = std::chrono::steady_clock::now();
    std::vector<double> intervalsMs;
    intervalsMs.reserve(std::min<uint64_t>(o.frames ? o.frames : RunResult::kMaxFrameIntervals,
                                           RunResult::kMaxFrameIntervals));
    auto lastKick = start;
    for (uint64_t n = 0; o.frames == 0 || n < o.frames; ++n) {
      if (window) {
        // Resize, minimize and restore on a schedule: the swapchain must follow (tests under Xvfb).
        if (o.exerciseWindow) window->exercise(n, o.width, o.height);
        window->poll();
        if (window->shouldClose()) break;
        if (o.pressF12At == n) window->injectKey({window::Key::F12, window::KeyAction::Press});
        for (const window::KeyEvent& key : window->takeKeys()) {
          if (auto request =
                  captureRequestFor(key, o.captureOut, renderer.recordingFrame(), o.hotkeyFrames)) {
            captureOnF12(*request);
          }
        }
      }
      if (ab) {
        if (auto edge = ab->beforeFrame(n); !edge) {
          result.captureErrors.push_back(edge.error().message);
          break;
        }
      }
      const auto recordStart = std::chrono::steady_clock::now();
      const uint64_t frame = renderer.recordingFrame();
      FrameRecorder recorder(frame, resources, main, workers, pool);
      scene->declarePasses(recorder);
      declareViewPasses(recorder, target, views);
      const PassId hud = declareHudPass(resources, target, views.empty());
      scene->record(recorder);
      recordHud(main, hud, assets, frame);
      if (sink && frame >= o.saveFirst && frame <= o.saveLast) {
        device->requestReadback(color, frame, [&](Result<ReadbackImage> image) {
          if (!image) {
            std::lock_guard lock(imageErrorMutex);
            result.imageErrors.push_back(image.error().message);
            return;
          }
          image::Image out(image->width, image->height);
          std::memcpy(out.rgba.data(), image->pixels.data(), std::min(out.rgba.size(), image->pixels.size()));
          writer.push(image->frame, std::move(out));
          ++result.imagesDelivered;
        });
      }
      const auto kickStart = std::chrono::steady_clock::now();
      renderer.kick();
      ++result.frames;
      const auto now = std::chrono::steady_clock::now();
      using Ms = std::chrono::duration<double, std::milli>;
      const AbBlocks::KickTimes times{Ms(now - lastKick).count(), Ms(kickStart - recordStart).count(),
                                      Ms(now - kickStart).count()};
      if (o.collectTimings) {
        result.recordMs.push_back(times.recordMs);
        result.kickMs.push_back(times.kickMs);
      }
      if (n > 0 && intervalsMs.size() < RunResult::kMaxFrameIntervals)
        intervalsMs.push_back(times.intervalMs);
      if (ab && n > 0) ab->afterKick(n, times);
      lastKick = now;
    }
    renderer.flushAndWait();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.medianFrameMs = medianOf(std::move(intervalsMs));
    for (std::unique_ptr<capture::Capture>* c : {&*capture, &hotkeyCapture}) {
      if (!*c) continue;
      if (auto finished = (*c)->finish(); !finished) result.captureErrors.push_back(finished.error().message);
      c->reset();
    }
    if (ab) {
      if (auto finished = ab->finish(); !finished) result.captureErrors.push_back(finished.error().message);
      result.abSummary = ab->summary();
      result.abPairs = ab->pairs();
      result.abBreakdown = ab->breakdown();
      ab.reset();
    }
    if (tap) {
      tapRegistration.reset();
      tap->finish();
      result.frameTapSummary = tap->summary();
    }

    // Everything goes, through the same requests as the rest: the next (empty) frame applies them.
    if (window) device->setPresentSource({});
    scene->destroy(resources);
    assets.destroy(resources);
    resources.destroy(target);
    resources.destroy(color);
    resources.destroy(depth);
    renderer.kick();
    renderer.flushAndWait();
    result.rendererStats = renderer.stats();
  }
  writer.finish();
  result.deviceStats = device->stats();
  result.presents = result.deviceStats.presents;
  result.swapchainRecreations = result.deviceStats.swapchainRecreations;
  result.errorCount = device->errorCount();
  result.errors = device->takeErrors();
  return result;
}

}  // namespace reel::samples
