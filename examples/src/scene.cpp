#include "scene.h"

#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "spirv.h"

namespace example {
namespace {

using reel::DrawKey;
using reel::Translucency;
namespace cmd = reel::cmd;

// The passes order the frame (Scene::record declares them); inside each, a key's viewport field is its
// pass's, and layers order what the pass draws.
constexpr uint32_t kComputeViewport = 0, kOffscreenViewport = 1, kFrameViewport = 2;

struct ComputePush {
  uint32_t count;
  float time;
};
struct TilePush {
  float rect[4];  // center x, y, width, height in normalized device coordinates
  float color[4];
};

template <typename T>
std::span<const std::byte> bytesOf(const T& words) {
  return std::as_bytes(std::span(words));
}

// Push constants after `previous` in its chain: the constant bytes travel as the packet's aux data.
template <typename T, typename Previous>
cmd::PushConstants& appendPush(reel::CommandBucket<DrawKey>& bucket, Previous& previous, const T& data) {
  auto& push = bucket.append<cmd::PushConstants>(&previous, sizeof(T));
  std::memcpy(bucket.aux(push).data(), &data, sizeof(T));
  return push;
}

// A pass that clears its whole target. The renderer begins it before the first key that names it and
// ends it after the last, whichever buckets and threads recorded them.
reel::PassDesc clearingPass(reel::RenderTargetHandle target, const float (&clear)[4]) {
  reel::PassDesc pass{};
  pass.target = target;
  pass.colorLoad = reel::LoadOp::Clear;
  std::memcpy(pass.clearColor, clear, sizeof clear);
  return pass;
}

reel::PipelineDesc graphicsPipeline(reel::ShaderHandle vertex, reel::ShaderHandle fragment,
                                    reel::BlendMode blend, uint32_t pushConstantBytes) {
  reel::PipelineDesc desc{};
  desc.vertexShader = vertex;
  desc.fragmentShader = fragment;
  desc.blend = blend;
  desc.colorCount = 1;
  desc.colorFormats[0] = reel::Format::RGBA8Unorm;
  desc.pushConstantBytes = pushConstantBytes;
  return desc;
}

}  // namespace

Scene::Scene(reel::Renderer& renderer)
    : renderer_(renderer),
      main_(renderer.createBucket<DrawKey>("main")),
      effects_(renderer.createBucket<DrawKey>("effects")) {
  for (uint32_t i = 0; i < kTileThreads; ++i) {
    tiles_[i] = &renderer.createBucket<DrawKey>("tiles" + std::to_string(i));
  }
  reel::ResourceContext& r = renderer.resources();
  using reel::ShaderStage;
  particlesComp_ = r.createShader({ShaderStage::Compute}, bytesOf(example_spirv::particles_comp));
  particlesVert_ = r.createShader({ShaderStage::Vertex}, bytesOf(example_spirv::particles_vert));
  particlesFrag_ = r.createShader({ShaderStage::Fragment}, bytesOf(example_spirv::particles_frag));
  compositeVert_ = r.createShader({ShaderStage::Vertex}, bytesOf(example_spirv::composite_vert));
  compositeFrag_ = r.createShader({ShaderStage::Fragment}, bytesOf(example_spirv::composite_frag));
  tileVert_ = r.createShader({ShaderStage::Vertex}, bytesOf(example_spirv::tile_vert));
  tileFrag_ = r.createShader({ShaderStage::Fragment}, bytesOf(example_spirv::tile_frag));

  reel::PipelineDesc compute{};
  compute.computeShader = particlesComp_;
  compute.pushConstantBytes = sizeof(ComputePush);
  compute_ = r.createPipeline(compute);
  particles_ =
      r.createPipeline(graphicsPipeline(particlesVert_, particlesFrag_, reel::BlendMode::Premultiplied, 0));
  composite_ =
      r.createPipeline(graphicsPipeline(compositeVert_, compositeFrag_, reel::BlendMode::Opaque, 16));
  tile_ = r.createPipeline(graphicsPipeline(tileVert_, tileFrag_, reel::BlendMode::Alpha, sizeof(TilePush)));

  reel::BufferDesc particleBuffer{};
  particleBuffer.size = uint64_t{kParticles} * 2 * 4 * sizeof(float);  // two vec4 per particle
  particleBuffer.usage = reel::buffer_usage::kStorage;
  particleBuffer_ = r.createBuffer(particleBuffer);

  reel::TextureDesc color{};
  color.width = color.height = kOffscreenSize;
  color.mipLevels = 1;
  color.format = reel::Format::RGBA8Unorm;
  color.usage = reel::texture_usage::kColorTarget | reel::texture_usage::kSampled;
  offscreenColor_ = r.createTexture(color);
  color.width = kWidth;
  color.height = kHeight;
  color.usage = reel::texture_usage::kColorTarget | reel::texture_usage::kTransferSrc;  // read back
  frameColor_ = r.createTexture(color);

  reel::RenderTargetDesc target{};
  target.colorCount = 1;
  target.colors[0] = offscreenColor_;
  offscreen_ = r.createRenderTarget(target);
  target.colors[0] = frameColor_;
  frame_ = r.createRenderTarget(target);

  reel::SamplerDesc sampler{};
  sampler.minFilter = sampler.magFilter = reel::Filter::Linear;
  sampler.addressU = sampler.addressV = reel::AddressMode::ClampToEdge;
  sampler_ = r.createSampler(sampler);
}

void Scene::record(uint64_t frame) {
  const float time = float(frame) / 30.0f;  // the animation clock is the frame number, never the wall
  // The frame's passes, in the order they run: the simulation (no target: a compute pass), the particles
  // into the offscreen texture, then the frame image.
  reel::ResourceContext& r = renderer_.resources();
  reel::PassDesc simulation{};
  simulation.queue = reel::QueueClass::AsyncCompute;
  computePass_ = r.declarePass("particles: compute", simulation);
  offscreenPass_ = r.declarePass("offscreen pass", clearingPass(offscreen_, {0.05f, 0.04f, 0.12f, 1.0f}));
  framePass_ = r.declarePass("frame pass", clearingPass(frame_, {0.0f, 0.0f, 0.0f, 1.0f}));
  std::thread effects([this, time] { recordEffects(time); });
  std::vector<std::thread> tiles;
  constexpr uint32_t kTiles = kTileColumns * kTileRows;
  for (uint32_t i = 0; i < kTileThreads; ++i) {
    tiles.emplace_back([this, i, frame] {
      recordTiles(*tiles_[i], kTiles * i / kTileThreads, kTiles * (i + 1) / kTileThreads, frame);
    });
  }
  recordFramePass(time);
  effects.join();
  for (std::thread& thread : tiles) thread.join();
}

// The dispatch, then the offscreen pass that draws what it wrote. The device puts the barriers between
// them (compute write -> vertex read, color attachment -> sampled) from the sorted packets.
void Scene::recordEffects(float time) {
  auto& bind = effects_.add<cmd::BindPipeline>(
      computePass_, DrawKey::command(kComputeViewport, 0, Translucency::Opaque, 0));
  bind.pipeline = compute_;
  REEL_TAG(effects_, &bind, "particles: compute");
  auto& storage = effects_.append<cmd::BindStorageBuffer>(&bind);
  storage.slot = 0;
  storage.buffer = particleBuffer_;
  auto& push = appendPush(effects_, storage, ComputePush{kParticles, time});
  auto& dispatch = effects_.append<cmd::Dispatch>(&push);
  dispatch.groupsX = (kParticles + 63) / 64;
  dispatch.groupsY = dispatch.groupsZ = 1;

  auto& draw = effects_.add<cmd::BindPipeline>(
      offscreenPass_, DrawKey::draw(kOffscreenViewport, 1, Translucency::Normal, {1, 0}, 0));
  draw.pipeline = particles_;
  auto& read = effects_.append<cmd::BindStorageBuffer>(&draw);
  read.slot = 0;
  read.buffer = particleBuffer_;
  auto& instances = effects_.append<cmd::DrawInstanced>(&read);
  instances.vertexCount = 6;
  instances.instanceCount = kParticles;
  REEL_TAG(effects_, &instances, "particles: drawn");
}

// Tiles [first, end) of the grid, translucent, over the full-screen triangle. Every tile has a depth of
// its own, so the keys never tie whichever thread records it.
void Scene::recordTiles(reel::CommandBucket<DrawKey>& bucket, uint32_t first, uint32_t end, uint64_t frame) {
  for (uint32_t i = first; i < end; ++i) {
    if ((i + frame) % 3 == 0) continue;  // a pattern that moves from frame to frame
    const uint32_t column = i % kTileColumns, row = i / kTileColumns;
    TilePush tile{};
    tile.rect[0] = -1.0f + (float(column) + 0.5f) * 2.0f / float(kTileColumns);
    tile.rect[1] = -1.0f + (float(row) + 0.5f) * 2.0f / float(kTileRows);
    tile.rect[2] = 1.6f / float(kTileColumns);
    tile.rect[3] = 1.6f / float(kTileRows);
    const float phase = float(i) * 0.7f + float(frame) * 0.4f;
    tile.color[0] = 0.5f + 0.5f * std::sin(phase);
    tile.color[1] = 0.5f + 0.5f * std::sin(phase + 2.1f);
    tile.color[2] = 0.5f + 0.5f * std::sin(phase + 4.2f);
    tile.color[3] = 0.25f;
    auto& bind = bucket.add<cmd::BindPipeline>(
        framePass_, DrawKey::draw(kFrameViewport, 2, Translucency::Normal, {3, 0}, i));
    bind.pipeline = tile_;
    auto& push = appendPush(bucket, bind, tile);
    bucket.append<cmd::Draw>(&push).vertexCount = 6;
  }
}

// The frame pass's full-screen triangle, which samples the offscreen texture.
void Scene::recordFramePass(float time) {
  auto& bind = main_.add<cmd::BindPipeline>(
      framePass_, DrawKey::draw(kFrameViewport, 1, Translucency::Opaque, {2, 0}, 0));
  bind.pipeline = composite_;
  auto& texture = main_.append<cmd::BindTexture>(&bind);
  texture.slot = 0;
  texture.texture = offscreenColor_;
  texture.sampler = sampler_;
  const float params[4] = {time, 0.0f, 0.0f, 0.0f};
  auto& push = appendPush(main_, texture, params);
  auto& draw = main_.append<cmd::Draw>(&push);
  draw.vertexCount = 3;
  REEL_TAG(main_, &draw, "composite");
}

void Scene::destroy() {
  reel::ResourceContext& r = renderer_.resources();
  r.destroy(frame_);
  r.destroy(offscreen_);
  r.destroy(frameColor_);
  r.destroy(offscreenColor_);
  r.destroy(particleBuffer_);
  r.destroy(sampler_);
  for (reel::PipelineHandle p : {compute_, particles_, composite_, tile_}) r.destroy(p);
  for (reel::ShaderHandle s : {particlesComp_, particlesVert_, particlesFrag_, compositeVert_, compositeFrag_,
                               tileVert_, tileFrag_}) {
    r.destroy(s);
  }
}

}  // namespace example
