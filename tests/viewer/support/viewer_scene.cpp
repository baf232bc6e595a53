#include "viewer_scene.h"

#include <cstring>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/viewer_tests/spirv.h"

namespace reel::viewer::testing {
namespace {

struct QuadPush {
  float rect[4];
  float color[4];
  float params[4];
};

template <typename T, size_t N>
std::span<const std::byte> bytesOf(const T (&words)[N]) {
  return {reinterpret_cast<const std::byte*>(words), sizeof words};
}

}  // namespace

ViewerScene::ViewerScene(Renderer& renderer, SceneOptions options)
    : renderer_(renderer),
      options_(options),
      world_(renderer.createBucket<DrawKey>("world")),
      copies_(renderer.createBucket<uint32_t>("copies")) {}

void ViewerScene::createResources() {
  ResourceContext& rc = renderer_.resources();
  const uint32_t w = options_.width, h = options_.height;
  color_ = rc.createTexture({w, h, 1, Format::RGBA8Unorm,
                             texture_usage::kColorTarget | texture_usage::kSampled |
                                 texture_usage::kTransferSrc | texture_usage::kTransferDst});
  depth_ = rc.createTexture(
      {w, h, 1, Format::D32Float, texture_usage::kDepthTarget | texture_usage::kTransferSrc});
  RenderTargetDesc target{};
  target.colorCount = 1;
  target.colors[0] = color_;
  target.depth = depth_;
  target_ = rc.createRenderTarget(target);
  const uint32_t usage = texture_usage::kSampled | texture_usage::kTransferSrc | texture_usage::kTransferDst;
  tilesSource_ = rc.createTexture({32, 8, 1, Format::RGBA8Unorm, usage});
  std::vector<std::byte> grey(32 * 32 * 4, std::byte{40});
  tilesDestination_ = rc.createTexture({32, 32, 1, Format::RGBA8Unorm, usage}, grey);
  buffer_ =
      rc.createBuffer({256, buffer_usage::kUniform | buffer_usage::kTransferDst | buffer_usage::kTransferSrc,
                       MemoryDomain::Device});
  const ShaderHandle vs = rc.createShader({ShaderStage::Vertex}, bytesOf(spirv::quad_vert));
  const ShaderHandle fs = rc.createShader({ShaderStage::Fragment}, bytesOf(spirv::quad_frag));
  PipelineDesc p{};
  p.vertexShader = vs;
  p.fragmentShader = fs;
  p.topology = Topology::TriangleList;
  p.cullMode = CullMode::None;
  p.blend = BlendMode::Opaque;
  p.depthTest = true;
  p.depthWrite = true;
  p.depthCompare = CompareOp::Less;
  p.colorCount = 1;
  p.colorFormats[0] = Format::RGBA8Unorm;
  p.depthFormat = Format::D32Float;
  p.pushConstantBytes = sizeof(QuadPush);
  opaque_ = rc.createPipeline(p);
  p.blend = BlendMode::Alpha;
  p.depthWrite = false;
  blended_ = rc.createPipeline(p);
}

void ViewerScene::record() {
  const uint64_t f = renderer_.recordingFrame();
  ResourceContext& rc = renderer_.resources();
  if (color_.isNull()) createResources();

  // The tiles the copies take from: four 8x8 tiles of colours that change every frame.
  std::vector<std::byte> tiles(32 * 8 * 4);
  for (uint32_t y = 0; y < 8; ++y) {
    for (uint32_t x = 0; x < 32; ++x) {
      const uint32_t tile = x / 8;
      std::byte* p = tiles.data() + (y * 32 + x) * 4;
      p[0] = static_cast<std::byte>(60 * tile + 20);
      p[1] = static_cast<std::byte>((f * 50 + x * 3) & 0xff);
      p[2] = static_cast<std::byte>(200 - 40 * tile);
      p[3] = std::byte{255};
    }
  }
  rc.writeTexture(tilesSource_, 0, 0, 0, 32, 8, tiles);
  if (f == 1) {
    temporary_ = rc.createTexture({4, 4, 1, Format::RGBA16Float, texture_usage::kSampled});
    temporarySampler_ =
        rc.createSampler({Filter::Nearest, Filter::Linear, AddressMode::Repeat, AddressMode::Repeat});
  }
  if (f == 2 && !temporary_.isNull()) {
    rc.destroy(temporary_);
    rc.destroy(temporarySampler_);
    temporary_ = {};
  }

  const float clear = 0.1f + 0.05f * static_cast<float>(f % 4);
  auto& begin = world_.add<cmd::BeginRenderPass>(DrawKey::command(0, 0, Translucency::Opaque, 0));
  begin.target = target_;
  begin.colorLoad = LoadOp::Clear;
  begin.depthLoad = LoadOp::Clear;
  begin.clearColor[0] = clear;
  begin.clearColor[1] = 0.12f;
  begin.clearColor[2] = 0.2f;
  begin.clearColor[3] = 1.0f;
  begin.clearDepth = 1.0f;
  REEL_TAG(world_, &begin, "main pass");

  auto& viewport = world_.createShared<cmd::SetViewport>();
  viewport.width = static_cast<float>(options_.width);
  viewport.height = static_cast<float>(options_.height);
  viewport.maxDepth = 1.0f;
  for (uint32_t layer = 0; layer < 2; ++layer) {
    PacketHeader& ref = world_.addShared(DrawKey::command(0, layer, Translucency::Opaque, 1), viewport);
    auto& scissor = world_.append<cmd::SetScissor>(ref);
    scissor.width = options_.width;
    scissor.height = options_.height;
  }

  for (uint32_t i = 0; i < options_.draws; ++i) {
    const bool blended = i == options_.draws - 1;
    const uint32_t material = blended ? 9 : i % 3;
    // Depth order opposite to recording order in part, so that sorting moves packets around.
    const float depth = 0.1f + 0.1f * static_cast<float>((i * 5 + f) % 8);
    const DrawKey key = DrawKey::draw(0, 1, blended ? Translucency::Normal : Translucency::Opaque,
                                      {material, 0}, DrawKey::quantizeDepth(depth));
    auto& bind = world_.add<cmd::BindPipeline>(key);
    bind.pipeline = blended ? blended_ : opaque_;
    auto& push = world_.append<cmd::PushConstants>(&bind, sizeof(QuadPush));
    QuadPush q{};
    const float cx = -0.7f + 0.22f * static_cast<float>(i) + 0.02f * static_cast<float>(f % 3);
    const float cy = -0.4f + 0.13f * static_cast<float>(i % 4);
    q.rect[0] = cx;
    q.rect[1] = cy;
    q.rect[2] = blended ? 1.2f : 0.5f;
    q.rect[3] = blended ? 0.5f : 0.7f;
    q.color[0] = static_cast<float>((i * 97) % 255) / 255.0f;
    q.color[1] = static_cast<float>((i * 57 + 80) % 255) / 255.0f;
    q.color[2] = static_cast<float>((i * 31 + 160) % 255) / 255.0f;
    q.color[3] = blended ? 0.5f : 1.0f;
    q.params[0] = depth;
    std::memcpy(world_.aux(push).data(), &q, sizeof q);
    auto& draw = world_.append<cmd::Draw>(&push);
    draw.vertexCount = 6;
    REEL_TAG(world_, &draw, ("quad " + std::to_string(i)).c_str());
  }
  world_.add<cmd::EndRenderPass>(DrawKey::command(0, 15, Translucency::Opaque, 0));

  // Copies: tile t to (8 * ((t + f) % 4), 8 * t); keys in an order other than recording order.
  for (uint32_t t = 0; t < options_.copies; ++t) {
    auto& copy = copies_.add<cmd::CopyTexture>((options_.copies - t) * 10);
    copy.source = tilesSource_;
    copy.destination = tilesDestination_;
    copy.sourceX = static_cast<int32_t>(8 * (t % 4));
    copy.destinationX = static_cast<int32_t>(8 * ((t + f) % 4));
    copy.destinationY = static_cast<int32_t>(8 * (t % 4));
    copy.width = 8;
    copy.height = 8;
    REEL_TAG(copies_, &copy, "tile");
  }
  uint8_t bytes[32];
  for (uint32_t b = 0; b < sizeof bytes; ++b) bytes[b] = static_cast<uint8_t>(f * 7 + b);
  auto& update = copies_.addWithData<cmd::UpdateBuffer>(1000, bytes, sizeof bytes);
  update.buffer = buffer_;
  update.offset = 16;
}

SceneHandles sceneHandles(SceneOptions options) {
  NullDevice device;
  Renderer renderer(device);
  ViewerScene scene(renderer, options);
  scene.record();
  return {scene.color().value, scene.tiles().value, scene.target().value};
}

Result<void> captureScene(const std::string& path, Device& device, uint32_t frames, uint64_t firstFrame,
                          SceneOptions options) {
  Renderer renderer(device);
  ViewerScene scene(renderer, options);
  capture::CaptureOptions o;
  o.path = path;
  o.appName = "viewer_scene";
  o.firstFrame = firstFrame;
  o.handleSignals = false;
  auto capture = capture::Capture::start(renderer, o);
  if (!capture) return capture.error();
  for (uint32_t f = 0; f < frames; ++f) scene.frame();
  if (auto ok = capture.value()->finish(); !ok) return ok;
  renderer.flushAndWait();
  const auto errors = device.takeErrors();
  if (!errors.empty()) return fail("the scene itself caused device errors, the first: ", errors.front());
  return {};
}

}  // namespace reel::viewer::testing
