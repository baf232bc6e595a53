#version 450
// Deferred lighting: one invocation per pixel reads the G-buffer (sampled textures, texelFetch), the
// ambient occlusion and the sun's shadow map, and writes the lit HDR radiance into the storage buffer that
// the post chain reads.
#define LIT_ACCESS writeonly
#define AO_ACCESS readonly
#include "deferred_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

const uint kMaxLights = 8;

struct PointLight {
  vec4 position;  // xyz: world position, w: radius (the light ends there)
  vec4 color;     // rgb: color, a: intensity
};

layout(set = 0, binding = 1) uniform Lighting {
  vec4 eye;           // xyz: camera position, world space
  vec4 sunDirection;  // xyz: direction the light travels
  vec4 sunColor;
  vec4 ambient;
  vec4 skyTop;
  vec4 skyBottom;
  PointLight lights[kMaxLights];
  mat4 sunViewProj;   // world to the shadow map's clip space (orthographic: w = 1)
} lighting;

layout(set = 0, binding = 4) uniform sampler2D gAlbedo;
layout(set = 0, binding = 5) uniform sampler2D gNormal;
layout(set = 0, binding = 6) uniform sampler2D gPosition;
layout(set = 0, binding = 7) uniform sampler2D sunShadow;  // depth, 0 near the sun

// How much of the sun reaches `p`: 2 x 2 depth comparisons around its place in the shadow map.
float sunLight(vec3 p, vec3 n, vec3 sun) {
  vec4 s = lighting.sunViewProj * vec4(p, 1.0);
  ivec2 size = textureSize(sunShadow, 0);
  vec2 texel = (s.xy * 0.5 + 0.5) * vec2(size) - 0.5;
  if (any(lessThan(texel, vec2(0.0))) || any(greaterThanEqual(texel, vec2(size - 1)))) return 1.0;
  float bias = 0.0015 + 0.003 * (1.0 - max(dot(n, sun), 0.0));
  ivec2 base = ivec2(floor(texel));
  vec2 f = fract(texel);
  float lit[4];
  for (int i = 0; i < 4; ++i) {
    float occluder = texelFetch(sunShadow, base + ivec2(i & 1, i >> 1), 0).r;
    lit[i] = s.z - bias <= occluder ? 1.0 : 0.0;
  }
  return mix(mix(lit[0], lit[1], f.x), mix(lit[2], lit[3], f.x), f.y);
}

layout(push_constant) uniform Push {
  uvec2 size;  // of the G-buffer
  uint lightCount;
} push;

void main() {
  uvec2 pixel = gl_GlobalInvocationID.xy;
  if (pixel.x >= push.size.x || pixel.y >= push.size.y) return;
  ivec2 at = ivec2(pixel);
  vec4 albedo = texelFetch(gAlbedo, at, 0);
  vec3 radiance;
  if (albedo.a == 0.0) {
    float h = float(pixel.y) / float(push.size.y);
    radiance = mix(lighting.skyTop.rgb, lighting.skyBottom.rgb, h);
  } else {
    vec4 nm = texelFetch(gNormal, at, 0);
    vec4 pe = texelFetch(gPosition, at, 0);
    vec3 n = normalize(nm.xyz), p = pe.xyz;
    vec3 v = normalize(lighting.eye.xyz - p);
    float hemisphere = 0.6 + 0.4 * n.y;
    radiance = albedo.rgb * lighting.ambient.rgb * hemisphere * ao.values[pixel.y * push.size.x + pixel.x];
    vec3 sun = -lighting.sunDirection.xyz;
    radiance += albedo.rgb * lighting.sunColor.rgb * max(dot(n, sun), 0.0) * sunLight(p, n, sun);
    for (uint i = 0; i < min(push.lightCount, kMaxLights); ++i) {
      PointLight light = lighting.lights[i];
      vec3 toLight = light.position.xyz - p;
      float d = length(toLight);
      vec3 l = toLight / max(d, 1e-4);
      float falloff = clamp(1.0 - d / light.position.w, 0.0, 1.0);
      falloff *= falloff;
      vec3 c = light.color.rgb * light.color.a * falloff;
      float diffuse = max(dot(n, l), 0.0);
      float specular = pow(max(dot(n, normalize(l + v)), 0.0), 48.0) * nm.w * step(0.0, dot(n, l));
      radiance += c * (albedo.rgb * diffuse + specular);
    }
    radiance += albedo.rgb * pe.w;
  }
  lit.texels[pixel.y * push.size.x + pixel.x] = vec4(radiance, 1.0);
}
