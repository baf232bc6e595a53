// deferred: a G-buffer pass (albedo, normal + specular, position + emission, depth) of textured cubes on
// a floor; screen-space ambient occlusion of the G-buffer in a compute dispatch and the sun's shadow map
// (a depth-only pass), which depend on nothing of each other; a compute dispatch that lights the G-buffer
// with them and writes HDR radiance into a storage buffer; then a post chain: a bright pass with a
// horizontal blur into a half-size target, a vertical blur into another, and a composite (bloom, tone
// curve, vignette) into the view on the frame image.
//
// Lighting is in compute because the binding model lets a dispatch sample textures (bindings 4-7 are
// visible to every stage) and write storage buffers that later draws read; the lit image is a buffer,
// not an image, because there are no storage images.
//
// Passes: the scene declares its six offscreen passes (G-buffer, occlusion in compute, shadow map,
// lighting in compute, bright pass, blur) and names one in each key; the renderer begins and ends them, in
// declaration order, before the app's view passes. The two compute passes prefer async compute: on a
// device with a compute queue the occlusion runs there beside the shadow map's pass on graphics (on one
// queue the shadow map's barrier, whose source is the compute stage that read it last frame, waits for
// the occlusion dispatch too). Inside each, keys keep the offscreen viewport (1) and order by layer as
// before: uploads and view state are layer-0 commands, draws layers 1, 3 and 5. The composite draws in the
// view's viewport (4, the post view's: this scene is not part of `default`), inside the pass the app opens on
// the frame image.
#include <algorithm>
#include <cstddef>
#include <span>

#include "assets.h"
#include "reel/samples/spirv.h"
#include "scene_util.h"

