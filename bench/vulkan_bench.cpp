// The Vulkan device's render-thread cost per packet (issue 3), split into sort, translation (recording the
// Vulkan command buffer) and submit, for the sample's `stress` and `cubes` scenes; and, in the same
// iteration, a direct-Vulkan loop that records the same draws in the same order with no buckets, keys or
// sort (bind on change, push constants, draw). Target: translation <= 1.5x the direct loop.
//
//   build/release/bench/reel_vulkan_bench                        # lavapipe where there is no GPU
//   REEL_DEVICE=NVIDIA build/release/bench/reel_vulkan_bench      # a named device
//
// Each iteration records a frame on two threads, kicks it and waits until the GPU is done (so the next
// frame's translation does not compete with the GPU, or lavapipe's rasterizer threads, for the CPU), then
// records the direct loop into a command buffer of its own, which is never submitted (recording is what
// is compared). The direct loop runs on a thread of its own, as translation runs on the render thread:
// lavapipe allocates per recorded command, and glibc's main-thread heap behaves differently from the heap
// of other threads (it was 10x slower here at 100,000 draws), which would skew the comparison. Times come
// from VulkanDeviceImpl's per-frame timings (collectTimings). The counters are the threads' CPU time
// (CLOCK_THREAD_CPUTIME_ID), which a busy machine does not inflate the way it inflates wall time; *_wall_us
// counters give wall time too.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <thread>

#include "assets.h"
#include "reel/runtime/cpu_time.h"
#include "reel/runtime/renderer.h"
#include "reel/runtime/worker_pool.h"
#include "scene.h"
#include "scene_util.h"
#include "scenes/stress.h"
#include "vulkan_device_impl.h"

namespace reel {
namespace {

using Clock = std::chrono::steady_clock;
using samples::Assets;
using samples::View;

constexpr uint32_t kWidth = 1280, kHeight = 720;

// The runtime side: a device, a renderer with a main bucket and one per recording thread, the frame
// image, and one scene drawing into it.
class Bench {
 public:
  // Instance merging is off unless asked for: the direct loop records every draw, and translation is
  // compared with it only while both record the same work.
  explicit Bench(std::unique_ptr<samples::Scene> scene, uint32_t draws, bool mergeInstances = false)
      : scene_(std::move(scene)) {
    VulkanDeviceOptions options;
    options.applicationName = "reel_vulkan_bench";
    options.collectTimings = true;
    auto device = VulkanDeviceImpl::create(options);
    if (!device) {
      error = device.error().message;
      return;
    }
    device_ = std::move(*device);
    // One worker: translation per packet is compared with the direct loop on one thread each.
    renderer_ = std::make_unique<Renderer>(
        *device_, RendererConfig{.framesInFlight = 2, .workers = 1, .mergeInstances = mergeInstances});
    timing_ = renderer_->addObserver(lastTiming_);
    main_ = &renderer_->createBucket<DrawKey>("main");
    for (uint32_t i = 0; i < 2; ++i) {
      workers_.push_back(&renderer_->createBucket<DrawKey>("worker" + std::to_string(i)));
    }
    pool_ = std::make_unique<WorkerPool>(2);
    ResourceContext& r = renderer_->resources();
    assets_.create(r);
    color_ = r.createTexture({.width = kWidth,
                              .height = kHeight,
                              .mipLevels = 1,
                              .format = samples::kColorFormat,
                              .usage = texture_usage::kColorTarget | texture_usage::kSampled});
    depth_ = r.createTexture({.width = kWidth,
                              .height = kHeight,
                              .mipLevels = 1,
                              .format = samples::kDepthFormat,
                              .usage = texture_usage::kDepthTarget});
    RenderTargetDesc target{};
    target.colorCount = 1;
    target.colors[0] = color_;
    target.depth = depth_;
    target_ = r.createRenderTarget(target);
    scene_->create(samples::SceneSetup{r, assets_, kWidth, kHeight, draws},
                   View{0, 0, 0, kWidth, kHeight, ""});
    scene_->views(views_);
    // Two warm-up frames: pipelines compiled, textures uploaded and settled, arenas grown.
    frame();
    frame();
  }

  ~Bench() {
    if (!renderer_) return;
    ResourceContext& r = renderer_->resources();
    scene_->destroy(r);
    assets_.destroy(r);
    r.destroy(target_);
    r.destroy(color_);
    r.destroy(depth_);
    renderer_->kick();
    timing_.reset();  // an observer's registration ends before its renderer
    renderer_.reset();
  }

