// GPU times from timestamp queries (VulkanDevice::setGpuTimingCallback), on lavapipe with validation on:
// one per frame, in frame order, after the frame's CPU times, summed over a frame's command buffers, and
// larger for a frame that draws more.

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fixture.h"
#include "frame_context.h"

namespace reel::test {
namespace {

using std::chrono::nanoseconds;

// What the device reported, in the order it reported it.
struct Event {
  bool gpu = false;
  uint64_t frame = 0;
  std::optional<nanoseconds> time;
  uint32_t commandBuffers = 0;
};

class GpuTimes : public VulkanTest, public ::testing::WithParamInterface<uint32_t> {
 protected:
  uint32_t framesInFlight() const override { return GetParam(); }
  VulkanDeviceOptions deviceOptions() const override {
    VulkanDeviceOptions options = VulkanTest::deviceOptions();
    options.collectTimings = true;
    return options;
  }
  // The renderer's FrameTiming of each frame: the CPU event.
  struct CpuEvents final : FrameObserver {
    GpuTimes& test;
    explicit CpuEvents(GpuTimes& t) : test(t) {}
    void onFrame(const FrameView&) override {}
    void onFrameEnd(const FrameTiming& t) override {
      std::lock_guard lock(test.mutex_);
      test.events_.push_back({false, t.frame, std::nullopt, 0});
    }
  };
  void TearDown() override {
    cpuTimes_.reset();
    VulkanTest::TearDown();
  }
  void SetUp() override {
    VulkanTest::SetUp();
    cpuTimes_ = renderer().addObserver(cpuEvents_);
    device().setGpuTimingCallback([this](const VulkanGpuTiming& t) {
      std::lock_guard lock(mutex_);
      events_.push_back({true, t.frame, t.gpu, t.commandBuffers});
    });
  }
  std::vector<Event> events() {
    renderer().flushAndWait();
    std::lock_guard lock(mutex_);
    return events_;
  }
  // The GPU events only.
  std::vector<Event> gpuEvents() {
    std::vector<Event> gpu;
    for (const Event& e : events()) {
      if (e.gpu) gpu.push_back(e);
    }
    return gpu;
  }
  // `draws` full-target sprites into `target`.
  void recordDraws(const Target& target, PipelineHandle pipeline, uint32_t draws) {
    const float clear[4] = {0, 0, 0, 1};
    beginPass(0, target.target, LoadOp::Clear, clear);
    for (uint32_t i = 0; i < draws; ++i) {
      drawSprite(1 + i, pipeline, {{0, 0, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f}, {}});
    }
    bucket().add<cmd::EndRenderPass>(1 + draws);
  }

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
  CpuEvents cpuEvents_{*this};
  ObserverRegistration cpuTimes_;
};

TEST_P(GpuTimes, OnePerFrameInOrderAfterItsCpuTimes) {
  ASSERT_TRUE(device().gpuTimestamps()) << "lavapipe's queue writes timestamps";
  createSpriteShaders();
  const Target target = makeTarget(64, 64);
  const PipelineHandle pipeline = spritePipeline(BlendMode::Alpha);
  constexpr uint64_t kFrames = 9;
  for (uint64_t f = 0; f < kFrames; ++f) {
    recordDraws(target, pipeline, 4);
    renderer().kick();  // no wait: frames overlap on the GPU
  }
  const std::vector<Event> all = events();
  std::vector<size_t> cpuAt(kFrames, SIZE_MAX), gpuAt(kFrames, SIZE_MAX);
  uint64_t expectedGpu = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    ASSERT_LT(all[i].frame, kFrames);
    if (!all[i].gpu) {
      cpuAt[all[i].frame] = i;
      continue;
    }
    EXPECT_EQ(all[i].frame, expectedGpu++) << "GPU times come in frame order";
    EXPECT_EQ(gpuAt[all[i].frame], SIZE_MAX) << "one GPU time per frame";
    gpuAt[all[i].frame] = i;
    ASSERT_TRUE(all[i].time.has_value()) << "frame " << all[i].frame;
    EXPECT_GT(all[i].time->count(), 0);
    EXPECT_LT(*all[i].time, std::chrono::seconds(10));
    EXPECT_EQ(all[i].commandBuffers, 1u);
  }
  for (uint64_t f = 0; f < kFrames; ++f) {
    ASSERT_NE(gpuAt[f], SIZE_MAX) << "frame " << f << " has a GPU time";
    EXPECT_GT(gpuAt[f], cpuAt[f]) << "frame " << f;
    // Read when its frame context is reused: after the CPU times of the frames in flight behind it.
    const uint64_t reuse = f + framesInFlight() - 1;
    if (reuse < kFrames) {
      EXPECT_GT(gpuAt[f], cpuAt[reuse]) << "frame " << f;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(InFlight, GpuTimes, ::testing::Values(1u, 2u, 3u, 4u));

class GpuTimesTwoInFlight : public GpuTimes {};

// A frame of many large blended draws takes the GPU longer than an empty frame.
TEST_P(GpuTimesTwoInFlight, FollowTheWork) {
  createSpriteShaders();
  const Target target = makeTarget(512, 512);
  const PipelineHandle pipeline = spritePipeline(BlendMode::Alpha);
  recordDraws(target, pipeline, 1);  // the pipeline is created here, not in the frames compared
  frame();
  frame();  // empty
  recordDraws(target, pipeline, 100);
  frame();
  const std::vector<Event> gpu = gpuEvents();
  ASSERT_EQ(gpu.size(), 3u);
  ASSERT_TRUE(gpu[1].time && gpu[2].time);
  EXPECT_GT(*gpu[2].time, 4 * *gpu[1].time)
      << "empty " << gpu[1].time->count() << " ns, 100 draws " << gpu[2].time->count() << " ns";
}

INSTANTIATE_TEST_SUITE_P(InFlight, GpuTimesTwoInFlight, ::testing::Values(2u));

// Reads a texture in the middle of every frame: the frame is submitted in two command buffers.
class MidFrameReader : public FrameObserver {
 public:
  MidFrameReader(VulkanDeviceImpl& device, TextureHandle texture) : device_(device), texture_(texture) {}
  void onFrame(const FrameView&) override { ok_ = ok_ && device_.readTexture(texture_, 0).ok(); }
  bool ok() const { return ok_; }

 private:
  VulkanDeviceImpl& device_;
  TextureHandle texture_;
  bool ok_ = true;
};

TEST_P(GpuTimesTwoInFlight, SumTheCommandBuffersOfAFlushedFrame) {
  createSpriteShaders();
  const Target target = makeTarget(64, 64);
  const PipelineHandle pipeline = spritePipeline(BlendMode::Alpha);
  recordDraws(target, pipeline, 2);
  frame();
  MidFrameReader reader(device(), target.color);
  ObserverRegistration reading = renderer().addObserver(reader);
  recordDraws(target, pipeline, 2);
  frame();
  reading.reset();
  EXPECT_TRUE(reader.ok());
  const std::vector<Event> gpu = gpuEvents();
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_EQ(gpu[0].commandBuffers, 1u);
  EXPECT_EQ(gpu[1].commandBuffers, 2u) << "the readback flushed the frame midway";
  ASSERT_TRUE(gpu[1].time.has_value());
  EXPECT_GT(gpu[1].time->count(), 0);
}

TEST(GpuTimesOff, WithoutTimingsNoQueriesAndNoCallbacks) {
  auto device = makeDevice(2);
  ASSERT_TRUE(device);
  EXPECT_FALSE(device->gpuTimestamps());
  int calls = 0;
  device->setGpuTimingCallback([&](const VulkanGpuTiming&) { ++calls; });
  {
    Renderer renderer(*device, RendererConfig{2});
    for (int i = 0; i < 4; ++i) renderer.kick();
    renderer.flushAndWait();
  }
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(device->takeErrors().empty());
}

// A queue family whose timestampValidBits is 0 (lavapipe's always has timestamps, so the timer is
// built directly): the timer stays off, writes no query and never hands out a frame.
TEST(GpuTimesOff, QueueWithoutTimestampsTimesNothing) {
  const vk::DeviceFns noDevice{};  // never called: a timer with 0 valid bits creates no query pool
  vk::GpuTimer timer;
  ASSERT_TRUE(timer.init(noDevice, /*validBits=*/0, 1.0f).ok());
  EXPECT_FALSE(timer.enabled());
  timer.startFrame(7);
  timer.beginCommandBuffer(VK_NULL_HANDLE);
  timer.endCommandBuffer(VK_NULL_HANDLE);
  timer.collect();
  EXPECT_FALSE(timer.takeFrame().has_value());
}

}  // namespace
}  // namespace reel::test