namespace reel::samples {
namespace {

constexpr uint32_t kMaxLights = 8;  // deferred_light.comp
// The sun's shadow map: twice the view's larger side, within these bounds.
constexpr uint32_t kMinShadowSize = 256, kMaxShadowSize = 2048;

struct ObjectPush {
  Mat4 model;
  float albedo[4];
  float material[4];  // specular strength, emission, texture repeat, unused
};
static_assert(sizeof(ObjectPush) == 96);

struct PointLight {
  float position[4];  // xyz, radius
  float color[4];     // rgb, intensity
};

// The `Lighting` uniform block of deferred_light.comp (std140).
struct LightingUniforms {
  float eye[4] = {};
  float sunDirection[4] = {-0.35f, -0.8f, -0.5f, 0.0f};
  float sunColor[4] = {0.2f, 0.22f, 0.32f, 1.0f};  // a moon: the point lights carry the scene
  float ambient[4] = {0.04f, 0.045f, 0.07f, 1.0f};
  float skyTop[4] = {0.02f, 0.025f, 0.07f, 1.0f};
  float skyBottom[4] = {0.12f, 0.08f, 0.14f, 1.0f};
  PointLight lights[kMaxLights] = {};
  Mat4 sunViewProj;
};
static_assert(sizeof(LightingUniforms) == 96 + 32 * kMaxLights + 64);

struct LightPush {
  uint32_t size[2];
  uint32_t lightCount;
  uint32_t unused;
};
struct OcclusionPush {
  uint32_t size[2];
  uint32_t unused[2];
  float eyeAndRadius[4];  // camera position; the sampling radius in pixels at distance 1
};
struct BrightPush {
  uint32_t size[2];
  float threshold;
  float unused;
};
struct CompositePush {
  uint32_t size[2];
  float exposure;
  float bloomStrength;
};

constexpr float kLightColors[kMaxLights][3] = {
    {1.0f, 0.45f, 0.2f}, {0.3f, 0.6f, 1.0f}, {0.4f, 1.0f, 0.45f}, {1.0f, 0.3f, 0.7f},
    {1.0f, 0.85f, 0.4f}, {0.5f, 0.4f, 1.0f}, {0.3f, 1.0f, 0.9f},  {1.0f, 0.5f, 0.5f},
};
constexpr TextureId kTextures[] = {TextureId::Checker, TextureId::Bricks, TextureId::Noise, TextureId::Rings};
constexpr uint32_t kTextureKinds = sizeof(kTextures) / sizeof(kTextures[0]);

// The scene's own shaders: created and destroyed with it, so that the other scenes' resources (and
// their traces) stay as they were.
template <size_t N>
ShaderHandle makeShader(ResourceContext& resources, ShaderStage stage, const uint32_t (&words)[N]) {
  return resources.createShader({.stage = stage}, std::as_bytes(std::span(words)));
}

Mat4 scaled(float x, float y, float z) {
  Mat4 m;
  m.at(0, 0) = x;
  m.at(1, 1) = y;
  m.at(2, 2) = z;
  return m;
}

class Deferred final : public Scene {
 public:
  void create(const SceneSetup& setup, const View& view) override {
    assets_ = &setup.assets;
    view_ = view;
    view_.keyViewport = viewport::kPost;
    view_.label = "deferred";
    count_ = setup.draws ? setup.draws : 96;
    auto& r = setup.resources;
    width_ = std::max(8u, view_.width);
    height_ = std::max(8u, view_.height);
    // Rounded up, so that the bright pass's 2 x 2 taps cover the last row and column of an odd size.
    halfWidth_ = (width_ + 1) / 2;
    halfHeight_ = (height_ + 1) / 2;

    shaders_.gbufferVert = makeShader(r, ShaderStage::Vertex, spirv::deferred_gbuffer_vert);
    shaders_.gbufferFrag = makeShader(r, ShaderStage::Fragment, spirv::deferred_gbuffer_frag);
    shaders_.occlusion = makeShader(r, ShaderStage::Compute, spirv::deferred_ao_comp);
    shaders_.light = makeShader(r, ShaderStage::Compute, spirv::deferred_light_comp);
    shaders_.bright = makeShader(r, ShaderStage::Fragment, spirv::deferred_bright_frag);
    shaders_.blur = makeShader(r, ShaderStage::Fragment, spirv::deferred_blur_frag);
    shaders_.composite = makeShader(r, ShaderStage::Fragment, spirv::deferred_composite_frag);

    // Every target is rewritten each frame before it is read: transient, so that those whose passes do
    // not overlap may share memory (the bright and blur targets with two of the G-buffer's).
    const auto target = [&](Format format, uint32_t w, uint32_t h) {
      return r.createTexture(
          {.width = w,
           .height = h,
           .mipLevels = 1,
           .format = format,
           .usage = texture_usage::kSampled | texture_usage::kColorTarget | texture_usage::kTransient});
    };
    albedo_ = target(Format::RGBA8Unorm, width_, height_);
    normal_ = target(Format::RGBA16Float, width_, height_);
    position_ = target(Format::RGBA16Float, width_, height_);
    depth_ = r.createTexture({.width = width_,
                              .height = height_,
                              .mipLevels = 1,
                              .format = kDepthFormat,
                              .usage = texture_usage::kDepthTarget | texture_usage::kTransient});
    RenderTargetDesc gbuffer{};
    gbuffer.colorCount = 3;
    gbuffer.colors[0] = albedo_;
    gbuffer.colors[1] = normal_;
    gbuffer.colors[2] = position_;
    gbuffer.depth = depth_;
    gbuffer_ = r.createRenderTarget(gbuffer);

    const uint32_t shadowSize = std::clamp(2 * std::max(width_, height_), kMinShadowSize, kMaxShadowSize);
    shadow_ = r.createTexture(
        {.width = shadowSize,
         .height = shadowSize,
         .mipLevels = 1,
         .format = kDepthFormat,
         .usage = texture_usage::kDepthTarget | texture_usage::kSampled | texture_usage::kTransient});
    RenderTargetDesc shadow{};
    shadow.depth = shadow_;
    shadowTarget_ = r.createRenderTarget(shadow);

    lit_ = r.createBuffer({.size = uint64_t{width_} * height_ * 16, .usage = buffer_usage::kStorage});
    occlusion_ = r.createBuffer({.size = uint64_t{width_} * height_ * 4, .usage = buffer_usage::kStorage});
    bright_ = target(Format::RGBA16Float, halfWidth_, halfHeight_);
    blurred_ = target(Format::RGBA16Float, halfWidth_, halfHeight_);
    RenderTargetDesc one{};
    one.colorCount = 1;
    one.colors[0] = bright_;
    brightTarget_ = r.createRenderTarget(one);
    one.colors[0] = blurred_;
    blurTarget_ = r.createRenderTarget(one);

    PipelineDesc objects{};
    objects.vertexShader = shaders_.gbufferVert;
    objects.fragmentShader = shaders_.gbufferFrag;
    objects.vertexStride = Assets::kCubeVertexStride;
    objects.attributeCount = 3;
    objects.attributes[0] = {0, 0, Format::RGB32Float};
    objects.attributes[1] = {1, 12, Format::RGB32Float};
    objects.attributes[2] = {2, 24, Format::RG32Float};
    objects.cullMode = CullMode::Back;
    objects.depthTest = true;
    objects.depthWrite = true;
    objects.depthCompare = CompareOp::Less;
    objects.colorCount = 3;
    objects.colorFormats[0] = Format::RGBA8Unorm;
    objects.colorFormats[1] = Format::RGBA16Float;
    objects.colorFormats[2] = Format::RGBA16Float;
    objects.depthFormat = kDepthFormat;
    objects.pushConstantBytes = sizeof(ObjectPush);
    objectsPipeline_ = r.createPipeline(objects);
    // The shadow map: the same vertices, depth only; front faces culled, so that a lit face does not
    // shadow itself.
    PipelineDesc shadowCaster = objects;
    shadowCaster.fragmentShader = {};
    shadowCaster.colorCount = 0;
    for (Format& f : shadowCaster.colorFormats) f = Format::Undefined;
    shadowCaster.cullMode = CullMode::Front;
    shadowPipeline_ = r.createPipeline(shadowCaster);

    PipelineDesc occlusion{};
    occlusion.computeShader = shaders_.occlusion;
    occlusion.pushConstantBytes = sizeof(OcclusionPush);
    occlusionPipeline_ = r.createPipeline(occlusion);
    PipelineDesc light{};
    light.computeShader = shaders_.light;
    light.pushConstantBytes = sizeof(LightPush);
    lightPipeline_ = r.createPipeline(light);
    brightPipeline_ = r.createPipeline(
        assets_->fullscreenDesc(shaders_.bright, Format::RGBA16Float, Format::Undefined, sizeof(BrightPush)));
    blurPipeline_ =
        r.createPipeline(assets_->fullscreenDesc(shaders_.blur, Format::RGBA16Float, Format::Undefined, 0));
    // The frame's pass has a depth attachment; the composite ignores it.
    compositePipeline_ = r.createPipeline(
        assets_->fullscreenDesc(shaders_.composite, kColorFormat, kDepthFormat, sizeof(CompositePush)));

    camera_ = createUniformBuffer(r, sizeof(CameraUniforms));
    sunCamera_ = createUniformBuffer(r, sizeof(CameraUniforms));
    lighting_ = createUniformBuffer(r, sizeof(LightingUniforms));
  }

