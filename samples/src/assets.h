#pragma once
// What every scene shares: the compiled shaders, samplers, procedural textures, the cube mesh, and the
// sprite pipelines for the frame image. Created once through the ResourceContext like any resource.

#include "reel/runtime/resource_context.h"

namespace reel::samples {

enum class TextureId : uint32_t { Checker, Bricks, Noise, Rings, White, Count };
inline constexpr uint32_t kTextureCount = static_cast<uint32_t>(TextureId::Count);

// The sprite shader's push constants (sprite.vert / sprite.frag).
struct SpritePush {
  float rect[4];  // center x, y, size w, h in the viewport's NDC
  float color[4];
  float params[4];  // depth, rotation, premultiply (0/1), disc mask (0/1)
};
static_assert(sizeof(SpritePush) == 48);

// Procedural RGBA8 texels, size x size, deterministic.
std::vector<std::byte> makeTexels(TextureId id, uint32_t size, uint32_t variant = 0);

class Assets {
 public:
  void create(ResourceContext& resources);
  void destroy(ResourceContext& resources);

  struct Shaders {
    ShaderHandle meshVert, meshLit, meshToon, spriteVert, spriteFrag, fullscreenVert, postFrag, particlesComp,
        particlesVert, particlesFrag;
  } shaders;
  SamplerHandle linearRepeat, linearClamp, nearestClamp;
  TextureHandle textures[kTextureCount];
  BufferHandle cubeVertices, cubeIndices;
  static constexpr uint32_t kCubeIndexCount = 36;
  static constexpr uint32_t kCubeVertexStride = 32;  // position, normal (3 floats each), uv (2)

  // A sprite pipeline for a target of `colorFormat` + `depthFormat` (Undefined: none).
  PipelineDesc spriteDesc(BlendMode blend, bool depthTest, Format colorFormat, Format depthFormat) const;
  PipelineDesc meshDesc(bool toon, Format colorFormat, Format depthFormat) const;
  // A full-screen pass's pipeline (fullscreen.vert, no vertices, no depth test) with `fragment`.
  PipelineDesc fullscreenDesc(ShaderHandle fragment, Format colorFormat, Format depthFormat,
                              uint32_t pushConstantBytes) const;
  // Sprite pipelines for the frame image, one per blend mode, depth test off.
  PipelineHandle sprite[5];

  TextureHandle texture(TextureId id) const { return textures[static_cast<uint32_t>(id)]; }
};

}  // namespace reel::samples
