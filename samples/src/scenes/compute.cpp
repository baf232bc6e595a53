// compute: a dispatch (key viewport 0, before every pass) writes particles into a storage buffer that a
// later instanced draw in the view reads. The buffer is reallocated every 60 frames with a new particle
// count (resources created and destroyed while running).
#include "assets.h"
#include "scene_util.h"

namespace reel::samples {
namespace {

struct ComputePush {
  uint32_t count;
  float time;
};

class Compute final : public Scene {
 public:
  void create(const SceneSetup& setup, const View& view) override {
    assets_ = &setup.assets;
    view_ = view;
    view_.keyViewport = viewport::kCompute;
    view_.label = "compute";
    baseCount_ = setup.draws ? setup.draws : 1024;
    auto& r = setup.resources;
    PipelineDesc compute{};
    compute.computeShader = setup.assets.shaders.particlesComp;
    compute.pushConstantBytes = sizeof(ComputePush);
    compute_ = r.createPipeline(compute);
    PipelineDesc draw{};
    draw.vertexShader = setup.assets.shaders.particlesVert;
    draw.fragmentShader = setup.assets.shaders.particlesFrag;
    draw.blend = BlendMode::Premultiplied;
    draw.colorCount = 1;
    draw.colorFormats[0] = kColorFormat;
    draw.depthFormat = kDepthFormat;
    draw_ = r.createPipeline(draw);
    background_ =
        r.createPipeline(setup.assets.spriteDesc(BlendMode::Opaque, false, kColorFormat, kDepthFormat));
    allocate(r, 0);
  }

  void destroy(ResourceContext& r) override {
    r.destroy(compute_);
    r.destroy(draw_);
    r.destroy(background_);
    r.destroy(particles_);
  }

  void views(std::vector<View>& out) const override { out.push_back(view_); }

  // The simulation, before the view that draws what it wrote.
  void declarePasses(FrameRecorder& recorder) override {
    PassDesc simulation;  // no target: a compute pass
    simulation.queue = QueueClass::AsyncCompute;
    simulationPass_ = recorder.resources().declarePass("compute: particles", simulation);
  }

  void record(FrameRecorder& recorder) override {
    const float t = recorder.time();
    if (recorder.frame() > 0 && recorder.frame() % 60 == 0) {
      recorder.resources().destroy(particles_);
      allocate(recorder.resources(), static_cast<uint32_t>(recorder.frame() / 60));
    }
    auto& main = recorder.main();

    auto& pipeline = main.add<cmd::BindPipeline>(
        simulationPass_, DrawKey::command(viewport::kComputeWork, 0, Translucency::Opaque, 0));
    pipeline.pipeline = compute_;
    REEL_TAG(main, &pipeline, "compute: particles");
    auto& storage = main.append<cmd::BindStorageBuffer>(&pipeline);
    storage.slot = 0;
    storage.buffer = particles_;
    auto& constants = appendPush(main, storage, ComputePush{count_, t});
    auto& dispatch = main.append<cmd::Dispatch>(&constants);
    dispatch.groupsX = (count_ + 63) / 64;
    dispatch.groupsY = dispatch.groupsZ = 1;

    // In the view: a dim background, then the particles the dispatch wrote.
    const uint32_t vp = view_.keyViewport;
    const PassId viewPass = recorder.viewPass(vp);
    auto& bg = main.add<cmd::BindPipeline>(viewPass, DrawKey::draw(vp, 1, Translucency::Opaque, {1, 0}, 0));
    bg.pipeline = background_;
    auto& bgTexture = appendTexture(main, bg, 0, assets_->texture(TextureId::Noise), assets_->linearRepeat);
    const SpritePush full{{0, 0, 2, 2}, {0.25f, 0.25f, 0.3f, 1}, {0.5f, 0, 0, 0}};
    auto& bgPush = appendPush(main, bgTexture, full);
    main.append<cmd::Draw>(&bgPush).vertexCount = 6;

    auto& particles =
        main.add<cmd::BindPipeline>(viewPass, DrawKey::draw(vp, 2, Translucency::Normal, {2, 0}, 0));
    particles.pipeline = draw_;
    auto& read = main.append<cmd::BindStorageBuffer>(&particles);
    read.slot = 0;
    read.buffer = particles_;
    auto& draw = main.append<cmd::DrawInstanced>(&read);
    draw.vertexCount = 6;
    draw.instanceCount = count_;
    REEL_TAG(main, &draw, "compute: particles drawn");
  }

 private:
  void allocate(ResourceContext& r, uint32_t generation) {
    count_ = baseCount_ / 2 + (baseCount_ / 2) * (generation % 3) / 2;
    particles_ = r.createBuffer({.size = uint64_t{count_} * 32, .usage = buffer_usage::kStorage});
  }

  const Assets* assets_ = nullptr;
  View view_;
  uint32_t baseCount_ = 0, count_ = 0;
  PipelineHandle compute_, draw_, background_;
  BufferHandle particles_;
  PassId simulationPass_;  // this frame's (declarePasses)
};

}  // namespace

std::unique_ptr<Scene> makeCompute() {
  return std::make_unique<Compute>();
}

}  // namespace reel::samples