  void destroy(ResourceContext& r) override {
    for (RenderTargetHandle t : {gbuffer_, shadowTarget_, brightTarget_, blurTarget_}) r.destroy(t);
    for (TextureHandle t : {albedo_, normal_, position_, depth_, shadow_, bright_, blurred_}) r.destroy(t);
    for (PipelineHandle p : {objectsPipeline_, shadowPipeline_, occlusionPipeline_, lightPipeline_,
                             brightPipeline_, blurPipeline_, compositePipeline_}) {
      r.destroy(p);
    }
    for (ShaderHandle s : {shaders_.gbufferVert, shaders_.gbufferFrag, shaders_.occlusion, shaders_.light,
                           shaders_.bright, shaders_.blur, shaders_.composite}) {
      r.destroy(s);
    }
    for (BufferHandle b : {lit_, occlusion_, camera_, sunCamera_, lighting_}) r.destroy(b);
  }

  void views(std::vector<View>& out) const override { out.push_back(view_); }

  void record(FrameRecorder& recorder) override {
    const float t = recorder.time();
    auto& main = recorder.main();
    viewPass_ = recorder.viewPass(view_.keyViewport);
    recordGBuffer(main, t);
    recordOcclusion(main);
    recordShadowMap(main);
    recordLighting(main);
    recordPostChain(main);
  }

