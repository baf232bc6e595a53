// The device itself: selection, creation, frames and frame contexts, errors that must not crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "context.h"
#include "fixture.h"

namespace reel::test {
namespace {

TEST(VulkanDeviceSelection, UnknownNameIsAnErrorThatListsTheDevices) {
  VulkanDeviceOptions options = validatedOptions();
  options.deviceName = "no-such-gpu-9000";
  auto device = VulkanDeviceImpl::create(options);
  ASSERT_FALSE(device.ok());
  const std::string& message = device.error().message;
  EXPECT_NE(message.find("no Vulkan device matches 'no-such-gpu-9000'"), std::string::npos) << message;
  EXPECT_NE(message.find("llvmpipe"), std::string::npos) << "the listing names the devices: " << message;
}

TEST(VulkanDeviceSelection, NameIsACaseInsensitiveSubstring) {
  VulkanDeviceOptions options = validatedOptions();
  options.deviceName = "LLVMPIPE";
  auto device = VulkanDeviceImpl::create(options);
  ASSERT_TRUE(device.ok()) << device.error().message;
  EXPECT_NE((*device)->info().name.find("llvmpipe"), std::string::npos);
  EXPECT_EQ((*device)->info().type, "cpu");
  EXPECT_EQ((*device)->info().apiVersion.rfind("1.3", 0), 0u) << (*device)->info().apiVersion;
  EXPECT_EQ((*device)->errorCount(), 0u) << joinErrors((*device)->takeErrors());
}

TEST(VulkanDeviceSelection, ListsDevices) {
  useLavapipe();
  auto devices = vk::listPhysicalDevices();
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_FALSE(devices->empty());
  EXPECT_NE((*devices)[0].find("llvmpipe"), std::string::npos) << (*devices)[0];
}

TEST(VulkanDeviceOptions, FramesInFlightOutOfRangeIsAnError) {
  VulkanDeviceOptions options = validatedOptions();
  options.framesInFlight = 5;
  EXPECT_FALSE(VulkanDeviceImpl::create(options).ok());
  options.framesInFlight = 0;
  EXPECT_FALSE(VulkanDeviceImpl::create(options).ok());
}

class FrameContexts : public VulkanTest, public ::testing::WithParamInterface<uint32_t> {
 protected:
  uint32_t framesInFlight() const override { return GetParam(); }
};

// Resources created, used and destroyed every frame: each is destroyed while earlier frames may still be
// on the GPU. The validation layer reports any object destroyed while a command buffer still uses it.
TEST_P(FrameContexts, ResourcesDestroyedWhileFramesAreInFlightAreFreedSafely) {
  createSpriteShaders();
  const Target target = makeTarget(32, 32);
  const PipelineHandle pipeline = spritePipeline();
  for (uint32_t f = 0; f < 12; ++f) {
    const uint32_t texel = rgba8(uint8_t(20 * f), 100, 200);
    const TextureHandle texture = resources().createTexture({.width = 1,
                                                             .height = 1,
                                                             .mipLevels = 1,
                                                             .format = Format::RGBA8Unorm,
                                                             .usage = texture_usage::kSampled},
                                                            std::as_bytes(std::span(&texel, 1)));
    const BufferHandle scratch = resources().createBuffer({.size = 4096, .usage = buffer_usage::kUniform});
    const float clear[4] = {0, 0, 0, 1};
    beginPass(0, target.target, LoadOp::Clear, clear);
    drawSprite(1, pipeline, {{0, 0, 2, 2}, {1, 1, 1, 1}, {0, 0, 0, 0}}, texture);
    auto& update = bucket().add<cmd::UpdateBuffer>(2, 16);
    update.buffer = scratch;
    bucket().add<cmd::EndRenderPass>(3);
    resources().destroy(texture);  // applied after this frame's commands
    resources().destroy(scratch);
    renderer().kick();  // no wait: up to framesInFlight frames overlap
  }
  auto texels = readTexture(target.color);
  ASSERT_TRUE(texels.ok()) << texels.error().message;
  EXPECT_EQ(pixel(*texels, 32, 16, 16), rgba8(220, 100, 200));
  const VulkanDeviceStats stats = device().stats();
  EXPECT_EQ(stats.frames, 12u);
  EXPECT_EQ(stats.draws, 12u);
}

INSTANTIATE_TEST_SUITE_P(InFlight, FrameContexts, ::testing::Values(1u, 2u, 3u, 4u));

TEST_F(VulkanTest, EmptyFramesSubmitAndRecycle) {
  for (int i = 0; i < 10; ++i) renderer().kick();
  renderer().flushAndWait();
  EXPECT_EQ(device().stats().frames, 10u);
  EXPECT_EQ(device().stats().submits, 10u);
}

TEST_F(VulkanTest, OutOfMemoryIsReportedAndTheDeviceCarriesOn) {
  const BufferHandle huge =
      resources().createBuffer({.size = uint64_t{1} << 50, .usage = buffer_usage::kStorage});
  const BufferHandle fine = resources().createBuffer({.size = 64, .usage = buffer_usage::kStorage});
  frame();
  const auto errors = takeErrors();
  ASSERT_EQ(errors.size(), 1u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("CreateBuffer " + formatHandle(huge)), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("out of memory"), std::string::npos) << errors[0];
  EXPECT_TRUE(readBuffer(fine).ok());
  // The failed buffer does not exist on the device: a later use is a stale-handle report, not a crash.
  auto& copy = bucket().add<cmd::CopyBuffer>(0);
  copy.source = huge;
  copy.destination = fine;
  copy.size = 16;
  frame();
  EXPECT_EQ(countContaining(takeErrors(), "CopyBuffer: source names buffer"), 1u);
}

TEST_F(VulkanTest, UnsupportedTextureFormatIsReported) {
  // Three-channel 32-bit float: lavapipe samples and renders it, but has no storage-image support for it.
  resources().createTexture({.width = 4,
                             .height = 4,
                             .mipLevels = 1,
                             .format = Format::RGB32Float,
                             .usage = texture_usage::kStorage});
  frame();
  const auto errors = takeErrors();
  ASSERT_EQ(errors.size(), 1u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("does not support this usage"), std::string::npos) << errors[0];
}

TEST(VulkanPipelineCache, IsSavedAndLoadedAgain) {
  const std::string path = ::testing::TempDir() + "reel_pipeline_cache_test.bin";
  std::remove(path.c_str());
  uint64_t savedBytes = 0;  // what the first run left in the file
  for (int run = 0; run < 2; ++run) {
    VulkanDeviceOptions options = validatedOptions();
    options.pipelineCachePath = path;
    auto device = VulkanDeviceImpl::create(options);
    ASSERT_TRUE(device.ok()) << device.error().message;
    {
      Renderer renderer(**device);
      ResourceContext& r = renderer.resources();
      namespace s = samples::spirv;
      PipelineDesc desc{};
      desc.vertexShader = r.createShader({ShaderStage::Vertex}, std::as_bytes(std::span(s::sprite_vert)));
      desc.fragmentShader = r.createShader({ShaderStage::Fragment}, std::as_bytes(std::span(s::sprite_frag)));
      desc.colorCount = 1;
      desc.colorFormats[0] = Format::RGBA8Unorm;
      r.createPipeline(desc);
      renderer.kick();
    }
    EXPECT_EQ((*device)->errorCount(), 0u) << joinErrors((*device)->takeErrors());
    // The first run finds no file; the second hands the driver exactly the file the first one saved.
    EXPECT_EQ((*device)->stats().pipelineCacheBytesLoaded, savedBytes) << "run " << run;
    device->reset();  // saves the cache
    std::error_code ec;
    savedBytes = std::filesystem::file_size(path, ec);
    ASSERT_FALSE(ec) << "run " << run << ": no cache file at " << path;
    ASSERT_GE(savedBytes, 32u) << "a cache header at least";
    // A VkPipelineCacheHeaderVersionOne at least (lavapipe caches nothing past it; GPU drivers do).
    std::ifstream file(path, std::ios::binary);
    ASSERT_TRUE(file.good()) << "run " << run << ": no cache file at " << path;
    uint32_t header[2] = {};
    file.read(reinterpret_cast<char*>(header), sizeof header);
    EXPECT_EQ(header[0], 32u) << "header length";
    EXPECT_EQ(header[1], uint32_t{VK_PIPELINE_CACHE_HEADER_VERSION_ONE});
  }
  std::remove(path.c_str());
}

TEST_F(VulkanTest, StatsCountFramesAndSubmits) {
  renderer().kick();
  renderer().kick();
  renderer().flushAndWait();
  const auto stats = device().stats();
  EXPECT_EQ(stats.frames, 2u);
  EXPECT_GE(stats.submits, 2u);
}

}  // namespace
}  // namespace reel::test