  // Records one frame on the recording threads, kicks it and waits for the GPU; `last` has its timings.
  void frame() {
    const uint64_t n = renderer_->recordingFrame();
    samples::FrameRecorder recorder(n, renderer_->resources(), *main_, workers_, *pool_);
    scene_->declarePasses(recorder);
    for (const View& view : views_) {
      PassDesc pass;
      pass.target = target_;
      pass.clearDepth = 1.0f;
      pass.viewport[2] = float(view.width);
      pass.viewport[3] = float(view.height);
      recorder.setViewPass(view.keyViewport, renderer_->resources().declarePass("view", pass));
    }
    scene_->record(recorder);
    renderer_->kick();
    renderer_->flushAndWait();
  }

  VulkanDeviceImpl& device() { return *device_; }
  samples::Scene& scene() { return *scene_; }
  TextureHandle color() const { return color_; }
  TextureHandle depth() const { return depth_; }
  uint64_t recordingFrame() const { return renderer_->recordingFrame(); }

  std::string error;
  // The renderer's phases of the last frame (read after flushAndWait).
  const FrameTiming& last() const { return lastTiming_.last; }

 private:
  std::unique_ptr<samples::Scene> scene_;
  std::unique_ptr<VulkanDeviceImpl> device_;
  std::unique_ptr<Renderer> renderer_;
  struct LastTiming final : FrameObserver {
    FrameTiming last;
    void onFrame(const FrameView&) override {}
    void onFrameEnd(const FrameTiming& timing) override { last = timing; }
  } lastTiming_;
  ObserverRegistration timing_;  // after renderer_: ends before it
  CommandBucket<DrawKey>* main_ = nullptr;
  std::vector<CommandBucket<DrawKey>*> workers_;
  std::unique_ptr<WorkerPool> pool_;
  Assets assets_;
  TextureHandle color_, depth_;
  RenderTargetHandle target_;
  std::vector<View> views_;
};

// The same draws as the stress scene, recorded straight into Vulkan in sorted order: what a hand-written
// renderer that already has its draws in order would do.
class DirectLoop {
 public:
  DirectLoop(Bench& bench, const samples::StressScene& scene) : fns_(bench.device().context().fns()) {
    VulkanDeviceImpl& d = bench.device();
    auto info = vk::make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    info.queueFamilyIndex = d.context().queueFamily();
    fns_.t.vkCreateCommandPool(fns_.device, &info, nullptr, &pool_);
    auto allocate = vk::make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    allocate.commandPool = pool_;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    fns_.t.vkAllocateCommandBuffers(fns_.device, &allocate, &cmd_);
    for (uint32_t p = 0; p < samples::StressScene::kPipelines; ++p) {
      pipelines_[p] = d.nativePipeline(scene.pipeline(p));
    }
    for (uint32_t t = 0; t < samples::StressScene::kTextures; ++t) views_[t] = d.nativeView(scene.texture(t));
    sampler_ = d.nativeSampler(scene.sampler());
    color_ = d.nativeAttachmentView(bench.color());
    depth_ = d.nativeAttachmentView(bench.depth());
    colorImage_ = d.nativeImage(bench.color());
    depthImage_ = d.nativeImage(bench.depth());
    layout_ = d.pipelineLayout();
    view_ = scene.view();
    count_ = scene.count();
  }
  ~DirectLoop() { fns_.t.vkDestroyCommandPool(fns_.device, pool_, nullptr); }

  // The frame's draws in the order the runtime sorts them (a stable sort of the keys, in recording order).
  void prepare(const samples::StressScene& scene, float time) {
    draws_.resize(count_);
    for (uint32_t i = 0; i < count_; ++i) draws_[i] = scene.draw(i, time);
    std::stable_sort(
        draws_.begin(), draws_.end(),
        [](const samples::StressDraw& a, const samples::StressDraw& b) { return a.key.bits < b.key.bits; });
  }