 private:
  static constexpr uint32_t kVp = viewport::kOffscreen;
  static constexpr float kFar = 60.0f;

  static DrawKey command(uint32_t layer, uint32_t priority) {
    return DrawKey::command(kVp, layer, Translucency::Opaque, priority);
  }

  // The offscreen passes, in the order they run; the renderer begins and ends each around its keys.
  // The composite draws in the app's view pass on the frame image, declared after these.
  void declarePasses(FrameRecorder& recorder) override {
    ResourceContext& resources = recorder.resources();
    // Cleared to 0: albedo alpha 0 is no geometry, where the lighting draws sky.
    gbufferPass_ =
        resources.declarePass("deferred: G-buffer", passInto(gbuffer_, LoadOp::Clear, {0, 0, 0, 0}));
    PassDesc compute;  // no target: a compute pass
    compute.queue = QueueClass::AsyncCompute;
    occlusionPass_ = resources.declarePass("deferred: ambient occlusion (compute)", compute);
    shadowPass_ =
        resources.declarePass("deferred: sun shadow map", passInto(shadowTarget_, LoadOp::Clear, {}));
    lightingPass_ = resources.declarePass("deferred: lighting (compute)", compute);
    // The full-screen passes write every pixel: nothing to load or clear.
    PassDesc fullScreen;
    fullScreen.colorLoad = LoadOp::DontCare;
    fullScreen.depthLoad = LoadOp::DontCare;
    fullScreen.target = brightTarget_;
    brightPass_ = resources.declarePass("deferred: bright pass", fullScreen);
    fullScreen.target = blurTarget_;
    blurPass_ = resources.declarePass("deferred: blur", fullScreen);
  }

