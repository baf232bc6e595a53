#include "assets.h"

#include <cmath>
#include <cstring>

#include "math.h"
#include "reel/samples/spirv.h"
#include "scene.h"

namespace reel::samples {

namespace {

template <size_t N>
ShaderHandle makeShader(ResourceContext& resources, ShaderStage stage, const uint32_t (&words)[N]) {
  return resources.createShader({.stage = stage}, std::as_bytes(std::span(words)));
}

uint32_t rgba(float r, float g, float b, float a = 1.0f) {
  auto c = [](float v) {
    return static_cast<uint32_t>(std::lround(std::fmin(std::fmax(v, 0.0f), 1.0f) * 255.0f));
  };
  return c(r) | c(g) << 8 | c(b) << 16 | c(a) << 24;
}

float valueNoise(float x, float y, uint32_t seed) {
  const int xi = static_cast<int>(std::floor(x)), yi = static_cast<int>(std::floor(y));
  const float fx = x - float(xi), fy = y - float(yi);
  auto corner = [&](int cx, int cy) { return hash01(static_cast<uint32_t>((cx & 7) * 8 + (cy & 7)), seed); };
  const float sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
  const float top = corner(xi, yi) + (corner(xi + 1, yi) - corner(xi, yi)) * sx;
  const float bottom = corner(xi, yi + 1) + (corner(xi + 1, yi + 1) - corner(xi, yi + 1)) * sx;
  return top + (bottom - top) * sy;
}

}  // namespace

std::vector<std::byte> makeTexels(TextureId id, uint32_t size, uint32_t variant) {
  std::vector<uint32_t> texels(size_t{size} * size);
  const float hue = float(variant % 7) / 7.0f;
  for (uint32_t y = 0; y < size; ++y) {
    for (uint32_t x = 0; x < size; ++x) {
      const float u = (float(x) + 0.5f) / float(size), v = (float(y) + 0.5f) / float(size);
      uint32_t c = 0;
      switch (id) {
        case TextureId::Checker: {
          const bool odd = ((x * 8 / size) + (y * 8 / size)) % 2;
          c = odd ? rgba(0.92f, 0.9f, 0.85f) : rgba(0.25f + 0.5f * hue, 0.3f, 0.75f - 0.5f * hue);
          break;
        }
        case TextureId::Bricks: {
          const float row = v * 6.0f;
          const float shift = (static_cast<int>(row) % 2) * 0.5f;
          const float col = u * 3.0f + shift;
          const bool mortar = row - std::floor(row) < 0.12f || col - std::floor(col) < 0.06f;
          const float tone =
              0.8f + 0.2f * hash01(static_cast<uint32_t>(row) * 31 + static_cast<uint32_t>(col), 7);
          c = mortar ? rgba(0.75f, 0.73f, 0.7f) : rgba(0.65f * tone, 0.27f * tone, 0.18f * tone);
          break;
        }
        case TextureId::Noise: {
          const float n = 0.6f * valueNoise(u * 8, v * 8, 1 + variant) + 0.4f * valueNoise(u * 16, v * 16, 2);
          c = rgba(0.3f + 0.6f * n, 0.55f + 0.4f * n, 0.25f + 0.3f * n);
          break;
        }
        case TextureId::Rings: {
          const float d = std::sqrt((u - 0.5f) * (u - 0.5f) + (v - 0.5f) * (v - 0.5f));
          const float ring = 0.5f + 0.5f * std::cos(d * 40.0f + float(variant));
          c = rgba(0.9f * ring + 0.1f, 0.5f + 0.4f * hue, 1.0f - 0.7f * ring);
          break;
        }
        case TextureId::White:
        case TextureId::Count:
          c = rgba(1, 1, 1);
          break;
      }
      texels[size_t{y} * size + x] = c;
    }
  }
  std::vector<std::byte> bytes(texels.size() * 4);
  std::memcpy(bytes.data(), texels.data(), bytes.size());
  return bytes;
}

void Assets::create(ResourceContext& r) {
  namespace s = spirv;
  shaders.meshVert = makeShader(r, ShaderStage::Vertex, s::mesh_vert);
  shaders.meshLit = makeShader(r, ShaderStage::Fragment, s::mesh_lit_frag);
  shaders.meshToon = makeShader(r, ShaderStage::Fragment, s::mesh_toon_frag);
  shaders.spriteVert = makeShader(r, ShaderStage::Vertex, s::sprite_vert);
  shaders.spriteFrag = makeShader(r, ShaderStage::Fragment, s::sprite_frag);
  shaders.fullscreenVert = makeShader(r, ShaderStage::Vertex, s::fullscreen_vert);
  shaders.postFrag = makeShader(r, ShaderStage::Fragment, s::post_frag);
  shaders.particlesComp = makeShader(r, ShaderStage::Compute, s::particles_comp);
  shaders.particlesVert = makeShader(r, ShaderStage::Vertex, s::particles_vert);
  shaders.particlesFrag = makeShader(r, ShaderStage::Fragment, s::particles_frag);

  linearRepeat = r.createSampler({Filter::Linear, Filter::Linear, AddressMode::Repeat, AddressMode::Repeat});
  linearClamp =
      r.createSampler({Filter::Linear, Filter::Linear, AddressMode::ClampToEdge, AddressMode::ClampToEdge});
  nearestClamp =
      r.createSampler({Filter::Nearest, Filter::Nearest, AddressMode::ClampToEdge, AddressMode::ClampToEdge});

  for (uint32_t i = 0; i < kTextureCount; ++i) {
    const auto id = static_cast<TextureId>(i);
    const uint32_t size = id == TextureId::White ? 4 : 64;
    const TextureDesc desc{.width = size,
                           .height = size,
                           .mipLevels = id == TextureId::White ? 1u : 7u,
                           .format = Format::RGBA8Unorm,
                           .usage = texture_usage::kSampled};
    textures[i] = r.createTexture(desc, makeTexels(id, size));
  }

  // A unit cube, 4 vertices per face so that each face has its own normal and uvs; faces wind
  // counter-clockwise seen from outside.
  struct Vertex {
    float position[3], normal[3], uv[2];
  };
  static_assert(sizeof(Vertex) == kCubeVertexStride);
  const Vec3 faces[6][3] = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
                            {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
                            {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}, {{0, 0, -1}, {0, 1, 0}, {1, 0, 0}}};
  std::vector<Vertex> vertices;
  std::vector<uint16_t> indices;
  const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (const auto& [n, u, v] : faces) {
    const auto base = static_cast<uint16_t>(vertices.size());
    for (const auto& c : corners) {
      const Vec3 p = (n + u * c[0] + v * c[1]) * 0.5f;
      vertices.push_back({{p.x, p.y, p.z}, {n.x, n.y, n.z}, {(c[0] + 1) / 2, (c[1] + 1) / 2}});
    }
    for (uint16_t i : {0, 1, 2, 0, 2, 3}) indices.push_back(static_cast<uint16_t>(base + i));
  }
  cubeVertices = r.createBuffer({.size = vertices.size() * sizeof(Vertex), .usage = buffer_usage::kVertex},
                                std::as_bytes(std::span(vertices)));
  cubeIndices = r.createBuffer({.size = indices.size() * sizeof(uint16_t), .usage = buffer_usage::kIndex},
                               std::as_bytes(std::span(indices)));

  for (uint32_t b = 0; b < 5; ++b) {
    sprite[b] = r.createPipeline(spriteDesc(static_cast<BlendMode>(b), false, kColorFormat, kDepthFormat));
  }
}

void Assets::destroy(ResourceContext& r) {
  for (PipelineHandle p : sprite) r.destroy(p);
  r.destroy(cubeVertices);
  r.destroy(cubeIndices);
  for (TextureHandle t : textures) r.destroy(t);
  for (SamplerHandle s : {linearRepeat, linearClamp, nearestClamp}) r.destroy(s);
  for (ShaderHandle s : {shaders.meshVert, shaders.meshLit, shaders.meshToon, shaders.spriteVert,
                         shaders.spriteFrag, shaders.fullscreenVert, shaders.postFrag, shaders.particlesComp,
                         shaders.particlesVert, shaders.particlesFrag}) {
    r.destroy(s);
  }
}

PipelineDesc Assets::spriteDesc(BlendMode blend, bool depthTest, Format colorFormat,
                                Format depthFormat) const {
  PipelineDesc d{};
  d.vertexShader = shaders.spriteVert;
  d.fragmentShader = shaders.spriteFrag;
  d.topology = Topology::TriangleList;
  d.cullMode = CullMode::None;
  d.blend = blend;
  d.depthTest = depthTest;
  d.depthWrite = depthTest && blend == BlendMode::Opaque;
  d.depthCompare = CompareOp::LessOrEqual;
  d.colorCount = 1;
  d.colorFormats[0] = colorFormat;
  d.depthFormat = depthFormat;
  d.pushConstantBytes = sizeof(SpritePush);
  return d;
}

PipelineDesc Assets::fullscreenDesc(ShaderHandle fragment, Format colorFormat, Format depthFormat,
                                    uint32_t pushConstantBytes) const {
  PipelineDesc d{};
  d.vertexShader = shaders.fullscreenVert;
  d.fragmentShader = fragment;
  d.colorCount = 1;
  d.colorFormats[0] = colorFormat;
  d.depthFormat = depthFormat;
  d.pushConstantBytes = pushConstantBytes;
  return d;
}

PipelineDesc Assets::meshDesc(bool toon, Format colorFormat, Format depthFormat) const {
  PipelineDesc d{};
  d.vertexShader = shaders.meshVert;
  d.fragmentShader = toon ? shaders.meshToon : shaders.meshLit;
  d.vertexStride = kCubeVertexStride;
  d.attributeCount = 3;
  d.attributes[0] = {0, 0, Format::RGB32Float};
  d.attributes[1] = {1, 12, Format::RGB32Float};
  d.attributes[2] = {2, 24, Format::RG32Float};
  d.topology = Topology::TriangleList;
  d.cullMode = CullMode::Back;
  d.blend = BlendMode::Opaque;
  d.depthTest = true;
  d.depthWrite = true;
  d.depthCompare = CompareOp::Less;
  d.colorCount = 1;
  d.colorFormats[0] = colorFormat;
  d.depthFormat = depthFormat;
  d.pushConstantBytes = 80;
  return d;
}

}  // namespace reel::samples
