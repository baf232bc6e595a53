#pragma once
// Small pieces several scenes share.

#include <cstring>

#include "assets.h"
#include "math.h"
#include "reel/runtime/command_bucket.h"
#include "reel/runtime/resource_context.h"
#include "scene.h"

namespace reel::samples {

// The `Camera` uniform block of shaders/common.glsl (std140).
struct CameraUniforms {
  Mat4 viewProj;
  float lightDirection[4] = {-0.4f, -0.8f, -0.45f, 0.0f};
  float lightColor[4] = {1.0f, 0.96f, 0.9f, 1.0f};
  float ambient[4] = {0.22f, 0.24f, 0.3f, 1.0f};
  float params[4] = {};
};
static_assert(sizeof(CameraUniforms) == 128);

inline BufferHandle createUniformBuffer(ResourceContext& resources, uint64_t size) {
  return resources.createBuffer({.size = size, .usage = buffer_usage::kUniform});
}

// A pass into `target` that loads both attachments with `load` (a clear to `clearColor` and depth 1).
inline PassDesc passInto(RenderTargetHandle target, LoadOp load, const float (&clearColor)[4]) {
  PassDesc pass;
  pass.target = target;
  pass.colorLoad = pass.depthLoad = load;
  std::memcpy(pass.clearColor, clearColor, sizeof pass.clearColor);
  pass.clearDepth = 1.0f;
  return pass;
}

// Uploads per-frame uniforms as the packet's auxiliary data, at the start of `pass`, before its draws.
inline void recordUniforms(CommandBucket<DrawKey>& bucket, uint32_t viewport, BufferHandle buffer,
                           const CameraUniforms& uniforms, PassId pass) {
  auto& update =
      bucket.addWithData<cmd::UpdateBuffer>(pass, keys::uploads(viewport), &uniforms, sizeof uniforms);
  update.buffer = buffer;
  REEL_TAG(bucket, &update, "camera uniforms");
}

// Binds `texture` with `sampler` at `slot` after `previous` in its chain.
template <typename Prev>
cmd::BindTexture& appendTexture(CommandBucket<DrawKey>& bucket, Prev& previous, uint32_t slot,
                                TextureHandle texture, SamplerHandle sampler) {
  auto& bind = bucket.append<cmd::BindTexture>(&previous);
  bind.slot = slot;
  bind.texture = texture;
  bind.sampler = sampler;
  return bind;
}

// Pushes `data` as push constants after `previous` in its chain.
template <typename T, typename Prev>
cmd::PushConstants& appendPush(CommandBucket<DrawKey>& bucket, Prev& previous, const T& data) {
  auto& push = bucket.append<cmd::PushConstants>(&previous, sizeof(T));
  std::memcpy(bucket.aux(push).data(), &data, sizeof(T));
  return push;
}

inline float viewDepth01(const Mat4& view, Vec3 position, float farZ) {
  const Vec4 v = view.transform({position.x, position.y, position.z, 1.0f});
  return -v.z / farZ;
}

}  // namespace reel::samples
