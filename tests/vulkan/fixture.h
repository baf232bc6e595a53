#pragma once
// A validated lavapipe device behind a Renderer, and small helpers to record frames with a bucket of
// plain integer keys (packets run in key order). TearDown fails the test on any error it did not take.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "reel/runtime/renderer.h"
#include "reel/samples/spirv.h"
#include "vulkan_device_impl.h"
#include "vulkan_test_env.h"

namespace reel::test {

struct SpriteConstants {
  float rect[4];  // center x, y, size w, h in NDC
  float color[4];
  float params[4];  // depth, rotation, premultiply, disc
};

inline uint32_t rgba8(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
  return uint32_t{r} | uint32_t{g} << 8 | uint32_t{b} << 16 | uint32_t{a} << 24;
}

class VulkanTest : public ::testing::Test {
 protected:
  virtual uint32_t framesInFlight() const { return 2; }
  virtual VulkanDeviceOptions deviceOptions() const { return validatedOptions(framesInFlight()); }

  void SetUp() override {
    auto device = VulkanDeviceImpl::create(deviceOptions());
    ASSERT_TRUE(device.ok()) << device.error().message;
    device_ = std::move(*device);
    renderer_ = std::make_unique<Renderer>(*device_, RendererConfig{framesInFlight()});
    bucket_ = &renderer_->createBucket<uint32_t>("test");
  }

  void TearDown() override {
    renderer_.reset();
    if (device_) {
      const auto errors = device_->takeErrors();
      EXPECT_TRUE(errors.empty()) << "unexpected device errors:" << joinErrors(errors);
    }
    device_.reset();
  }

  VulkanDeviceImpl& device() { return *device_; }
  Renderer& renderer() { return *renderer_; }
  ResourceContext& resources() { return renderer_->resources(); }
  CommandBucket<uint32_t>& bucket() { return *bucket_; }

  // Kicks the recorded frame and waits until the GPU has finished it.
  void frame() {
    renderer_->kick();
    renderer_->flushAndWait();
  }
  std::vector<std::string> takeErrors() {
    renderer_->flushAndWait();
    return device_->takeErrors();
  }

  Result<std::vector<std::byte>> readTexture(TextureHandle texture, uint32_t mip = 0) {
    return renderer_->withIdleDevice([&](Device& d) { return d.readTexture(texture, mip); });
  }
  Result<std::vector<std::byte>> readBuffer(BufferHandle buffer) {
    return renderer_->withIdleDevice([&](Device& d) { return d.readBuffer(buffer); });
  }
  static uint32_t pixel(const std::vector<std::byte>& texels, uint32_t width, uint32_t x, uint32_t y) {
    uint32_t p;
    std::memcpy(&p, texels.data() + (size_t{y} * width + x) * 4, 4);
    return p;
  }

  struct Target {
    TextureHandle color, depth;
    RenderTargetHandle target;
  };
  Target makeTarget(uint32_t width, uint32_t height, bool withDepth = false,
                    Format format = Format::RGBA8Unorm) {
    Target t;
    t.color = resources().createTexture({.width = width,
                                         .height = height,
                                         .mipLevels = 1,
                                         .format = format,
                                         .usage = texture_usage::kColorTarget | texture_usage::kSampled});
    RenderTargetDesc desc{};
    desc.colorCount = 1;
    desc.colors[0] = t.color;
    if (withDepth) {
      t.depth = resources().createTexture({.width = width,
                                           .height = height,
                                           .mipLevels = 1,
                                           .format = Format::D32Float,
                                           .usage = texture_usage::kDepthTarget});
      desc.depth = t.depth;
    }
    t.target = resources().createRenderTarget(desc);
    return t;
  }

  void createSpriteShaders() {
    namespace s = samples::spirv;
    spriteVert_ = resources().createShader({ShaderStage::Vertex}, std::as_bytes(std::span(s::sprite_vert)));
    spriteFrag_ = resources().createShader({ShaderStage::Fragment}, std::as_bytes(std::span(s::sprite_frag)));
    const uint32_t white = rgba8(255, 255, 255);
    white_ = resources().createTexture({.width = 1,
                                        .height = 1,
                                        .mipLevels = 1,
                                        .format = Format::RGBA8Unorm,
                                        .usage = texture_usage::kSampled},
                                       std::as_bytes(std::span(&white, 1)));
  }
  PipelineHandle spritePipeline(BlendMode blend = BlendMode::Opaque, Format color = Format::RGBA8Unorm,
                                Format depth = Format::Undefined) {
    PipelineDesc d{};
    d.vertexShader = spriteVert_;
    d.fragmentShader = spriteFrag_;
    d.blend = blend;
    d.colorCount = 1;
    d.colorFormats[0] = color;
    d.depthFormat = depth;
    return resources().createPipeline(d);
  }

  void beginPass(uint32_t key, RenderTargetHandle target, LoadOp load, const float clear[4]) {
    auto& begin = bucket().add<cmd::BeginRenderPass>(key);
    begin.target = target;
    begin.colorLoad = load;
    begin.depthLoad = load;
    if (clear) std::memcpy(begin.clearColor, clear, sizeof begin.clearColor);
    begin.clearDepth = 1.0f;
  }
  // A sprite: pipeline, texture (white when null), push constants, draw; all under `key` (of `pass`).
  void drawSprite(uint32_t key, PipelineHandle pipeline, const SpriteConstants& constants,
                  TextureHandle texture = {}, PassId pass = {}) {
    auto& bind = bucket().add<cmd::BindPipeline>(pass, key);
    bind.pipeline = pipeline;
    auto& tex = bucket().append<cmd::BindTexture>(&bind);
    tex.texture = texture.isNull() ? white_ : texture;
    auto& push = bucket().append<cmd::PushConstants>(&tex, sizeof constants);
    std::memcpy(bucket().aux(push).data(), &constants, sizeof constants);
    bucket().append<cmd::Draw>(&push).vertexCount = 6;
  }

  ShaderHandle spriteVert_, spriteFrag_;
  TextureHandle white_;

 private:
  std::unique_ptr<VulkanDeviceImpl> device_;
  std::unique_ptr<Renderer> renderer_;
  CommandBucket<uint32_t>* bucket_ = nullptr;
};

}  // namespace reel::test