  void recordGBuffer(CommandBucket<DrawKey>& main, float t) {
    const Vec3 eye{14.0f * std::cos(t * 0.15f), 7.5f, 14.0f * std::sin(t * 0.15f)};
    eye_ = eye;
    const Mat4 view = Mat4::lookAt(eye, {0, 0.5f, 0}, {0, 1, 0});
    CameraUniforms camera;
    camera.viewProj = Mat4::perspective(0.9f, float(width_) / float(height_), 0.1f, kFar) * view;
    camera.params[0] = t;
    recordUniforms(main, kVp, camera_, camera, gbufferPass_);

    LightingUniforms lighting;
    lighting.eye[0] = eye.x, lighting.eye[1] = eye.y, lighting.eye[2] = eye.z;
    // The sun's view: orthographic over the floor, from far enough along its direction to see every cube.
    const Vec3 sunDirection =
        normalize({lighting.sunDirection[0], lighting.sunDirection[1], lighting.sunDirection[2]});
    const Mat4 sunView = Mat4::lookAt(sunDirection * -30.0f, {0, 0, 0}, {0, 1, 0});
    CameraUniforms sun;
    sun.viewProj = orthographic(17.0f, 1.0f, 60.0f) * sunView;
    lighting.sunViewProj = sun.viewProj;
    recordUniforms(main, kVp, sunCamera_, sun, gbufferPass_);
    for (uint32_t i = 0; i < kMaxLights; ++i) {
      PointLight& l = lighting.lights[i];
      const float a = float(i) / float(kMaxLights) * 6.2831853f + t * (0.4f + 0.1f * float(i % 3));
      const float radius = 3.0f + 3.5f * hash01(i, 20);
      l.position[0] = radius * std::cos(a);
      l.position[1] = 0.6f + 0.8f * hash01(i, 21) + 0.3f * std::sin(t * 1.3f + float(i));
      l.position[2] = radius * std::sin(a);
      l.position[3] = 6.5f;
      std::memcpy(l.color, kLightColors[i], sizeof kLightColors[i]);
      l.color[3] = 3.0f;
      lightPositions_[i] = {l.position[0], l.position[1], l.position[2]};
    }
    auto& upload =
        main.addWithData<cmd::UpdateBuffer>(gbufferPass_, keys::uploads(kVp), &lighting, sizeof lighting);
    upload.buffer = lighting_;
    REEL_TAG(main, &upload, "deferred: lights");

    bindCubes(main, gbufferPass_, camera_, objectsPipeline_);

    ObjectPush floor{};
    floor.model = Mat4::translation({0, -0.1f, 0}) * scaled(24.0f, 0.2f, 24.0f);
    const float floorAlbedo[4] = {0.55f, 0.55f, 0.6f, 1}, floorMaterial[4] = {0.6f, 0, 8.0f, 0};
    std::memcpy(floor.albedo, floorAlbedo, sizeof floorAlbedo);
    std::memcpy(floor.material, floorMaterial, sizeof floorMaterial);
    recordObject(main, view, {0, 0, 0}, 0, floor);

    // Cubes on a spiral, bobbing and turning.
    for (uint32_t i = 0; i < count_; ++i) {
      const float f = float(i) + 0.5f;
      const float radius = 1.6f + 8.0f * std::sqrt(f / float(count_));
      const float angle = f * 2.39996f;  // the golden angle: an even spread
      const float size = 0.45f + 0.5f * hash01(i, 1);
      const Vec3 position{radius * std::cos(angle), size * 0.5f + 0.15f + 0.15f * std::sin(t * 1.5f + f),
                          radius * std::sin(angle)};
      ObjectPush push{};
      push.model = Mat4::translation(position) * Mat4::rotation({0, 1, 0}, t * (0.3f + hash01(i, 2)) + f) *
                   Mat4::scale(size);
      const float albedo[4] = {0.55f + 0.45f * hash01(i, 3), 0.55f + 0.45f * hash01(i, 4),
                               0.55f + 0.45f * hash01(i, 5), 1};
      const float material[4] = {0.2f + 0.8f * hash01(i, 6), 0, 1, 0};
      std::memcpy(push.albedo, albedo, sizeof albedo);
      std::memcpy(push.material, material, sizeof material);
      recordObject(main, view, position, 1 + hash(i) % kTextureKinds, push);
    }

    // The lights themselves: small emissive cubes, bright enough to bloom.
    for (uint32_t i = 0; i < kMaxLights; ++i) {
      ObjectPush push{};
      push.model = Mat4::translation(lightPositions_[i]) * Mat4::rotation(normalize({1, 1, 0}), t * 2.0f) *
                   Mat4::scale(0.22f);
      std::memcpy(push.albedo, kLightColors[i], sizeof kLightColors[i]);
      push.albedo[3] = 1;
      const float material[4] = {0, 6.0f, 1, 0};
      std::memcpy(push.material, material, sizeof material);
      recordObject(main, view, lightPositions_[i], kTextureKinds + 1, push);
    }
  }

  // The cube mesh, the camera and the pipeline the draws of `pass` use, set at its start.
  void bindCubes(CommandBucket<DrawKey>& main, PassId pass, BufferHandle camera, PipelineHandle pipeline) {
    auto& uniform = main.add<cmd::BindUniformBuffer>(pass, keys::viewSetup(kVp));
    uniform.slot = 0;
    uniform.buffer = camera;
    auto& vertices = main.append<cmd::BindVertexBuffer>(&uniform);
    vertices.buffer = assets_->cubeVertices;
    auto& indices = main.append<cmd::BindIndexBuffer>(&vertices);
    indices.buffer = assets_->cubeIndices;
    indices.indexType = IndexType::U16;
    main.append<cmd::BindPipeline>(&indices).pipeline = pipeline;
  }

  // A dispatch of one invocation per pixel of the G-buffer (8 x 8 groups, deferred_*.comp), after `last`.
  void dispatchPerPixel(CommandBucket<DrawKey>& main, cmd::PushConstants& last) {
    auto& dispatch = main.append<cmd::Dispatch>(&last);
    dispatch.groupsX = (width_ + 7) / 8;
    dispatch.groupsY = (height_ + 7) / 8;
    dispatch.groupsZ = 1;
  }