  // Records the frame; returns this thread's CPU time for it. The buffer is never submitted, only reset.
  std::chrono::nanoseconds record() {
    const auto start = threadCpuTime();
    auto begin = vk::make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    fns_.t.vkBeginCommandBuffer(cmd_, &begin);
    VkImageMemoryBarrier2 barriers[2];
    for (int i = 0; i < 2; ++i) {
      barriers[i] = vk::make<VkImageMemoryBarrier2>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2);
      barriers[i].oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
      barriers[i].srcQueueFamilyIndex = barriers[i].dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    }
    barriers[0].dstStageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    barriers[0].dstAccessMask = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    barriers[0].newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    barriers[0].image = colorImage_;
    barriers[0].subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    barriers[1].dstStageMask = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT;
    barriers[1].dstAccessMask = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    barriers[1].newLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    barriers[1].image = depthImage_;
    barriers[1].subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
    auto dependency = vk::make<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
    dependency.imageMemoryBarrierCount = 2;
    dependency.pImageMemoryBarriers = barriers;
    fns_.t.vkCmdPipelineBarrier2(cmd_, &dependency);

    auto color = vk::make<VkRenderingAttachmentInfo>(VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO);
    color.imageView = color_;
    color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    auto depth = color;
    depth.imageView = depth_;
    depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    depth.clearValue.depthStencil = {1.0f, 0};
    auto rendering = vk::make<VkRenderingInfo>(VK_STRUCTURE_TYPE_RENDERING_INFO);
    rendering.renderArea = {{0, 0}, {kWidth, kHeight}};
    rendering.layerCount = 1;
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachments = &color;
    rendering.pDepthAttachment = &depth;
    fns_.t.vkCmdBeginRendering(cmd_, &rendering);
    const VkViewport viewport{float(view_.x), float(view_.y), float(view_.width), float(view_.height), 0, 1};
    const VkRect2D scissor{{view_.x, view_.y}, {view_.width, view_.height}};
    fns_.t.vkCmdSetViewport(cmd_, 0, 1, &viewport);
    fns_.t.vkCmdSetScissor(cmd_, 0, 1, &scissor);

    uint32_t pipeline = UINT32_MAX, texture = UINT32_MAX;
    for (const samples::StressDraw& d : draws_) {
      if (d.pipeline != pipeline) {
        pipeline = d.pipeline;
        fns_.t.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines_[pipeline]);
        ++calls.pipelineBinds;
      }
      if (d.texture != texture) {
        texture = d.texture;
        const VkDescriptorImageInfo image{sampler_, views_[texture],
                                          VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        auto write = vk::make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        write.dstBinding = vk::binding::kTextureBase;
        write.descriptorCount = 1;
        write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        write.pImageInfo = &image;
        fns_.t.vkCmdPushDescriptorSetKHR(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout_, 0, 1, &write);
        ++calls.descriptorPushes;
      }
      fns_.t.vkCmdPushConstants(cmd_, layout_, vk::binding::kStages, 0, sizeof d.push, &d.push);
      fns_.t.vkCmdDraw(cmd_, 6, 1, 0, 0);
    }
    calls.pushConstantCalls += draws_.size();
    calls.draws += draws_.size();
    calls.barriers += 2;
    calls.renderPasses += 1;
    ++calls.frames;
    fns_.t.vkCmdEndRendering(cmd_);
    fns_.t.vkEndCommandBuffer(cmd_);
    const auto elapsed = threadCpuTime() - start;
    fns_.t.vkResetCommandPool(fns_.device, pool_, 0);
    return elapsed;
  }

  uint32_t count() const { return count_; }

  // The Vulkan calls recorded, counted as VulkanDeviceStats counts the device's (compared side by side).
  VulkanDeviceStats calls;

