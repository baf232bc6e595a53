// Sorted packets become the right pixels: passes, blending, render-to-texture, compute, copies, and the
// bind caches that keep redundant binds away from Vulkan.
#include <gtest/gtest.h>

#include <cmath>

#include "fixture.h"

namespace reel::test {
namespace {

constexpr uint32_t kTwoTargetsFrag[] =
#include "reel/tests/spirv/two_targets_frag.inc"
    ;

::testing::AssertionResult near(uint32_t actual, uint32_t expected, int tolerance = 1) {
  for (int c = 0; c < 4; ++c) {
    const int a = int((actual >> (8 * c)) & 0xff), e = int((expected >> (8 * c)) & 0xff);
    if (std::abs(a - e) > tolerance) {
      return ::testing::AssertionFailure()
             << std::hex << "0x" << actual << " is not 0x" << expected << " (channel " << c << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST_F(VulkanTest, ClearThenDraw) {
  createSpriteShaders();
  const Target target = makeTarget(32, 32);
  const PipelineHandle pipeline = spritePipeline();
  const float blue[4] = {0, 0, 1, 1};
  beginPass(0, target.target, LoadOp::Clear, blue);
  drawSprite(1, pipeline, {{-0.5f, 0, 1, 2}, {1, 0, 0, 1}, {0, 0, 0, 0}});  // left half, red
  bucket().add<cmd::EndRenderPass>(2);
  frame();
  auto texels = readTexture(target.color);
  ASSERT_TRUE(texels.ok()) << texels.error().message;
  EXPECT_EQ(pixel(*texels, 32, 3, 10), rgba8(255, 0, 0));
  EXPECT_EQ(pixel(*texels, 32, 28, 10), rgba8(0, 0, 255));
}

TEST_F(VulkanTest, BlendModes) {
  createSpriteShaders();
  const Target target = makeTarget(8, 8);
  const BlendMode modes[] = {BlendMode::Alpha, BlendMode::Additive, BlendMode::Subtractive,
                             BlendMode::Premultiplied};
  // Over a grey of 0.5: source red at alpha 0.5.
  const uint32_t expected[] = {rgba8(191, 64, 64, 255),    // 1*0.5 + 0.5*0.5, 0 + 0.5*0.5
                               rgba8(255, 128, 128, 255),  // 0.5 + 1*0.5, 0.5 + 0
                               rgba8(0, 128, 128, 255),    // 0.5 - 1*0.5
                               rgba8(191, 64, 64, 255)};   // premultiplied in the shader: 0.5 + 0.5*0.5
  for (int m = 0; m < 4; ++m) {
    const PipelineHandle pipeline = spritePipeline(modes[m]);
    const float grey[4] = {0.5f, 0.5f, 0.5f, 1};
    beginPass(0, target.target, LoadOp::Clear, grey);
    drawSprite(1, pipeline,
               {{0, 0, 2, 2}, {1, 0, 0, 0.5f}, {0, 0, modes[m] == BlendMode::Premultiplied ? 1.0f : 0, 0}});
    bucket().add<cmd::EndRenderPass>(2);
    frame();
    auto texels = readTexture(target.color);
    ASSERT_TRUE(texels.ok());
    EXPECT_TRUE(near(pixel(*texels, 8, 4, 4), expected[m])) << enumNames(modes[m])[size_t(modes[m])];
  }
}

TEST_F(VulkanTest, RedundantBindsNeverReachVulkan) {
  createSpriteShaders();
  const Target target = makeTarget(16, 16);
  const PipelineHandle pipeline = spritePipeline();
  frame();
  const VulkanDeviceStats before = device().stats();
  beginPass(0, target.target, LoadOp::Clear, nullptr);
  for (uint32_t i = 0; i < 100; ++i) {
    drawSprite(1, pipeline, {{0, 0, 0.1f, 0.1f}, {1, 1, 1, 1}, {0, 0, 0, 0}});  // same pipeline and texture
  }
  bucket().add<cmd::EndRenderPass>(2);
  frame();
  const VulkanDeviceStats after = device().stats();
  EXPECT_EQ(after.draws - before.draws, 100u);
  EXPECT_EQ(after.pipelineBinds - before.pipelineBinds, 1u);
  EXPECT_EQ(after.descriptorPushes - before.descriptorPushes, 1u);
  EXPECT_EQ(after.pushConstantCalls - before.pushConstantCalls, 1u) << "equal push constants are skipped too";
  EXPECT_EQ(after.redundantBindsSkipped - before.redundantBindsSkipped, 99u * 3);
  EXPECT_EQ(after.renderPasses - before.renderPasses, 1u);
}

TEST_F(VulkanTest, EqualPipelineDescriptorsShareOneVulkanPipeline) {
  createSpriteShaders();
  spritePipeline(BlendMode::Alpha);
  spritePipeline(BlendMode::Alpha);
  spritePipeline(BlendMode::Additive);
  frame();
  EXPECT_EQ(device().stats().pipelinesCreated, 2u);
  EXPECT_EQ(device().stats().pipelinesShared, 1u);
}

// A command that cannot run inside a render pass suspends it; the next draw resumes with the contents
// kept (load op LOAD), including the clear.
TEST_F(VulkanTest, ACopyInsideAPassSuspendsAndResumesIt) {
  createSpriteShaders();
  const Target target = makeTarget(16, 16);
  const PipelineHandle pipeline = spritePipeline();
  const BufferHandle buffer = resources().createBuffer({.size = 64, .usage = buffer_usage::kUniform});
  const float grey[4] = {0.5f, 0.5f, 0.5f, 1};
  beginPass(0, target.target, LoadOp::Clear, grey);
  drawSprite(1, pipeline, {{-0.5f, 0, 1, 1}, {0, 1, 0, 1}, {0, 0, 0, 0}});
  const uint32_t word = 7;
  bucket().addWithData<cmd::UpdateBuffer>(2, &word, 4).buffer = buffer;
  drawSprite(3, pipeline, {{0.5f, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 0}});
  bucket().add<cmd::EndRenderPass>(4);
  frame();
  auto texels = readTexture(target.color);
  ASSERT_TRUE(texels.ok());
  EXPECT_EQ(pixel(*texels, 16, 4, 8), rgba8(0, 255, 0));
  EXPECT_EQ(pixel(*texels, 16, 12, 8), rgba8(0, 0, 255));
  EXPECT_EQ(pixel(*texels, 16, 8, 0), rgba8(128, 128, 128)) << "the clear survives the suspension";
  EXPECT_EQ(device().stats().renderPassSuspensions, 1u);
  EXPECT_EQ(device().stats().renderPasses, 2u);
  auto bytes = readBuffer(buffer);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(std::to_integer<uint32_t>((*bytes)[0]), 7u);
}

// A transient target nothing reads after its declared pass is stored DONT_CARE (Device::discardAtPassEnd),
// and only while nothing interrupts the pass after its first draw: an update between its draws keeps it
// (stored, and the pass resumes); a copy out of it before its first draw (which begins rendering for the
// clear the copy must see, then stops) keeps it too, and so does a readback of the frame. The frame's image
// is drawn right in each case, and no device or validation error comes (TearDown).
TEST_F(VulkanTest, ATransientTargetNothingReadsLaterIsDiscardedOnlyWhenItsPassRunsThrough) {
  createSpriteShaders();
  const PipelineHandle pipeline = spritePipeline();
  const TextureHandle scratch =
      resources().createTexture({.width = 16,
                                 .height = 16,
                                 .mipLevels = 1,
                                 .format = Format::RGBA8Unorm,
                                 .usage = texture_usage::kColorTarget | texture_usage::kSampled |
                                          texture_usage::kTransient | texture_usage::kTransferSrc});
  RenderTargetDesc scratchDesc{};
  scratchDesc.colorCount = 1;
  scratchDesc.colors[0] = scratch;
  const RenderTargetHandle scratchTarget = resources().createRenderTarget(scratchDesc);
  const Target image = makeTarget(16, 16);
  const TextureHandle copy = makeTarget(16, 16).color;
  const BufferHandle buffer = resources().createBuffer({.size = 64, .usage = buffer_usage::kUniform});
  frame();

  enum class Between { Nothing, UpdateAfterADraw, CopyBeforeTheDraws, ReadBackAfterTheFrame };
  uint32_t readBack = 0;  // the scratch target's center, as a readback of its frame delivers it
  auto run = [&](Between between) {
    const VulkanDeviceStats before = device().stats();
    const float grey[4] = {0.5f, 0.5f, 0.5f, 1};
    PassDesc first;
    first.target = scratchTarget;
    std::memcpy(first.clearColor, grey, sizeof grey);
    const PassId scratchPass = resources().declarePass("scratch", first);
    PassDesc second;
    second.target = image.target;
    std::memcpy(second.clearColor, grey, sizeof grey);
    const PassId imagePass = resources().declarePass("image", second);
    if (between == Between::CopyBeforeTheDraws) {
      auto& c = bucket().add<cmd::CopyTexture>(scratchPass, 0);
      c.source = scratch;
      c.destination = copy;
      c.width = c.height = 16;
    }
    drawSprite(1, pipeline, {{-0.5f, 0, 1, 1}, {0, 1, 0, 1}, {0, 0, 0, 0}}, {}, scratchPass);
    if (between == Between::UpdateAfterADraw) {
      const uint32_t word = 7;
      bucket().addWithData<cmd::UpdateBuffer>(scratchPass, 2, &word, 4).buffer = buffer;
    }
    drawSprite(3, pipeline, {{0.5f, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 0}}, {}, scratchPass);
    drawSprite(1, pipeline, {{0, 0, 1, 1}, {1, 0, 0, 1}, {0, 0, 0, 0}}, {}, imagePass);
    if (between == Between::ReadBackAfterTheFrame) {
      device().requestReadback(scratch, renderer().recordingFrame(), [&](Result<ReadbackImage> shot) {
        if (shot) readBack = pixel(shot->pixels, 16, 12, 8);
      });
    }
    frame();
    const VulkanDeviceStats after = device().stats();
    auto texels = readTexture(image.color);
    EXPECT_TRUE(texels.ok() && pixel(*texels, 16, 8, 8) == rgba8(255, 0, 0) &&
                pixel(*texels, 16, 0, 0) == rgba8(128, 128, 128));
    return std::pair(after.storesDiscarded - before.storesDiscarded,
                     after.renderPassSuspensions - before.renderPassSuspensions);
  };
  EXPECT_EQ(run(Between::Nothing), std::pair(uint64_t{1}, uint64_t{0}));
  EXPECT_EQ(run(Between::UpdateAfterADraw), std::pair(uint64_t{0}, uint64_t{1}));
  EXPECT_EQ(run(Between::CopyBeforeTheDraws), std::pair(uint64_t{0}, uint64_t{1}));
  EXPECT_EQ(run(Between::ReadBackAfterTheFrame), std::pair(uint64_t{0}, uint64_t{0}));
  EXPECT_EQ(readBack, rgba8(0, 0, 255)) << "the readback sees what the pass drew";
  auto copied = readTexture(copy);
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(pixel(*copied, 16, 8, 8), rgba8(128, 128, 128)) << "the copy saw the pass's clear";
}

// Render to a texture, then sample it in the next pass: the layout transitions and barriers come from the
// uses alone.
TEST_F(VulkanTest, RenderToTextureThenSampleIt) {
  createSpriteShaders();
  const Target offscreen = makeTarget(8, 8);
  const Target screen = makeTarget(8, 8);
  const PipelineHandle pipeline = spritePipeline();
  for (uint32_t f = 0; f < 3; ++f) {  // more than once: the texture goes from sampled back to attachment
    const float color[4] = {float(f) / 2.0f, 0.25f, 0.75f, 1};
    beginPass(0, offscreen.target, LoadOp::Clear, color);
    bucket().add<cmd::EndRenderPass>(1);
    beginPass(2, screen.target, LoadOp::Clear, nullptr);
    drawSprite(3, pipeline, {{0, 0, 2, 2}, {1, 1, 1, 1}, {0, 0, 0, 0}}, offscreen.color);
    bucket().add<cmd::EndRenderPass>(4);
    frame();
    auto texels = readTexture(screen.color);
    ASSERT_TRUE(texels.ok());
    EXPECT_TRUE(near(pixel(*texels, 8, 4, 4), rgba8(uint8_t(std::lround(f / 2.0 * 255)), 64, 191)))
        << "frame " << f;
  }
}

TEST_F(VulkanTest, TwoColorAttachments) {
  createSpriteShaders();
  TextureHandle colors[2];
  RenderTargetDesc desc{};
  desc.colorCount = 2;
  for (auto& c : colors) {
    c = resources().createTexture({.width = 4,
                                   .height = 4,
                                   .mipLevels = 1,
                                   .format = Format::RGBA8Unorm,
                                   .usage = texture_usage::kColorTarget});
  }
  desc.colors[0] = colors[0];
  desc.colors[1] = colors[1];
  const RenderTargetHandle target = resources().createRenderTarget(desc);
  const ShaderHandle fragment =
      resources().createShader({ShaderStage::Fragment}, std::as_bytes(std::span(kTwoTargetsFrag)));
  PipelineDesc p{};
  p.vertexShader = spriteVert_;
  p.fragmentShader = fragment;
  p.colorCount = 2;
  p.colorFormats[0] = p.colorFormats[1] = Format::RGBA8Unorm;
  const PipelineHandle pipeline = resources().createPipeline(p);
  beginPass(0, target, LoadOp::Clear, nullptr);
  drawSprite(1, pipeline, {{0, 0, 2, 2}, {1, 0.25f, 0, 1}, {0, 0, 0, 0}});
  bucket().add<cmd::EndRenderPass>(2);
  frame();
  auto first = readTexture(colors[0]);
  auto second = readTexture(colors[1]);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(near(pixel(*first, 4, 1, 1), rgba8(255, 64, 0)));
  EXPECT_TRUE(near(pixel(*second, 4, 1, 1), rgba8(0, 191, 255)));
}

TEST_F(VulkanTest, BlitScalesDown) {
  const std::vector<uint32_t> flat(16 * 16, rgba8(40, 80, 120, 255));
  const TextureHandle source = resources().createTexture({.width = 16,
                                                          .height = 16,
                                                          .mipLevels = 1,
                                                          .format = Format::RGBA8Unorm,
                                                          .usage = texture_usage::kSampled},
                                                         std::as_bytes(std::span(flat)));
  const TextureHandle destination = resources().createTexture({.width = 4,
                                                               .height = 4,
                                                               .mipLevels = 1,
                                                               .format = Format::RGBA8Unorm,
                                                               .usage = texture_usage::kSampled});
  auto& blit = bucket().add<cmd::BlitTexture>(0);
  blit.source = source;
  blit.destination = destination;
  const int32_t from[4] = {0, 0, 16, 16}, to[4] = {0, 0, 4, 4};
  std::memcpy(blit.sourceRect, from, sizeof from);
  std::memcpy(blit.destinationRect, to, sizeof to);
  blit.filter = Filter::Linear;
  frame();
  auto texels = readTexture(destination);
  ASSERT_TRUE(texels.ok());
  EXPECT_EQ(pixel(*texels, 4, 3, 3), rgba8(40, 80, 120, 255));
}

// The compute scene's shader writes particles as a function of (count, time): read them back and check
// them against the same formula on the CPU; then draw them (a draw reads what the dispatch wrote).
TEST_F(VulkanTest, ADispatchWritesABufferThatAReadbackAndADrawSee) {
  namespace s = samples::spirv;
  const uint32_t count = 100;
  const float time = 1.5f;
  const BufferHandle particles =
      resources().createBuffer({.size = count * 32, .usage = buffer_usage::kStorage});
  PipelineDesc computeDesc{};
  computeDesc.computeShader =
      resources().createShader({ShaderStage::Compute}, std::as_bytes(std::span(s::particles_comp)));
  const PipelineHandle compute = resources().createPipeline(computeDesc);
  PipelineDesc drawDesc{};
  drawDesc.vertexShader =
      resources().createShader({ShaderStage::Vertex}, std::as_bytes(std::span(s::particles_vert)));
  drawDesc.fragmentShader =
      resources().createShader({ShaderStage::Fragment}, std::as_bytes(std::span(s::particles_frag)));
  drawDesc.blend = BlendMode::Premultiplied;
  drawDesc.colorCount = 1;
  drawDesc.colorFormats[0] = Format::RGBA8Unorm;
  const PipelineHandle draw = resources().createPipeline(drawDesc);
  const Target target = makeTarget(64, 64);

  auto& bindCompute = bucket().add<cmd::BindPipeline>(0);
  bindCompute.pipeline = compute;
  auto& storage = bucket().append<cmd::BindStorageBuffer>(&bindCompute);
  storage.buffer = particles;
  struct {
    uint32_t count;
    float time;
  } push{count, time};
  auto& constants = bucket().append<cmd::PushConstants>(&storage, sizeof push);
  std::memcpy(bucket().aux(constants).data(), &push, sizeof push);
  auto& first = bucket().append<cmd::Dispatch>(&constants);
  first.groupsX = (count + 63) / 64;
  first.groupsY = first.groupsZ = 1;
  auto& dispatch = bucket().add<cmd::Dispatch>(0);  // a second dispatch: write after write on the buffer
  dispatch.groupsX = (count + 63) / 64;
  dispatch.groupsY = dispatch.groupsZ = 1;
  beginPass(1, target.target, LoadOp::Clear, nullptr);
  auto& bindDraw = bucket().add<cmd::BindPipeline>(2);
  bindDraw.pipeline = draw;
  auto& instanced = bucket().append<cmd::DrawInstanced>(&bindDraw);
  instanced.vertexCount = 6;
  instanced.instanceCount = count;
  bucket().add<cmd::EndRenderPass>(3);
  frame();

  auto bytes = readBuffer(particles);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  std::vector<float> data(count * 8);
  std::memcpy(data.data(), bytes->data(), bytes->size());
  for (uint32_t i = 0; i < count; ++i) {
    const float f = float(i);
    const float angle = f * 2.39996f + time * (0.3f + 0.2f * (f * 0.618f - std::floor(f * 0.618f)));
    const float radius =
        std::sqrt((f + 0.5f) / float(count)) * (0.85f + 0.1f * std::sin(time * 1.7f + f * 0.37f));
    EXPECT_NEAR(data[8 * i + 0], std::cos(angle) * radius, 1e-3) << "particle " << i;
    EXPECT_NEAR(data[8 * i + 1], std::sin(angle) * radius, 1e-3) << "particle " << i;
    EXPECT_NEAR(data[8 * i + 7], 0.85f, 1e-6);
  }
  auto texels = readTexture(target.color);
  ASSERT_TRUE(texels.ok());
  uint32_t lit = 0;
  for (uint32_t y = 0; y < 64; ++y) {
    for (uint32_t x = 0; x < 64; ++x) lit += (pixel(*texels, 64, x, y) & 0xffffff) != 0;
  }
  EXPECT_GT(lit, 50u) << "the particles (a pixel or two each) were drawn from the buffer the dispatch wrote";
  EXPECT_EQ(device().stats().dispatches, 2u);
}

}  // namespace
}  // namespace reel::test
