// post: a small scene rendered into an offscreen target (a declared pass), blitted down to a half-size
// copy (a declared transfer pass), then a full-screen pass that samples both into the view, with an
// overlay layer of alpha-blended panels on top.
#include "assets.h"
#include "scene_util.h"

namespace reel::samples {
namespace {

struct CubePush {
  Mat4 model;
  float tint[4];
};

class Post final : public Scene {
 public:
  void create(const SceneSetup& setup, const View& view) override {
    assets_ = &setup.assets;
    view_ = view;
    view_.keyViewport = viewport::kPost;
    view_.label = "post";
    auto& r = setup.resources;
    width_ = std::max(8u, view_.width);
    height_ = std::max(8u, view_.height);
    color_ = r.createTexture({.width = width_,
                              .height = height_,
                              .mipLevels = 1,
                              .format = kColorFormat,
                              .usage = texture_usage::kSampled | texture_usage::kColorTarget});
    depth_ = r.createTexture({.width = width_,
                              .height = height_,
                              .mipLevels = 1,
                              .format = kDepthFormat,
                              .usage = texture_usage::kDepthTarget});
    glow_ = r.createTexture({.width = width_ / 2,
                             .height = height_ / 2,
                             .mipLevels = 1,
                             .format = kColorFormat,
                             .usage = texture_usage::kSampled});
    RenderTargetDesc target{};
    target.colorCount = 1;
    target.colors[0] = color_;
    target.depth = depth_;
    target_ = r.createRenderTarget(target);
    cubes_ = r.createPipeline(setup.assets.meshDesc(false, kColorFormat, kDepthFormat));
    // The frame's pass has a depth attachment; this pass ignores it.
    post_ = r.createPipeline(
        setup.assets.fullscreenDesc(setup.assets.shaders.postFrag, kColorFormat, kDepthFormat, 16));
    camera_ = createUniformBuffer(r, sizeof(CameraUniforms));
  }

  void destroy(ResourceContext& r) override {
    r.destroy(target_);
    r.destroy(color_);
    r.destroy(depth_);
    r.destroy(glow_);
    r.destroy(cubes_);
    r.destroy(post_);
    r.destroy(camera_);
  }

  void views(std::vector<View>& out) const override { out.push_back(view_); }

  void record(FrameRecorder& recorder) override {
    const float t = recorder.time();
    auto& main = recorder.main();
    recordOffscreen(main, t);

    // The full-screen pass in the view: samples the offscreen image and its half-size copy.
    const uint32_t vp = view_.keyViewport;
    const PassId viewPass = recorder.viewPass(vp);
    auto& bind = main.add<cmd::BindPipeline>(viewPass, DrawKey::draw(vp, 1, Translucency::Opaque, {1, 0}, 0));
    bind.pipeline = post_;
    auto& scene = appendTexture(main, bind, 0, color_, assets_->linearClamp);
    auto& glow = appendTexture(main, scene, 1, glow_, assets_->linearClamp);
    const float params[4] = {t, 0, 0, 0};
    auto& constants = appendPush(main, glow, params);
    auto& draw = main.append<cmd::Draw>(&constants);
    draw.vertexCount = 3;
    REEL_TAG(main, &draw, "post: full-screen pass");

    // Overlay layer (layer 14, after everything else in the view): translucent panels and a moving marker.
    const SpritePush panels[] = {
        {{0, -0.82f, 1.8f, 0.22f}, {0.05f, 0.05f, 0.1f, 0.6f}, {0, 0, 0, 0}},
        {{-0.6f + 1.2f * (0.5f + 0.5f * std::sin(t)), -0.82f, 0.12f, 0.12f},
         {1.0f, 0.8f, 0.2f, 0.9f},
         {0, t, 0, 1}},
        {{0.72f, 0.72f, 0.3f, 0.3f}, {0.9f, 0.3f, 0.3f, 0.5f}, {0, -t * 0.5f, 0, 0}},
    };
    uint32_t order = 0;
    for (const SpritePush& p : panels) {
      auto& overlay = main.add<cmd::BindPipeline>(
          viewPass, DrawKey::draw(vp, 14, Translucency::Normal, {2, 0}, 1000 - order++));
      overlay.pipeline = assets_->sprite[static_cast<uint32_t>(BlendMode::Alpha)];
      auto& tex = appendTexture(main, overlay, 0, assets_->texture(TextureId::White), {});
      auto& push = appendPush(main, tex, p);
      main.append<cmd::Draw>(&push).vertexCount = 6;
    }
  }