 private:
  const vk::DeviceFns& fns_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkPipeline pipelines_[samples::StressScene::kPipelines] = {};
  VkImageView views_[samples::StressScene::kTextures] = {};
  VkSampler sampler_ = VK_NULL_HANDLE;
  VkImageView color_ = VK_NULL_HANDLE, depth_ = VK_NULL_HANDLE;
  VkImage colorImage_ = VK_NULL_HANDLE, depthImage_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  View view_;
  uint32_t count_ = 0;
  std::vector<samples::StressDraw> draws_;
};

double ns(Clock::duration d) {
  return double(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

struct Totals {
  double frames = 0, packets = 0, sort = 0, translate = 0, submit = 0, translateWall = 0, submitWall = 0;
  void add(const FrameTiming& t) {
    ++frames;
    packets += double(t.packets);
    sort += ns(t.cpuOf(FramePhase::Merge) + t.cpuOf(FramePhase::Sort));
    translate += ns(t.cpuOf(FramePhase::Translate));
    submit += ns(t.cpuOf(FramePhase::Submit));
    translateWall += ns(t.wallOf(FramePhase::Translate));
    submitWall += ns(t.wallOf(FramePhase::Submit));
  }
  void report(benchmark::State& state, uint64_t draws) const {
    state.counters["packets_per_frame"] = packets / frames;
    state.counters["draws_per_frame"] = double(draws);
    state.counters["sort_us"] = sort / frames / 1e3;
    state.counters["translate_us"] = translate / frames / 1e3;
    state.counters["submit_us"] = submit / frames / 1e3;
    state.counters["translate_wall_us"] = translateWall / frames / 1e3;
    state.counters["submit_wall_us"] = submitWall / frames / 1e3;
    state.counters["sort_ns_per_packet"] = sort / packets;
    state.counters["translate_ns_per_packet"] = translate / packets;
    state.counters["submit_ns_per_packet"] = submit / packets;
  }
};

// The stress scene: runtime phases, and the direct loop in the same iteration. Iteration time (manual) is
// the render thread's CPU time translating one frame.
void BM_StressRenderThread(benchmark::State& state) {
  const auto draws = static_cast<uint32_t>(state.range(0));
  Bench bench(samples::makeStress(), draws);
  if (!bench.error.empty()) return state.SkipWithError(bench.error.c_str());
  auto& scene = static_cast<samples::StressScene&>(bench.scene());
  DirectLoop direct(bench, scene);

  Totals totals;
  double directNs = 0;
  for (auto _ : state) {
    const float time = float(bench.recordingFrame()) / 60.0f;
    bench.frame();
    totals.add(bench.last());
    direct.prepare(scene, time);
    std::thread([&] { directNs += ns(direct.record()); }).join();
    state.SetIterationTime(ns(bench.last().cpuOf(FramePhase::Translate)) / 1e9);
  }
  totals.report(state, draws);
  const double frames = totals.frames;
  state.counters["direct_us"] = directNs / frames / 1e3;
  state.counters["direct_ns_per_draw"] = directNs / frames / double(direct.count());
  state.counters["translate_over_direct"] = totals.translate / directNs;
  // Vulkan calls per frame, the device's (vk_*) next to the direct loop's (direct_*): translation may be
  // compared with the direct loop only while both record the same work.
  const VulkanDeviceStats s = bench.device().stats();
  const VulkanDeviceStats& d = direct.calls;
  auto perFrame = [](uint64_t n, uint64_t f) { return double(n) / double(f); };
  state.counters["vk_draws_per_frame"] = perFrame(s.draws, s.frames);
  state.counters["vk_pipeline_binds_per_frame"] = perFrame(s.pipelineBinds, s.frames);
  state.counters["vk_descriptor_pushes_per_frame"] = perFrame(s.descriptorPushes, s.frames);
  state.counters["vk_push_constants_per_frame"] = perFrame(s.pushConstantCalls, s.frames);
  state.counters["vk_vertex_index_binds_per_frame"] =
      perFrame(s.vertexBufferBinds + s.indexBufferBinds, s.frames);
  state.counters["vk_barriers_per_frame"] = perFrame(s.barriers, s.frames);
  state.counters["vk_render_passes_per_frame"] = perFrame(s.renderPasses, s.frames);
  state.counters["direct_draws_per_frame"] = perFrame(d.draws, d.frames);
  state.counters["direct_pipeline_binds_per_frame"] = perFrame(d.pipelineBinds, d.frames);
  state.counters["direct_descriptor_pushes_per_frame"] = perFrame(d.descriptorPushes, d.frames);
  state.counters["direct_push_constants_per_frame"] = perFrame(d.pushConstantCalls, d.frames);
  state.counters["direct_barriers_per_frame"] = perFrame(d.barriers, d.frames);
  state.counters["direct_render_passes_per_frame"] = perFrame(d.renderPasses, d.frames);
  state.counters["redundant_binds_skipped_per_frame"] = perFrame(s.redundantBindsSkipped, s.frames);
  state.SetLabel(bench.device().info().name);
}
BENCHMARK(BM_StressRenderThread)
    ->Arg(100000)
    ->Arg(10000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

// Instance merging on `stress` (docs/instance-merging.md), merged (second argument 1) against unmerged
// (0) on one render thread: draws as recorded and as they reached Vulkan per frame, and the render thread's
// CPU time per frame (all phases; merging happens inside Translate). Iteration time (manual) is that CPU time. The
// run counters describe the sorted frame itself, from the scene's draws: consecutive draws of one material
// (pipeline and texture) are what merging folds, so runs_* say how much it can fold at most.
void BM_StressMerge(benchmark::State& state) {
  const auto draws = static_cast<uint32_t>(state.range(0));
  const bool merge = state.range(1) != 0;
  Bench bench(samples::makeStress(), draws, merge);
  if (!bench.error.empty()) return state.SkipWithError(bench.error.c_str());
  const auto& scene = static_cast<const samples::StressScene&>(bench.scene());

  // Runs of one material in sorted order (a stable sort by key, as the renderer's).
  std::vector<std::pair<uint64_t, uint32_t>> sorted(draws);
  for (uint32_t i = 0; i < draws; ++i) {
    const samples::StressDraw d = scene.draw(i, 0.0f);
    sorted[i] = {d.key.bits, d.pipeline * samples::StressScene::kTextures + d.texture};
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  double runs = 0, runsOfTwoOrMore = 0, drawsInThose = 0, opaqueRuns = 0, longest = 0;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j].second == sorted[i].second) ++j;
    const double length = double(j - i);
    ++runs;
    if (length >= 2) {
      ++runsOfTwoOrMore;
      drawsInThose += length;
    }
    if (sorted[i].second < samples::StressScene::kTextures) ++opaqueRuns;  // pipeline 0: opaque
    longest = std::max(longest, length);
    i = j;
  }

  double frames = 0, cpu = 0, translate = 0, sort = 0, recorded = 0, submitted = 0, merged = 0;
  const VulkanDeviceStats before = bench.device().stats();
  for (auto _ : state) {
    bench.frame();
    const FrameTiming& t = bench.last();
    ++frames;
    cpu += ns(t.totalCpu());
    translate += ns(t.cpuOf(FramePhase::Translate));
    sort += ns(t.cpuOf(FramePhase::Sort));
    recorded += double(t.drawsRecorded);
    submitted += double(t.drawsSubmitted);
    merged += double(t.mergedRuns);
    state.SetIterationTime(ns(t.totalCpu()) / 1e9);
  }
  const VulkanDeviceStats after = bench.device().stats();
  state.counters["draws_recorded_per_frame"] = recorded / frames;
  state.counters["draws_submitted_per_frame"] = submitted / frames;
  state.counters["merged_runs_per_frame"] = merged / frames;
  state.counters["vk_draws_per_frame"] = double(after.draws - before.draws) / frames;
  state.counters["vk_pipeline_binds_per_frame"] = double(after.pipelineBinds - before.pipelineBinds) / frames;
  state.counters["vk_descriptor_pushes_per_frame"] =
      double(after.descriptorPushes - before.descriptorPushes) / frames;
  state.counters["render_thread_cpu_ms"] = cpu / frames / 1e6;
  state.counters["translate_cpu_ms"] = translate / frames / 1e6;
  state.counters["sort_cpu_ms"] = sort / frames / 1e6;
  state.counters["runs"] = runs;
  state.counters["runs_2plus"] = runsOfTwoOrMore;
  state.counters["draws_in_runs_2plus"] = drawsInThose;
  state.counters["mean_run"] = double(draws) / runs;
  state.counters["longest_run"] = longest;
  state.counters["opaque_runs"] = opaqueRuns;
  state.SetLabel(bench.device().info().name);
}
BENCHMARK(BM_StressMerge)
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->ArgNames({"draws", "merge"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

// The cubes scene (2,000 textured cubes, four packets each): runtime phases per packet.
void BM_CubesRenderThread(benchmark::State& state) {
  const auto draws = static_cast<uint32_t>(state.range(0));
  Bench bench(samples::makeCubes(), draws);
  if (!bench.error.empty()) return state.SkipWithError(bench.error.c_str());
  Totals totals;
  for (auto _ : state) {
    bench.frame();
    totals.add(bench.last());
    state.SetIterationTime(ns(bench.last().cpuOf(FramePhase::Translate)) / 1e9);
  }
  totals.report(state, draws);
  state.SetLabel(bench.device().info().name);
}
BENCHMARK(BM_CubesRenderThread)->Arg(2000)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace reel

BENCHMARK_MAIN();
