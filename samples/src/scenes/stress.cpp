#include "scenes/stress.h"

#include <cmath>

#include "reel/samples/spirv.h"
#include "scene_util.h"

namespace reel::samples {

namespace {
constexpr BlendMode kBlend[StressScene::kPipelines] = {BlendMode::Opaque, BlendMode::Alpha,
                                                       BlendMode::Additive, BlendMode::Premultiplied};
constexpr Translucency kGroup[StressScene::kPipelines] = {Translucency::Opaque, Translucency::Normal,
                                                          Translucency::Additive, Translucency::Normal};
}  // namespace

void StressScene::create(const SceneSetup& setup, const View& view) {
  assets_ = &setup.assets;
  view_ = view;
  view_.keyViewport = viewport::kStress;
  view_.label = "stress";
  count_ = setup.draws ? setup.draws : 100000;
  auto& r = setup.resources;
  // Every pipeline opts in to instance merging: a sprite's 48 bytes of push constants become an entry
  // of the storage buffer at slot 0, read by the instanced pair of shaders.
  instancedVert_ =
      r.createShader({.stage = ShaderStage::Vertex}, std::as_bytes(std::span(spirv::sprite_instanced_vert)));
  instancedFrag_ = r.createShader({.stage = ShaderStage::Fragment},
                                  std::as_bytes(std::span(spirv::sprite_instanced_frag)));
  const PipelineInstancing instancing{.vertexShader = instancedVert_,
                                      .fragmentShader = instancedFrag_,
                                      .constantOffset = 0,
                                      .constantBytes = sizeof(SpritePush),
                                      .bufferSlot = 0};
  for (uint32_t p = 0; p < kPipelines; ++p) {
    pipelines_[p] =
        r.createPipeline(setup.assets.spriteDesc(kBlend[p], true, kColorFormat, kDepthFormat), instancing);
  }
  const TextureId variants[3] = {TextureId::Rings, TextureId::Checker, TextureId::Noise};
  for (uint32_t v = 0; v < 3; ++v) {
    own_[v] = r.createTexture({.width = 16,
                               .height = 16,
                               .mipLevels = 1,
                               .format = Format::RGBA8Unorm,
                               .usage = texture_usage::kSampled},
                              makeTexels(variants[v], 16, v + 1));
  }
  for (uint32_t t = 0; t < kTextureCount; ++t) textures_[t] = setup.assets.textures[t];
  for (uint32_t v = 0; v < 3; ++v) textures_[kTextureCount + v] = own_[v];
}

void StressScene::destroy(ResourceContext& resources) {
  for (PipelineHandle p : pipelines_) resources.destroy(p);
  for (TextureHandle t : own_) resources.destroy(t);
  resources.destroy(instancedVert_);
  resources.destroy(instancedFrag_);
}

StressDraw StressScene::draw(uint32_t i, float time) const {
  StressDraw d;
  const uint32_t material = hash(i) % (kPipelines * kTextures);
  d.pipeline = material / kTextures;
  d.texture = material % kTextures;
  const float phase = hash01(i, 1) * 6.2831853f + time * (0.2f + 0.3f * hash01(i, 2));
  const float x = (hash01(i, 3) * 2 - 1) * 0.95f + 0.04f * std::cos(phase);
  const float y = (hash01(i, 4) * 2 - 1) * 0.95f + 0.04f * std::sin(phase);
  const float size = 0.015f + 0.04f * hash01(i, 5);
  const float depth = 0.05f + 0.9f * hash01(i, 6);
  d.push = SpritePush{{x, y, size, size * view_.aspect()},
                      {0.3f + 0.7f * hash01(i, 7), 0.3f + 0.7f * hash01(i, 8), 0.3f + 0.7f * hash01(i, 9),
                       d.pipeline == 0 ? 1.0f : 0.6f},
                      {depth, phase, d.pipeline == 3 ? 1.0f : 0.0f, d.pipeline == 0 ? 0.0f : 1.0f}};
  d.key = DrawKey::draw(view_.keyViewport, 1, kGroup[d.pipeline], {material + 1, 0},
                        DrawKey::quantizeDepth(depth));
  return d;
}

void StressScene::record(FrameRecorder& recorder) {
  const float t = recorder.time();
  const PassId pass = recorder.viewPass(view_.keyViewport);
  recorder.parallel(count_, [&](CommandBucket<DrawKey>& bucket, uint32_t begin, uint32_t end) {
    cmd::BindPipeline* headers[kPipelines];
    for (uint32_t p = 0; p < kPipelines; ++p) {
      headers[p] = &bucket.createShared<cmd::BindPipeline>();
      headers[p]->pipeline = pipelines_[p];
    }
    for (uint32_t i = begin; i < end; ++i) {
      const StressDraw d = draw(i, t);
      PacketHeader& ref = bucket.addShared(pass, d.key, *headers[d.pipeline]);
      auto& texture = bucket.append<cmd::BindTexture>(ref);
      texture.texture = textures_[d.texture];
      texture.sampler = assets_->linearClamp;
      auto& constants = appendPush(bucket, texture, d.push);
      auto& draw = bucket.append<cmd::Draw>(&constants);
      draw.vertexCount = 6;
      if (i % 1024 == 0) REEL_TAG(bucket, &draw, "stress sprite");
    }
  });
}

std::unique_ptr<Scene> makeStress() {
  return std::make_unique<StressScene>();
}

}  // namespace reel::samples