  // material: 0 the floor, 1..4 the cube textures, 5 the light markers (white texture).
  void recordObject(CommandBucket<DrawKey>& main, const Mat4& view, Vec3 position, uint32_t material,
                    const ObjectPush& push) {
    const TextureId texture = material == 0               ? TextureId::Checker
                              : material <= kTextureKinds ? kTextures[material - 1]
                                                          : TextureId::White;
    const uint32_t depth = DrawKey::quantizeDepth(viewDepth01(view, position, kFar));
    auto& bind = main.add<cmd::BindTexture>(
        gbufferPass_, DrawKey::draw(kVp, 1, Translucency::Opaque, {material + 1, 0}, depth));
    bind.slot = 0;
    bind.texture = assets_->texture(texture);
    bind.sampler = assets_->linearRepeat;
    auto& constants = appendPush(main, bind, push);
    main.append<cmd::DrawIndexed>(&constants).indexCount = Assets::kCubeIndexCount;
    if (material <= kTextureKinds) casters_.push_back(push);  // the floor and the cubes; not the lights
  }

  // Ambient occlusion of the G-buffer: needs nothing but it, so it is a pass of its own that may run
  // beside the shadow map's.
  void recordOcclusion(CommandBucket<DrawKey>& main) {
    auto& pipeline = main.add<cmd::BindPipeline>(occlusionPass_, command(2, 0));
    pipeline.pipeline = occlusionPipeline_;
    REEL_TAG(main, &pipeline, "deferred: ambient occlusion (compute)");
    auto& normal = appendTexture(main, pipeline, 0, normal_, assets_->nearestClamp);
    auto& position = appendTexture(main, normal, 1, position_, assets_->nearestClamp);
    auto& output = main.append<cmd::BindStorageBuffer>(&position);
    output.slot = 1;
    output.buffer = occlusion_;
    // 0.6 world units around the point, in pixels at distance 1 (the camera's 0.9 rad field of view).
    const float radius = 0.6f * 0.5f * float(height_) / std::tan(0.45f);
    auto& constants =
        appendPush(main, output, OcclusionPush{{width_, height_}, {0, 0}, {eye_.x, eye_.y, eye_.z, radius}});
    dispatchPerPixel(main, constants);
  }

  // The sun's shadow map: the floor and the cubes again, depth only, from the sun.
  void recordShadowMap(CommandBucket<DrawKey>& main) {
    bindCubes(main, shadowPass_, sunCamera_, shadowPipeline_);
    for (uint32_t i = 0; i < casters_.size(); ++i) {
      auto& constants = main.addWithData<cmd::PushConstants>(
          shadowPass_, DrawKey::draw(kVp, 1, Translucency::Opaque, {1, 0}, i), &casters_[i],
          sizeof(ObjectPush));
      main.append<cmd::DrawIndexed>(&constants).indexCount = Assets::kCubeIndexCount;
    }
    casters_.clear();
  }

  void recordLighting(CommandBucket<DrawKey>& main) {
    // The dispatch samples the G-buffer: a pass of its own, after the G-buffer's.
    auto& pipeline = main.add<cmd::BindPipeline>(lightingPass_, command(2, 0));
    pipeline.pipeline = lightPipeline_;
    REEL_TAG(main, &pipeline, "deferred: lighting (compute)");
    const TextureHandle inputs[] = {albedo_, normal_, position_, shadow_};
    cmd::BindTexture* previous = &appendTexture(main, pipeline, 0, inputs[0], assets_->nearestClamp);
    for (uint32_t slot = 1; slot < 4; ++slot)
      previous = &appendTexture(main, *previous, slot, inputs[slot], assets_->nearestClamp);
    auto& lights = main.append<cmd::BindUniformBuffer>(previous);
    lights.slot = 1;
    lights.buffer = lighting_;
    auto& output = main.append<cmd::BindStorageBuffer>(&lights);
    output.slot = 0;
    output.buffer = lit_;
    auto& occlusion = main.append<cmd::BindStorageBuffer>(&output);
    occlusion.slot = 1;
    occlusion.buffer = occlusion_;
    auto& constants = appendPush(main, occlusion, LightPush{{width_, height_}, kMaxLights, 0});
    dispatchPerPixel(main, constants);
  }

