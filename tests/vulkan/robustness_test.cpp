// Bad packets are reported and skipped; the frame and the device carry on. Each test takes the errors it
// provokes; the fixture fails it on any other.
#include <gtest/gtest.h>

#include "fixture.h"

namespace reel::test {
namespace {

class Robustness : public VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    createSpriteShaders();
    target_ = makeTarget(8, 8);
    pipeline_ = spritePipeline();
    frame();
  }
  // A pass with one good draw (red, full target) after whatever `record` adds under key 1.
  template <typename Fn>
  std::vector<std::string> runFrame(Fn&& record) {
    const float black[4] = {0, 0, 0, 1};
    beginPass(0, target_.target, LoadOp::Clear, black);
    record();
    drawSprite(2, pipeline_, {{0, 0, 2, 2}, {1, 0, 0, 1}, {0, 0, 0, 0}});
    bucket().add<cmd::EndRenderPass>(3);
    frame();
    auto texels = readTexture(target_.color);
    EXPECT_TRUE(texels.ok());
    if (texels.ok()) {
      EXPECT_EQ(pixel(*texels, 8, 4, 4), rgba8(255, 0, 0)) << "the good draw still ran";
    }
    return takeErrors();
  }

  Target target_;
  PipelineHandle pipeline_;
};

TEST_F(Robustness, StaleHandlesInEveryKindOfPacket) {
  const TextureHandle texture = resources().createTexture({.width = 2,
                                                           .height = 2,
                                                           .mipLevels = 1,
                                                           .format = Format::RGBA8Unorm,
                                                           .usage = texture_usage::kSampled});
  const BufferHandle buffer =
      resources().createBuffer({.size = 64, .usage = buffer_usage::kVertex | buffer_usage::kUniform});
  const PipelineHandle pipeline = spritePipeline(BlendMode::Alpha);
  const SamplerHandle sampler = resources().createSampler({});
  frame();
  resources().destroy(texture);
  resources().destroy(buffer);
  resources().destroy(pipeline);
  resources().destroy(sampler);
  frame();  // the destroys reach the device
  const auto errors = runFrame([&] {
    bucket().add<cmd::BindTexture>(1).texture = texture;
    auto& withSampler = bucket().add<cmd::BindTexture>(1);
    withSampler.texture = white_;
    withSampler.sampler = sampler;
    bucket().add<cmd::BindVertexBuffer>(1).buffer = buffer;
    bucket().add<cmd::BindUniformBuffer>(1).buffer = buffer;
    bucket().add<cmd::BindPipeline>(1).pipeline = pipeline;
    auto& copy = bucket().add<cmd::CopyBuffer>(1);
    copy.source = buffer;
    copy.destination = buffer;
    copy.size = 4;
    bucket().add<cmd::BindTexture>(1).texture = TextureHandle::make(4000, 3);  // foreign: never allocated
  });
  EXPECT_EQ(errors.size(), 8u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "BindTexture: texture names " + formatHandle(texture)), 1u)
      << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "BindTexture: sampler names sampler"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "BindVertexBuffer: buffer names buffer"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "BindUniformBuffer: buffer names buffer"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "BindPipeline: pipeline names pipeline"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "CopyBuffer: source names buffer"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "CopyBuffer: destination names buffer"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "which is not live on the device"), 8u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "texture#4000.3"), 1u) << joinErrors(errors);
}

TEST_F(Robustness, AStaleRenderTargetOrAttachmentIsReportedAndThePassSkipped) {
  const Target other = makeTarget(4, 4);
  frame();
  resources().destroy(other.color);  // the target stays, its texture goes
  frame();
  const float clear[4] = {1, 1, 1, 1};
  beginPass(0, other.target, LoadOp::Clear, clear);
  drawSprite(1, pipeline_, {{0, 0, 2, 2}, {1, 0, 0, 1}, {0, 0, 0, 0}});
  bucket().add<cmd::EndRenderPass>(2);
  frame();
  const auto errors = takeErrors();
  ASSERT_EQ(errors.size(), 3u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("BeginRenderPass: the target's colors[0] names texture"), std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("Draw: a draw outside a render pass"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("EndRenderPass: no render pass is open"), std::string::npos) << errors[2];
}

TEST_F(Robustness, TagsNameTheBadPacket) {
  const auto errors = runFrame([&] {
    auto& bind = bucket().add<cmd::BindTexture>(1);
    bind.texture = TextureHandle::make(4001, 1);
    REEL_TAG(bucket(), &bind, "the crate's texture");
  });
  ASSERT_EQ(errors.size(), 1u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("[tag \"the crate's texture\" at "), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("robustness_test.cpp"), std::string::npos) << errors[0];
}

TEST_F(Robustness, UnboundSlotsThatThePipelineUsesAreReported) {
  // The sprite shader samples binding 4 (texture slot 0): unbind it, then draw.
  const auto errors = runFrame([&] {
    bucket().add<cmd::BindPipeline>(1).pipeline = pipeline_;
    bucket().add<cmd::BindTexture>(1).texture = TextureHandle{};  // null: unbinds
    bucket().add<cmd::Draw>(1).vertexCount = 6;
  });
  ASSERT_EQ(errors.size(), 1u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("the pipeline uses binding 4, which nothing is bound to"), std::string::npos)
      << errors[0];
}

TEST_F(Robustness, DrawsWithoutPassOrPipelineAndBadParameters) {
  bucket().add<cmd::Draw>(0).vertexCount = 3;  // before any pass
  const auto errors = runFrame([&] {
    auto& indexed = bucket().add<cmd::DrawIndexed>(1);  // no index buffer
    indexed.indexCount = 3;
    bucket().add<cmd::BindTexture>(1).slot = 9;
    bucket().add<cmd::PushConstants>(1, 6);  // not a multiple of 4
    auto& viewport = bucket().add<cmd::SetViewport>(1);
    viewport.width = 0;                                    // invalid
    auto& nested = bucket().add<cmd::BeginRenderPass>(1);  // a pass inside a pass: closes the first
    nested.target = target_.target;
    nested.colorLoad = LoadOp::Load;
  });
  EXPECT_EQ(errors.size(), 6u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "Draw: a draw outside a render pass"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "DrawIndexed: no index buffer bound"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "BindTexture: slot 9"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "PushConstants: offset and size must be multiples of 4"), 1u)
      << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "SetViewport: width must be > 0"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "BeginRenderPass: a render pass is already open"), 1u)
      << joinErrors(errors);
}

