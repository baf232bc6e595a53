// transparency: overlapping blended sprites sorted back to front, in four blend modes (alpha, additive,
// subtractive, premultiplied), over an opaque background. Every 16 frames one texture is destroyed and
// a new one created in its place (resources created and destroyed while running).
#include "assets.h"
#include "scene_util.h"

namespace reel::samples {
namespace {

struct Mode {
  BlendMode blend;
  Translucency translucency;  // the key's group: normal draws sort before additive, then subtractive
  bool premultiply;
};
constexpr Mode kModes[] = {{BlendMode::Alpha, Translucency::Normal, false},
                           {BlendMode::Additive, Translucency::Additive, false},
                           {BlendMode::Subtractive, Translucency::Subtractive, false},
                           {BlendMode::Premultiplied, Translucency::Normal, true}};

class Transparency final : public Scene {
 public:
  void create(const SceneSetup& setup, const View& view) override {
    assets_ = &setup.assets;
    view_ = view;
    view_.keyViewport = viewport::kTransparency;
    view_.label = "transparency";
    count_ = setup.draws ? setup.draws : 48;
    opaque_ = setup.resources.createPipeline(
        setup.assets.spriteDesc(BlendMode::Opaque, true, kColorFormat, kDepthFormat));
    for (uint32_t m = 0; m < 4; ++m) {
      pipelines_[m] = setup.resources.createPipeline(
          setup.assets.spriteDesc(kModes[m].blend, true, kColorFormat, kDepthFormat));
    }
    pattern_ = createPattern(setup.resources, 0);
  }

  void destroy(ResourceContext& resources) override {
    resources.destroy(opaque_);
    for (PipelineHandle p : pipelines_) resources.destroy(p);
    resources.destroy(pattern_);
  }

  void views(std::vector<View>& out) const override { out.push_back(view_); }

  void record(FrameRecorder& recorder) override {
    const float t = recorder.time();
    const uint32_t vp = view_.keyViewport;
    pass_ = recorder.viewPass(vp);
    auto& main = recorder.main();
    if (recorder.frame() > 0 && recorder.frame() % 16 == 0) {
      // The old texture may still be drawn this frame: the runtime destroys it after the frame's commands.
      recorder.resources().destroy(pattern_);
      pattern_ = createPattern(recorder.resources(), static_cast<uint32_t>(recorder.frame() / 16));
    }

    // Opaque background and a few opaque bars (the depth they write hides the sprites behind them).
    SpritePush background{{0, 0, 2, 2}, {0.55f, 0.6f, 0.7f, 1}, {0.999f, 0, 0, 0}};
    recordSprite(main, DrawKey::draw(vp, 1, Translucency::Opaque, {1, 0}, DrawKey::kMaxDepth), opaque_,
                 assets_->texture(TextureId::Checker), background);
    for (uint32_t b = 0; b < 3; ++b) {
      const float y = -0.6f + 0.6f * float(b);
      SpritePush bar{{0.25f * std::sin(t * 0.7f + float(b)), y, 1.4f, 0.08f},
                     {0.95f, 0.9f, 0.8f, 1},
                     {0.3f + 0.2f * float(b), 0, 0, 0}};
      recordSprite(main,
                   DrawKey::draw(vp, 1, Translucency::Opaque, {2, 0}, DrawKey::quantizeDepth(bar.params[0])),
                   opaque_, assets_->texture(TextureId::Bricks), bar);
    }

    recorder.parallel(count_, [&](CommandBucket<DrawKey>& bucket, uint32_t begin, uint32_t end) {
      for (uint32_t i = begin; i < end; ++i) {
        const uint32_t m = i % 4;
        const float phase = float(i) * 0.7f + t * (0.4f + 0.3f * hash01(i, 1));
        // Four quadrants, one per mode; sprites drift and move through depth, so their order changes.
        const float cx = (m % 2 ? 0.5f : -0.5f) + 0.3f * std::cos(phase);
        const float cy = (m / 2 ? 0.5f : -0.5f) + 0.3f * std::sin(phase * 1.3f);
        const float depth = 0.1f + 0.8f * (0.5f + 0.5f * std::sin(phase * 0.9f + float(i)));
        const float size = 0.35f + 0.25f * hash01(i, 2);
        const float hue = hash01(i, 3);
        SpritePush push{{cx, cy, size, size * view_.aspect()},
                        {0.4f + 0.6f * hue, 0.9f - 0.5f * hue, 0.3f + 0.5f * hash01(i, 4), 0.55f},
                        {depth, phase * 0.2f, kModes[m].premultiply ? 1.0f : 0.0f, i % 3 == 0 ? 0.0f : 1.0f}};
        const TextureHandle texture = i % 5 == 0 ? pattern_ : assets_->texture(TextureId::White);
        // Transparent keys store depth inverted: larger depth sorts first, i.e. back to front.
        const DrawKey key = DrawKey::draw(view_.keyViewport, 2, kModes[m].translucency, {3 + m, 0},
                                          DrawKey::quantizeDepth(depth));
        recordSprite(bucket, key, pipelines_[m], texture, push);
      }
    });
  }

 private:
  TextureHandle createPattern(ResourceContext& resources, uint32_t variant) {
    return resources.createTexture({.width = 32,
                                    .height = 32,
                                    .mipLevels = 1,
                                    .format = Format::RGBA8Unorm,
                                    .usage = texture_usage::kSampled},
                                   makeTexels(TextureId::Rings, 32, variant));
  }

  void recordSprite(CommandBucket<DrawKey>& bucket, DrawKey key, PipelineHandle pipeline,
                    TextureHandle texture, const SpritePush& push) {
    auto& bind = bucket.add<cmd::BindPipeline>(pass_, key);
    bind.pipeline = pipeline;
    auto& tex = appendTexture(bucket, bind, 0, texture, assets_->linearClamp);
    auto& constants = appendPush(bucket, tex, push);
    auto& draw = bucket.append<cmd::Draw>(&constants);
    draw.vertexCount = 6;
    REEL_TAG(bucket, &draw, "sprite");
  }

  const Assets* assets_ = nullptr;
  View view_;
  PassId pass_;  // this frame's view pass
  uint32_t count_ = 0;
  PipelineHandle opaque_, pipelines_[4];
  TextureHandle pattern_;
};

}  // namespace

std::unique_ptr<Scene> makeTransparency() {
  return std::make_unique<Transparency>();
}

}  // namespace reel::samples