  void recordPostChain(CommandBucket<DrawKey>& main) {
    // Bright pass: reads the lit buffer that the dispatch wrote.
    auto& bright =
        main.add<cmd::BindPipeline>(brightPass_, DrawKey::draw(kVp, 3, Translucency::Opaque, {1, 0}, 0));
    bright.pipeline = brightPipeline_;
    auto& brightInput = main.append<cmd::BindStorageBuffer>(&bright);
    brightInput.slot = 0;
    brightInput.buffer = lit_;
    auto& brightPush = appendPush(main, brightInput, BrightPush{{width_, height_}, 0.9f, 0});
    main.append<cmd::Draw>(&brightPush).vertexCount = 3;

    // Vertical blur of the bright pass.
    auto& blur =
        main.add<cmd::BindPipeline>(blurPass_, DrawKey::draw(kVp, 5, Translucency::Opaque, {1, 0}, 0));
    blur.pipeline = blurPipeline_;
    auto& blurInput = appendTexture(main, blur, 0, bright_, assets_->linearClamp);
    main.append<cmd::Draw>(&blurInput).vertexCount = 3;

    // Composite, in the view on the frame image.
    auto& composite = main.add<cmd::BindPipeline>(
        viewPass_, DrawKey::draw(view_.keyViewport, 1, Translucency::Opaque, {1, 0}, 0));
    composite.pipeline = compositePipeline_;
    auto& litInput = main.append<cmd::BindStorageBuffer>(&composite);
    litInput.slot = 0;
    litInput.buffer = lit_;
    auto& bloomInput = appendTexture(main, litInput, 0, blurred_, assets_->linearClamp);
    auto& compositePush = appendPush(main, bloomInput, CompositePush{{width_, height_}, 1.1f, 0.8f});
    auto& draw = main.append<cmd::Draw>(&compositePush);
    draw.vertexCount = 3;
    REEL_TAG(main, &draw, "deferred: composite");
  }

  // Vulkan clip space, as Mat4::perspective: a cube of half-width `half` around the view axis, depth 0..1
  // from `nearZ` to `farZ`.
  static Mat4 orthographic(float half, float nearZ, float farZ) {
    Mat4 r;
    r.at(0, 0) = 1.0f / half;
    r.at(1, 1) = -1.0f / half;
    r.at(2, 2) = 1.0f / (nearZ - farZ);
    r.at(2, 3) = nearZ / (nearZ - farZ);
    return r;
  }

  struct Shaders {
    ShaderHandle gbufferVert, gbufferFrag, occlusion, light, bright, blur, composite;
  };

  const Assets* assets_ = nullptr;
  View view_;
  uint32_t count_ = 0;
  uint32_t width_ = 0, height_ = 0, halfWidth_ = 0, halfHeight_ = 0;
  Shaders shaders_;
  TextureHandle albedo_, normal_, position_, depth_, shadow_, bright_, blurred_;
  RenderTargetHandle gbuffer_, shadowTarget_, brightTarget_, blurTarget_;
  // This frame's (declarePasses).
  PassId gbufferPass_, occlusionPass_, shadowPass_, lightingPass_, brightPass_, blurPass_;
  PassId viewPass_;
  BufferHandle lit_, occlusion_, camera_, sunCamera_, lighting_;
  PipelineHandle objectsPipeline_, shadowPipeline_, occlusionPipeline_, lightPipeline_, brightPipeline_,
      blurPipeline_, compositePipeline_;
  Vec3 lightPositions_[kMaxLights];
  Vec3 eye_;
  std::vector<ObjectPush> casters_;  // this frame's shadow casters (recordObject)
};

}  // namespace

std::unique_ptr<Scene> makeDeferred() {
  return std::make_unique<Deferred>();
}

}  // namespace reel::samples
