#include "test_scene.h"

#include <array>
#include <cstring>
#include <thread>

namespace reel::test {
namespace {
template <typename T>
std::span<const std::byte> bytes(const T& v) {
  return {reinterpret_cast<const std::byte*>(&v), sizeof v};
}
}  // namespace

TestScene::TestScene(Renderer& renderer)
    : renderer_(renderer),
      world_(renderer.createBucket<DrawKey>("world")),
      post_(renderer.createBucket<uint32_t>("post")) {
  ResourceContext& r = renderer.resources();
  std::array<float, 12> triangle = {0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0};
  vertices_ = r.createBuffer({.size = sizeof triangle, .usage = buffer_usage::kVertex}, bytes(triangle));
  uniforms_ = r.createBuffer({.size = 256, .usage = buffer_usage::kUniform | buffer_usage::kTransferDst});
  std::array<uint8_t, 4 * 4 * 4> texels{};
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<uint8_t>(i * 13);
  albedo_ = r.createTexture({.width = 4, .height = 4, .mipLevels = 1, .format = Format::RGBA8Unorm,
                             .usage = texture_usage::kSampled},
                            std::as_bytes(std::span(texels)));
  color_ = r.createTexture({.width = 16, .height = 16, .mipLevels = 1, .format = Format::RGBA8Unorm,
                            .usage = texture_usage::kColorTarget | texture_usage::kTransferSrc});
  target_ = r.createRenderTarget({.colorCount = 1, .colors = {color_}});
  const std::array<uint32_t, 4> code = {0x07230203, 0x00010000, 0, 0};
  vs_ = r.createShader({ShaderStage::Vertex}, std::as_bytes(std::span(code)));
  fs_ = r.createShader({ShaderStage::Fragment}, std::as_bytes(std::span(code)));
  PipelineDesc pipeline{};
  pipeline.vertexShader = vs_;
  pipeline.fragmentShader = fs_;
  pipeline.vertexStride = 12;
  pipeline.attributeCount = 1;
  pipeline.attributes[0] = {0, 0, Format::RGB32Float};
  pipeline.colorCount = 1;
  pipeline.colorFormats[0] = Format::RGBA8Unorm;
  opaque_ = r.createPipeline(pipeline);
  pipeline.blend = BlendMode::Alpha;
  blended_ = r.createPipeline(pipeline);
  sampler_ = r.createSampler({Filter::Linear, Filter::Linear, AddressMode::Repeat, AddressMode::Repeat});
}

void TestScene::record(uint64_t f) {
  ResourceContext& r = renderer_.resources();
  if (f % 3 == 0) {
    const std::array<uint32_t, 4> seed = {uint32_t(f), 1, 2, 3};
    transient_ = r.createBuffer({.size = 16, .usage = buffer_usage::kStorage}, std::as_bytes(std::span(seed)));
  } else if (f % 3 == 1 && !transient_.isNull()) {
    r.destroy(transient_);
    transient_ = {};
  }
  const float time = static_cast<float>(f) * 0.25f;
  r.writeBuffer(uniforms_, 0, bytes(time));

  // The pass: begin in layer 0 (a command key), draws in layers 1-2, end after them (command key in the
  // last group).
  auto& begin = world_.add<cmd::BeginRenderPass>(DrawKey::command(0, 0, Translucency::Opaque, 0));
  begin.target = target_;
  begin.clearColor[3] = 1.0f;
  REEL_TAG(world_, &begin, "main pass");
  auto& viewport = world_.append<cmd::SetViewport>(&begin);
  viewport.width = viewport.height = 16;
  viewport.maxDepth = 1;
  world_.add<cmd::EndRenderPass>(DrawKey::command(0, 2, Translucency::Subtractive, 0xffffffff));

  // Two threads record draws: opaque ones and blended ones.
  auto drawMany = [&](Translucency t, PipelineHandle pipeline, uint32_t first) {
    for (uint32_t i = 0; i < 40; ++i) {
      const uint32_t id = first + i;
      const uint32_t depth = (id * 2654435761u + static_cast<uint32_t>(f) * 40503u) % 1000;
      auto& bind = world_.add<cmd::BindPipeline>(DrawKey::draw(0, 1 + id % 2, t, {id % 5, 0}, depth));
      bind.pipeline = pipeline;
      auto& vb = world_.append<cmd::BindVertexBuffer>(&bind);
      vb.buffer = vertices_;
      auto& push = world_.append<cmd::PushConstants>(&vb, sizeof(float) * 2);
      const float offset[2] = {float(id % 7), time};
      std::memcpy(world_.aux(push).data(), offset, sizeof offset);
      auto& draw = world_.append<cmd::Draw>(&push);
      draw.vertexCount = 3;
      if (i % 10 == 0) REEL_TAG(world_, &draw, "draw " + std::to_string(id));
    }
  };
  std::thread other([&] { drawMany(Translucency::Normal, blended_, 1000); });
  drawMany(Translucency::Opaque, opaque_, 0);
  other.join();

  // A shared viewport referenced by several keys of the post bucket, plus a texture bind and an update.
  auto& shared = post_.createShared<cmd::SetScissor>();
  shared.width = shared.height = 16;
  for (uint32_t k = 0; k < 3; ++k) {
    PacketHeader& ref = post_.addShared(10 + k, shared);
    auto& tex = post_.append<cmd::BindTexture>(ref);
    tex.texture = albedo_;
    tex.sampler = sampler_;
  }
  auto& update = post_.addWithData<cmd::UpdateBuffer>(5, &time, sizeof time);
  update.buffer = uniforms_;
  update.offset = 4;
}

}  // namespace reel::test
