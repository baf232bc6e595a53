#pragma once
// stress: 100,000 small sprites per frame (--draws) over 4 pipelines x 8 textures, a quarter opaque
// (sorted by material, few state changes) and the rest blended (sorted back to front, so the pipeline or
// texture changes at nearly every draw). Each draw is a chain of four packets: the material's pipeline
// (a shared packet), its texture, push constants and the draw; the device's bind caches drop what is
// redundant. The benchmark (bench/vulkan_bench.cpp) records the same draws straight into Vulkan.

#include <vector>

#include "assets.h"
#include "scene.h"

namespace reel::samples {

struct StressDraw {
  DrawKey key;
  uint32_t pipeline = 0;  // index into pipelines()
  uint32_t texture = 0;   // index into textures()
  SpritePush push{};
};

class StressScene final : public Scene {
 public:
  static constexpr uint32_t kPipelines = 4, kTextures = 8;

  void create(const SceneSetup& setup, const View& view) override;
  void record(FrameRecorder& recorder) override;
  void destroy(ResourceContext& resources) override;
  void views(std::vector<View>& out) const override { out.push_back(view_); }

  // Draw i of the frame at `time`: what record() records, for anyone who wants the same draws.
  StressDraw draw(uint32_t i, float time) const;
  uint32_t count() const { return count_; }
  const View& view() const { return view_; }
  PipelineHandle pipeline(uint32_t i) const { return pipelines_[i]; }
  TextureHandle texture(uint32_t i) const { return textures_[i]; }
  SamplerHandle sampler() const { return assets_->linearClamp; }

 private:
  const Assets* assets_ = nullptr;
  View view_;
  uint32_t count_ = 0;
  PipelineHandle pipelines_[kPipelines];
  TextureHandle textures_[kTextures];
  TextureHandle own_[3];
  ShaderHandle instancedVert_, instancedFrag_;  // the pipelines' instanced shaders (instance merging)
};

}  // namespace reel::samples