  // Two passes before the views: the scene into the offscreen target, then a transfer pass that shrinks
  // it into the glow texture.
  void declarePasses(FrameRecorder& recorder) override {
    ResourceContext& resources = recorder.resources();
    offscreenPass_ = resources.declarePass("post: offscreen pass",
                                           passInto(target_, LoadOp::Clear, {0.08f, 0.1f, 0.2f, 1.0f}));
    PassDesc shrink;
    shrink.queue = QueueClass::Transfer;
    glowPass_ = resources.declarePass("post: glow", shrink);
  }

 private:
  void recordOffscreen(CommandBucket<DrawKey>& main, float t) {
    const PassId pass = offscreenPass_;
    const uint32_t vp = viewport::kOffscreen;
    const Vec3 eye{6.0f * std::sin(t * 0.3f), 2.5f, 6.0f * std::cos(t * 0.3f)};
    const Mat4 view = Mat4::lookAt(eye, {0, 0, 0}, {0, 1, 0});
    CameraUniforms camera;
    camera.viewProj = Mat4::perspective(0.9f, float(width_) / float(height_), 0.1f, 30.0f) * view;
    camera.params[0] = t;
    recordUniforms(main, vp, camera_, camera, pass);

    auto& uniform = main.add<cmd::BindUniformBuffer>(pass, keys::viewSetup(vp));
    uniform.buffer = camera_;
    auto& vertices = main.append<cmd::BindVertexBuffer>(&uniform);
    vertices.buffer = assets_->cubeVertices;
    auto& indices = main.append<cmd::BindIndexBuffer>(&vertices);
    indices.buffer = assets_->cubeIndices;
    auto& pipeline = main.append<cmd::BindPipeline>(&indices);
    pipeline.pipeline = cubes_;

    for (uint32_t i = 0; i < 12; ++i) {
      const float a = float(i) / 12.0f * 6.2831853f + t * 0.5f;
      const Vec3 position{2.6f * std::cos(a), 0.8f * std::sin(a * 2.0f + t), 2.6f * std::sin(a)};
      CubePush push;
      push.model = Mat4::translation(position) * Mat4::rotation(normalize({1, 1, 0.3f}), t + float(i)) *
                   Mat4::scale(0.9f);
      const float tint[4] = {0.6f + 0.4f * hash01(i, 9), 0.6f + 0.4f * hash01(i, 10), 1.0f, 1.0f};
      std::memcpy(push.tint, tint, sizeof tint);
      const uint32_t depth = DrawKey::quantizeDepth(viewDepth01(view, position, 30.0f));
      auto& texture =
          main.add<cmd::BindTexture>(pass, DrawKey::draw(vp, 1, Translucency::Opaque, {1, 0}, depth));
      texture.texture = assets_->texture(i % 2 ? TextureId::Rings : TextureId::Noise);
      texture.sampler = assets_->linearRepeat;
      auto& constants = appendPush(main, texture, push);
      main.append<cmd::DrawIndexed>(&constants).indexCount = Assets::kCubeIndexCount;
    }

    auto& blit = main.add<cmd::BlitTexture>(glowPass_, keys::uploads(vp));
    blit.source = color_;
    blit.destination = glow_;
    const int32_t source[4] = {0, 0, int32_t(width_), int32_t(height_)};
    const int32_t destination[4] = {0, 0, int32_t(width_ / 2), int32_t(height_ / 2)};
    std::memcpy(blit.sourceRect, source, sizeof source);
    std::memcpy(blit.destinationRect, destination, sizeof destination);
    blit.filter = Filter::Linear;
  }

  const Assets* assets_ = nullptr;
  View view_;
  uint32_t width_ = 0, height_ = 0;
  TextureHandle color_, depth_, glow_;
  RenderTargetHandle target_;
  PassId offscreenPass_, glowPass_;  // this frame's (declarePasses)
  PipelineHandle cubes_, post_;
  BufferHandle camera_;
};

}  // namespace

std::unique_ptr<Scene> makePost() {
  return std::make_unique<Post>();
}

}  // namespace reel::samples
