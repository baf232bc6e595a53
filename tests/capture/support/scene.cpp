#include "scene.h"

#include <cstring>

namespace reel::testing {
namespace {

std::vector<std::byte> pattern(size_t size, uint32_t seed) {
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>((i * 7 + seed * 13) & 0xff);
  return bytes;
}

template <typename T>
std::span<const std::byte> asBytes(const T& value) {
  return {reinterpret_cast<const std::byte*>(&value), sizeof value};
}

}  // namespace

Scene::Scene(Renderer& renderer, SceneOptions options)
    : renderer_(renderer),
      options_(options),
      world_(renderer.createBucket<DrawKey>("world")),
      compute_(renderer.createBucket<uint32_t>("compute")),
      post_(renderer.createBucket<uint64_t>("post")),
      ui_(renderer.createBucket<uint16_t>("ui")),
      tiny_(renderer.createBucket<uint8_t>("tiny")) {}

void Scene::createResources() {
  ResourceContext& rc = renderer_.resources();
  tracked_ = pattern(256, 1);
  buffers_.push_back(rc.createBuffer(
      {256, buffer_usage::kVertex | buffer_usage::kTransferSrc, MemoryDomain::Device}, tracked_));
  buffers_.push_back(rc.createBuffer({128, buffer_usage::kIndex, MemoryDomain::Device}, pattern(128, 2)));
  buffers_.push_back(rc.createBuffer({256, buffer_usage::kUniform, MemoryDomain::HostUpload}));
  buffers_.push_back(
      rc.createBuffer({512, buffer_usage::kStorage | buffer_usage::kTransferDst, MemoryDomain::Device}));
  textures_.push_back(
      rc.createTexture({8, 8, 2, Format::RGBA8Unorm, texture_usage::kSampled | texture_usage::kColorTarget},
                       pattern(8 * 8 * 4, 3)));
  textures_.push_back(rc.createTexture({8, 8, 1, Format::RGBA8Unorm, texture_usage::kTransferDst}));
  textures_.push_back(rc.createTexture({8, 8, 1, Format::D32Float, texture_usage::kDepthTarget}));
  sampler_ =
      rc.createSampler({Filter::Linear, Filter::Nearest, AddressMode::Repeat, AddressMode::ClampToEdge});
  shaders_.push_back(rc.createShader({ShaderStage::Vertex}, pattern(96, 4)));
  shaders_.push_back(rc.createShader({ShaderStage::Fragment}, pattern(80, 5)));
  PipelineDesc pipeline{};
  pipeline.vertexShader = shaders_[0];
  pipeline.fragmentShader = shaders_[1];
  pipeline.vertexStride = 32;
  pipeline.attributeCount = 2;
  pipeline.attributes[0] = {0, 0, Format::RGB32Float};
  pipeline.attributes[1] = {1, 12, Format::RG32Float};
  pipeline.depthTest = true;
  pipeline.depthWrite = true;
  pipeline.depthCompare = CompareOp::LessOrEqual;
  pipeline.colorCount = 1;
  pipeline.colorFormats[0] = Format::RGBA8Unorm;
  pipeline.depthFormat = Format::D32Float;
  pipeline.pushConstantBytes = 64;
  pipeline_ = rc.createPipeline(pipeline);
  RenderTargetDesc target{};
  target.colorCount = 1;
  target.colors[0] = textures_[0];
  target.depth = textures_[2];
  target_ = rc.createRenderTarget(target);
}

void Scene::record() {
  const uint64_t f = renderer_.recordingFrame();
  ResourceContext& rc = renderer_.resources();
  if (buffers_.empty()) createResources();

  // Resource requests: a write every frame, temporaries of every kind created in frames 4k+1 and
  // destroyed in frames 4k+3 (used in between).
  const uint64_t value = f * 0x0101010101010101ull;
  const uint64_t writeAt = (f * 8) % 128;
  rc.writeBuffer(buffers_[0], writeAt, asBytes(value));
  std::memcpy(tracked_.data() + writeAt, &value, sizeof value);
  const uint32_t texel = static_cast<uint32_t>(0xff000000u | f);
  rc.writeTexture(textures_[0], 0, static_cast<uint32_t>(f % 8), 1, 1, 1, asBytes(texel));
  if (f % 4 == 1) {
    // Slots freed by the destroys of frame f - 2 are handed out again only once the render thread has
    // run them: wait for it, so that the handles (and so the trace) are the same however fast the
    // frames are kicked.
    renderer_.flushAndWait();
    temporary_ = rc.createBuffer({64, buffer_usage::kVertex, MemoryDomain::HostUpload},
                                 pattern(64, static_cast<uint32_t>(f)));
    temporaryTexture_ = rc.createTexture({4, 4, 1, Format::RGBA16Float, texture_usage::kColorTarget});
    temporarySampler_ = rc.createSampler(
        {Filter::Nearest, Filter::Nearest, AddressMode::MirroredRepeat, AddressMode::Repeat});
    temporaryShader_ = rc.createShader({ShaderStage::Compute}, pattern(40, 6));
    PipelineDesc compute{};
    compute.computeShader = temporaryShader_;
    temporaryPipeline_ = rc.createPipeline(compute);
    RenderTargetDesc target{};
    target.colorCount = 1;
    target.colors[0] = temporaryTexture_;
    temporaryTarget_ = rc.createRenderTarget(target);
  }
  recordWorld(f);
  recordOthers(f);
  if (f % 4 == 3 && !temporary_.isNull()) {
    rc.destroy(temporaryTarget_);
    rc.destroy(temporaryPipeline_);
    rc.destroy(temporaryShader_);
    rc.destroy(temporarySampler_);
    rc.destroy(temporaryTexture_);
    rc.destroy(temporary_);
    temporary_ = {};
  }
}

void Scene::frame() {
  record();
  renderer_.kick();
}

void Scene::recordWorld(uint64_t f) {
  auto& begin = world_.add<cmd::BeginRenderPass>(DrawKey::command(0, 0, Translucency::Opaque, 0));
  begin.target = target_;
  begin.colorLoad = LoadOp::Clear;
  begin.depthLoad = LoadOp::Clear;
  begin.clearColor[0] = 0.25f;
  begin.clearColor[3] = 1.0f;
  begin.clearDepth = 1.0f;
  REEL_TAG(world_, &begin, "main pass");

  // A viewport shared by three keys, each with a chain of its own after it.
  auto& viewport = world_.createShared<cmd::SetViewport>();
  viewport.width = 640;
  viewport.height = 480;
  viewport.maxDepth = 1;
  for (uint32_t m = 1; m <= 3; ++m) {
    PacketHeader& ref = world_.addShared(DrawKey::draw(0, 1, Translucency::Opaque, {m, 0}, 0), viewport);
    auto& scissor = world_.append<cmd::SetScissor>(ref);
    scissor.width = 100 * m;
    scissor.height = 50;
  }

  for (uint32_t i = 0; i < options_.draws; ++i) {
    const Translucency t = i % 5 == 0 ? Translucency::Normal : Translucency::Opaque;
    const uint32_t depth = static_cast<uint32_t>((i * 7919u + f * 13u) & DrawKey::kMaxDepth);
    auto& bind = world_.add<cmd::BindPipeline>(DrawKey::draw(0, 1 + i % 2, t, {i % 7, i % 2}, depth));
    bind.pipeline = pipeline_;
    auto& vertices = world_.append<cmd::BindVertexBuffer>(&bind);
    vertices.buffer = (i == 0 && !temporary_.isNull()) ? temporary_ : buffers_[0];
    auto& indices = world_.append<cmd::BindIndexBuffer>(&vertices);
    indices.buffer = buffers_[1];
    indices.indexType = IndexType::U16;
    auto& texture = world_.append<cmd::BindTexture>(&indices);
    texture.texture = textures_[0];
    texture.sampler = sampler_;
    auto& uniforms = world_.append<cmd::BindUniformBuffer>(&texture);
    uniforms.buffer = buffers_[2];
    uniforms.range = 256;
    auto& storage = world_.append<cmd::BindStorageBuffer>(&uniforms);
    storage.slot = 1;
    storage.buffer = buffers_[3];
    storage.range = 512;
    void* last = &storage;
    if (i == 1 && !temporary_.isNull()) {
      auto& extra = world_.append<cmd::BindTexture>(last);
      extra.slot = 1;
      extra.texture = temporaryTexture_;
      extra.sampler = temporarySampler_;
      last = &extra;
    }
    auto& push = world_.append<cmd::PushConstants>(last, options_.auxBytes);
    std::span<std::byte> aux = world_.aux(push);
    for (size_t b = 0; b < aux.size(); ++b) {
      if (options_.randomAux) {
        randomState_ ^= randomState_ << 13;
        randomState_ ^= randomState_ >> 7;
        randomState_ ^= randomState_ << 17;
        aux[b] = static_cast<std::byte>(randomState_);
      } else {
        aux[b] = static_cast<std::byte>((b + i + f) & 0xff);
      }
    }
    switch (i % 4) {
      case 0: {
        auto& draw = world_.append<cmd::DrawIndexed>(&push);
        draw.indexCount = 36;
        draw.vertexOffset = -static_cast<int32_t>(i);
        REEL_TAG(world_, &draw, "crate");
        break;
      }
      case 1: {
        auto& draw = world_.append<cmd::Draw>(&push);
        draw.vertexCount = 3 + i;
        break;
      }
      case 2: {
        auto& draw = world_.append<cmd::DrawInstanced>(&push);
        draw.vertexCount = 6;
        draw.instanceCount = i;
        REEL_TAG(world_, &draw, "grass");
        break;
      }
      default: {
        auto& draw = world_.append<cmd::DrawIndexedInstanced>(&push);
        draw.indexCount = 12;
        draw.instanceCount = 2;
        draw.firstInstance = static_cast<uint32_t>(f);
        REEL_TAG(world_, &draw, "crate");
        break;
      }
    }
  }
  world_.add<cmd::EndRenderPass>(DrawKey::command(0, 15, Translucency::Opaque, 0));
}

void Scene::recordOthers(uint64_t f) {
  // compute (u32): GPU-side writes, so that contents differ from what the requests alone would give.
  uint8_t update[16];
  for (uint32_t b = 0; b < sizeof update; ++b) update[b] = static_cast<uint8_t>(f * 3 + b);
  auto& upload = compute_.addWithData<cmd::UpdateBuffer>(1, update, sizeof update);
  upload.buffer = buffers_[0];
  upload.offset = 128;
  std::memcpy(tracked_.data() + 128, update, sizeof update);
  auto& empty = compute_.add<cmd::UpdateBuffer>(0);  // no data: a packet whose aux is empty
  empty.buffer = buffers_[0];
  empty.offset = 128;
  auto& copy = compute_.add<cmd::CopyBuffer>(2);
  copy.source = buffers_[0];
  copy.destination = buffers_[3];
  copy.destinationOffset = 64;
  copy.size = 32;
  auto& copyTexture = compute_.add<cmd::CopyTexture>(3);
  copyTexture.source = textures_[0];
  copyTexture.destination = textures_[1];
  copyTexture.width = 4;
  copyTexture.height = 4;
  auto& blit = compute_.add<cmd::BlitTexture>(4);
  blit.source = textures_[0];
  blit.destination = textures_[1];
  blit.sourceRect[2] = 8;
  blit.sourceRect[3] = 8;
  blit.destinationRect[2] = 4;
  blit.destinationRect[3] = 4;
  blit.filter = Filter::Linear;
  if (!temporary_.isNull()) {
    auto& bind = compute_.add<cmd::BindPipeline>(5);
    bind.pipeline = temporaryPipeline_;
    auto& dispatch = compute_.append<cmd::Dispatch>(&bind);
    dispatch.groupsX = static_cast<uint32_t>(f + 1);
    dispatch.groupsY = 2;
    dispatch.groupsZ = 1;
  } else {
    compute_.add<cmd::Dispatch>(5).groupsX = 1;
  }

  // post (u64): a second render pass into the temporary target while it lives, placed as packets in
  // even frames and declared in odd ones (with a compute pass before it that no key names).
  if (!temporary_.isNull() && f % 2 == 0) {
    auto& begin = post_.add<cmd::BeginRenderPass>(uint64_t{f} << 32);
    begin.target = temporaryTarget_;
    begin.colorLoad = LoadOp::DontCare;
    auto& draw = post_.append<cmd::Draw>(&begin);
    draw.vertexCount = 3;
    post_.append<cmd::EndRenderPass>(&draw);
  } else if (!temporary_.isNull()) {
    renderer_.resources().declarePass("empty compute", PassDesc{});
    PassDesc desc;
    desc.target = temporaryTarget_;
    desc.colorLoad = LoadOp::DontCare;
    const PassId pass = renderer_.resources().declarePass("temporary", desc);
    post_.add<cmd::Draw>(pass, uint64_t{f} << 32).vertexCount = 3;
  }
  auto& scissor = post_.add<cmd::SetScissor>(uint64_t{f} << 32 | 1);
  scissor.x = -1;
  scissor.width = 8;

  // ui (u16): debug markers with labels as aux data; nothing at all in frames 5k+4.
  if (f % 5 != 4) {
    const std::string label = "ui frame " + std::to_string(f);
    auto& marker =
        ui_.addWithData<cmd::DebugMarkerBegin>(7, label.data(), static_cast<uint32_t>(label.size()));
    marker.color[1] = 1.0f;
    REEL_TAG(ui_, &marker, "ui");
    ui_.append<cmd::DebugMarkerEnd>(&marker);
  }

  // tiny (u8): recorded once in frame 6 and retained over frame 7.
  if (f == 8) tiny_.setRetained(false);
  if (f != 7) {
    for (uint8_t i = 0; i < 3; ++i)
      tiny_.add<cmd::Draw>(static_cast<uint8_t>(255 - i)).vertexCount = i + static_cast<uint32_t>(f);
  }
  if (f == 6) tiny_.setRetained(true);
}

}  // namespace reel::testing