TEST_F(Robustness, SamplingAnAttachmentOfTheOpenPassIsReported) {
  const auto errors = runFrame([&] {
    drawSprite(1, pipeline_, {{0, 0, 2, 2}, {1, 1, 1, 1}, {0, 0, 0, 0}}, target_.color);  // feedback loop
    bucket().add<cmd::BindTexture>(1).texture = white_;  // so that the good draw samples something else
  });
  ASSERT_EQ(errors.size(), 1u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("samples an attachment of the open render pass"), std::string::npos) << errors[0];
}

TEST_F(Robustness, APipelineForOtherAttachmentFormatsIsReported) {
  const PipelineHandle wrong = spritePipeline(BlendMode::Opaque, Format::RGBA16Float);
  frame();
  const auto errors = runFrame([&] { drawSprite(1, wrong, {{0, 0, 2, 2}, {0, 1, 0, 1}, {0, 0, 0, 0}}); });
  ASSERT_EQ(errors.size(), 1u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("attachment formats differ"), std::string::npos) << errors[0];
}

TEST_F(Robustness, BadResourceRequestsAreReported) {
  const uint32_t notSpirv[] = {1, 2, 3, 4, 5, 6};
  const ShaderHandle shader =
      resources().createShader({ShaderStage::Fragment}, std::as_bytes(std::span(notSpirv)));
  PipelineDesc desc{};
  desc.vertexShader = spriteVert_;
  desc.fragmentShader = shader;  // failed above: not live on the device
  desc.colorCount = 1;
  desc.colorFormats[0] = Format::RGBA8Unorm;
  resources().createPipeline(desc);
  PipelineDesc swapped = desc;
  swapped.vertexShader = spriteFrag_;  // a fragment shader in the vertex slot
  swapped.fragmentShader = spriteFrag_;
  resources().createPipeline(swapped);
  resources().createTexture({.width = 0,
                             .height = 4,
                             .mipLevels = 1,
                             .format = Format::RGBA8Unorm,
                             .usage = texture_usage::kSampled});
  const uint32_t texel = 0;
  resources().createTexture({.width = 4,
                             .height = 4,
                             .mipLevels = 1,
                             .format = Format::RGBA8Unorm,
                             .usage = texture_usage::kSampled},
                            std::as_bytes(std::span(&texel, 1)));  // 4 bytes for 64
  const BufferHandle small = resources().createBuffer({.size = 16, .usage = buffer_usage::kUniform});
  resources().writeBuffer(small, 8, std::as_bytes(std::span(notSpirv)));  // 24 bytes at 8 of 16
  RenderTargetDesc target{};
  target.colorCount = 1;
  target.colors[0] = white_;  // not a color target
  resources().createRenderTarget(target);
  frame();
  const auto errors = takeErrors();
  EXPECT_EQ(errors.size(), 7u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "not a SPIR-V module"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "desc.fragmentShader names shader"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "desc.vertexShader is not a vertex shader"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "size 0x4"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "the texture is zeroed instead"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "pass the end of a 16-byte buffer"), 1u) << joinErrors(errors);
  EXPECT_EQ(countContaining(errors, "lacks the color target usage"), 1u) << joinErrors(errors);
}

TEST_F(Robustness, AShaderOutsideTheBindingModelIsRefused) {
  // Hand-assembled: one OpVariable in set 0, binding 12 (past the 12 slots).
  const uint32_t module[] = {0x07230203, 0x00010000, 0, 10, 0,
                             // OpDecorate %5 Binding 12 ; OpDecorate %5 DescriptorSet 0
                             (4u << 16) | 71, 5, 33, 12, (4u << 16) | 71, 5, 34, 0,
                             // %3 = OpTypeStruct ; %4 = OpTypePointer Uniform %3 ; %5 = OpVariable %4 Uniform
                             (2u << 16) | 30, 3, (4u << 16) | 32, 4, 2, 3, (4u << 16) | 59, 4, 5, 2};
  resources().createShader({ShaderStage::Fragment}, std::as_bytes(std::span(module)));
  frame();
  const auto errors = takeErrors();
  ASSERT_EQ(errors.size(), 1u) << joinErrors(errors);
  EXPECT_NE(errors[0].find("binding 12 is past the 12 slots"), std::string::npos) << errors[0];
}

}  // namespace
}  // namespace reel::test
