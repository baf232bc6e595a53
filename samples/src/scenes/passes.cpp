// passes: a ring of cubes of one material that draws in two passes through a MaterialBinder: a lit,
// checkered base pass, then an additive toon pass with the rings texture over the same surfaces (depth
// test less-or-equal, no depth write). Each cube's key holds only its push constants and its draw; the
// binder adds each pass's pipeline and texture on the render thread, as packets, so a capture holds
// both passes and a replay needs no binder.
#include "assets.h"
#include "scene_util.h"

namespace reel::samples {
namespace {

struct CubePush {
  Mat4 model;
  float tint[4];
};
static_assert(sizeof(CubePush) == 80);

// The material every cube uses: a key's material id is what the binder is asked to bind.
constexpr uint32_t kMaterial = 9;

class TwoPassBinder final : public MaterialBinder {
 public:
  struct Pass {
    PipelineHandle pipeline;
    TextureHandle texture;
  };
  Pass passes[2];
  SamplerHandle sampler;

  bool bind(MaterialId material, uint32_t pass, BinderPackets& out) override {
    // The app's other keys in this bucket (the HUD) keep their own state: no packets, one pass.
    if (material.id != kMaterial) return false;
    out.add<cmd::BindPipeline>().pipeline = passes[pass].pipeline;
    auto& texture = out.add<cmd::BindTexture>();
    texture.slot = 0;
    texture.texture = passes[pass].texture;
    texture.sampler = sampler;
    return pass == 0;
  }
};

class Passes final : public Scene {
 public:
  void create(const SceneSetup& setup, const View& view) override {
    assets_ = &setup.assets;
    view_ = view;
    view_.keyViewport = viewport::kCubes;
    view_.label = "passes";
    count_ = setup.draws ? setup.draws : 24;
    PipelineDesc base = setup.assets.meshDesc(false, kColorFormat, kDepthFormat);
    PipelineDesc glow = setup.assets.meshDesc(true, kColorFormat, kDepthFormat);
    glow.blend = BlendMode::Additive;
    glow.depthWrite = false;
    glow.depthCompare = CompareOp::LessOrEqual;  // the base pass wrote these very depths
    binder_.passes[0] = {setup.resources.createPipeline(base), setup.assets.texture(TextureId::Checker)};
    binder_.passes[1] = {setup.resources.createPipeline(glow), setup.assets.texture(TextureId::Rings)};
    binder_.sampler = setup.assets.linearRepeat;
    camera_ = createUniformBuffer(setup.resources, sizeof(CameraUniforms));
  }

  void destroy(ResourceContext& resources) override {
    for (const TwoPassBinder::Pass& pass : binder_.passes) resources.destroy(pass.pipeline);
    resources.destroy(camera_);
  }

  void views(std::vector<View>& out) const override { out.push_back(view_); }

  void record(FrameRecorder& recorder) override {
    auto& main = recorder.main();
    // Kick thread, between kicks: the bucket hands the binder over with each frame's recording.
    main.setMaterialBinder(&binder_);
    const float t = recorder.time();
    const uint32_t vp = view_.keyViewport;
    const float radius = 7.0f, farZ = 40.0f;
    const Vec3 eye{12.0f * std::cos(t * 0.3f), 6.0f, 12.0f * std::sin(t * 0.3f)};
    const Mat4 view = Mat4::lookAt(eye, {0, 0, 0}, {0, 1, 0});
    CameraUniforms camera;
    camera.viewProj = Mat4::perspective(1.0f, view_.aspect(), 0.1f, farZ) * view;
    camera.params[0] = t;
    const PassId pass = recorder.viewPass(vp);
    recordUniforms(main, vp, camera_, camera, pass);

    auto& uniform = main.add<cmd::BindUniformBuffer>(pass, keys::viewSetup(vp));
    uniform.slot = 0;
    uniform.buffer = camera_;
    auto& vertices = main.append<cmd::BindVertexBuffer>(&uniform);
    vertices.buffer = assets_->cubeVertices;
    auto& indices = main.append<cmd::BindIndexBuffer>(&vertices);
    indices.buffer = assets_->cubeIndices;
    indices.indexType = IndexType::U16;

    for (uint32_t i = 0; i < count_; ++i) {
      const float angle = float(i) * 6.2831853f / float(count_);
      const Vec3 position{radius * std::cos(angle), 1.5f * std::sin(t + float(i)), radius * std::sin(angle)};
      CubePush push;
      push.model = Mat4::translation(position) * Mat4::rotation(normalize(Vec3{1, 1, 0.5f}), t + float(i)) *
                   Mat4::scale(1.2f);
      const float tint[4] = {0.6f + 0.4f * hash01(i, 1), 0.6f + 0.4f * hash01(i, 2),
                             0.6f + 0.4f * hash01(i, 3), 1};
      std::memcpy(push.tint, tint, sizeof tint);
      const uint32_t depth = DrawKey::quantizeDepth(viewDepth01(view, position, farZ));
      auto& constants = main.addWithData<cmd::PushConstants>(
          pass, DrawKey::draw(vp, 1, Translucency::Opaque, {kMaterial, 0}, depth), &push, sizeof push);
      main.append<cmd::DrawIndexed>(&constants).indexCount = Assets::kCubeIndexCount;
    }
  }

 private:
  const Assets* assets_ = nullptr;
  View view_;
  uint32_t count_ = 0;
  TwoPassBinder binder_;
  BufferHandle camera_;
};

}  // namespace

std::unique_ptr<Scene> makePasses() {
  return std::make_unique<Passes>();
}

}  // namespace reel::samples
