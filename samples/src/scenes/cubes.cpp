// cubes: N textured, lit cubes (--draws, default 2000) over six materials (two pipelines x three
// textures), opaque, sorted by material then front to back; recorded by every worker thread.
#include "assets.h"
#include "scene_util.h"

namespace reel::samples {
namespace {

struct Material {
  uint32_t pipeline;  // 0: lit, 1: toon
  TextureId texture;
  float tint[4];
};
constexpr Material kMaterials[] = {
    {0, TextureId::Checker, {1.0f, 1.0f, 1.0f, 1}}, {0, TextureId::Bricks, {1.0f, 0.95f, 0.9f, 1}},
    {0, TextureId::Noise, {0.9f, 1.0f, 0.9f, 1}},   {1, TextureId::Checker, {1.0f, 0.8f, 0.6f, 1}},
    {1, TextureId::Bricks, {0.8f, 0.9f, 1.0f, 1}},  {1, TextureId::Rings, {1.0f, 1.0f, 1.0f, 1}},
};
constexpr uint32_t kMaterialCount = sizeof(kMaterials) / sizeof(kMaterials[0]);

struct CubePush {
  Mat4 model;
  float tint[4];
};
static_assert(sizeof(CubePush) == 80);

class Cubes final : public Scene {
 public:
  void create(const SceneSetup& setup, const View& view) override {
    assets_ = &setup.assets;
    view_ = view;
    view_.keyViewport = viewport::kCubes;
    view_.label = "cubes";
    count_ = setup.draws ? setup.draws : 2000;
    side_ = 1;
    while (side_ * side_ * side_ < count_) ++side_;
    pipelines_[0] = setup.resources.createPipeline(setup.assets.meshDesc(false, kColorFormat, kDepthFormat));
    pipelines_[1] = setup.resources.createPipeline(setup.assets.meshDesc(true, kColorFormat, kDepthFormat));
    camera_ = createUniformBuffer(setup.resources, sizeof(CameraUniforms));
  }

  void destroy(ResourceContext& resources) override {
    for (PipelineHandle p : pipelines_) resources.destroy(p);
    resources.destroy(camera_);
  }

  void views(std::vector<View>& out) const override { out.push_back(view_); }

  // The camera's upload in a pass of its own that prefers the transfer queue: on a device with one, the
  // update runs there and the view pass waits for it.
  void declarePasses(FrameRecorder& recorder) override {
    PassDesc uploads;  // no target
    uploads.queue = QueueClass::Transfer;
    uploadPass_ = recorder.resources().declarePass("cubes: uploads", uploads);
  }

  void record(FrameRecorder& recorder) override {
    const float t = recorder.time();
    const uint32_t vp = view_.keyViewport;
    const float extent = float(side_) * kSpacing;
    const float radius = extent * 1.1f + 3.0f;
    const Vec3 eye{radius * std::cos(t * 0.2f), radius * 0.55f, radius * std::sin(t * 0.2f)};
    const float farZ = radius * 3.0f;
    view_matrix_ = Mat4::lookAt(eye, {0, 0, 0}, {0, 1, 0});
    CameraUniforms camera;
    camera.viewProj = Mat4::perspective(1.0f, view_.aspect(), 0.1f, farZ) * view_matrix_;
    camera.params[0] = t;
    auto& main = recorder.main();
    pass_ = recorder.viewPass(vp);
    recordUniforms(main, vp, camera_, camera, uploadPass_);

    // View state, once: every cube shares the mesh and the camera.
    auto& uniform = main.add<cmd::BindUniformBuffer>(pass_, keys::viewSetup(vp));
    uniform.slot = 0;
    uniform.buffer = camera_;
    auto& vertices = main.append<cmd::BindVertexBuffer>(&uniform);
    vertices.buffer = assets_->cubeVertices;
    auto& indices = main.append<cmd::BindIndexBuffer>(&vertices);
    indices.buffer = assets_->cubeIndices;
    indices.indexType = IndexType::U16;

    recorder.parallel(count_, [&](CommandBucket<DrawKey>& bucket, uint32_t begin, uint32_t end) {
      // Material headers: shared packets of this bucket, referenced by every cube of the material.
      cmd::BindPipeline* headers[kMaterialCount];
      for (uint32_t m = 0; m < kMaterialCount; ++m) {
        headers[m] = &bucket.createShared<cmd::BindPipeline>();
        headers[m]->pipeline = pipelines_[kMaterials[m].pipeline];
      }
      for (uint32_t i = begin; i < end; ++i) {
        recordCube(bucket, *headers[hash(i) % kMaterialCount], i, t, farZ);
      }
    });
  }

 private:
  static constexpr float kSpacing = 2.2f;

  void recordCube(CommandBucket<DrawKey>& bucket, const cmd::BindPipeline& header, uint32_t i, float t,
                  float farZ) {
    const uint32_t material = hash(i) % kMaterialCount;
    const uint32_t x = i % side_, y = (i / side_) % side_, z = i / (side_ * side_);
    const float half = float(side_ - 1) * 0.5f;
    const Vec3 position{(float(x) - half) * kSpacing,
                        (float(y) - half) * kSpacing + 0.3f * std::sin(t + float(i)),
                        (float(z) - half) * kSpacing};
    const Vec3 axis = normalize(Vec3{hash01(i, 1) - 0.5f, hash01(i, 2) - 0.5f, hash01(i, 3) - 0.5f + 0.01f});
    CubePush push;
    push.model = Mat4::translation(position) * Mat4::rotation(axis, t * (0.5f + hash01(i, 4)) + float(i)) *
                 Mat4::scale(0.9f + 0.5f * hash01(i, 5));
    std::memcpy(push.tint, kMaterials[material].tint, sizeof push.tint);

    const uint32_t depth = DrawKey::quantizeDepth(viewDepth01(view_matrix_, position, farZ));
    PacketHeader& ref = bucket.addShared(
        pass_, DrawKey::draw(view_.keyViewport, 1, Translucency::Opaque, {material + 1, 0}, depth), header);
    auto& texture = bucket.append<cmd::BindTexture>(ref);
    texture.slot = 0;
    texture.texture = assets_->texture(kMaterials[material].texture);
    texture.sampler = assets_->linearRepeat;
    auto& constants = appendPush(bucket, texture, push);
    auto& draw = bucket.append<cmd::DrawIndexed>(&constants);
    draw.indexCount = Assets::kCubeIndexCount;
    if (i % 256 == 0) REEL_TAG(bucket, &draw, "cube");  // a tag per block of cubes: tags cost an allocation
  }

  const Assets* assets_ = nullptr;
  View view_;
  uint32_t count_ = 0, side_ = 1;
  PipelineHandle pipelines_[2];
  BufferHandle camera_;
  Mat4 view_matrix_;
  PassId pass_;        // this frame's view pass
  PassId uploadPass_;  // this frame's uploads
};

}  // namespace

std::unique_ptr<Scene> makeCubes() {
  return std::make_unique<Cubes>();
}

}  // namespace reel::samples
