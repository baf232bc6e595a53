#version 450
// Screen-space ambient occlusion of the G-buffer: per pixel, how much of the hemisphere above its surface
// the positions of the pixels around it cover (32 taps on a spiral, their radius shrinking with distance),
// as an ambient factor in a storage buffer the lighting reads. It needs the G-buffer only, so it runs on
// async compute beside the shadow map's pass on graphics.
#define AO_ACCESS writeonly
#include "deferred_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 4) uniform sampler2D gNormal;
layout(set = 0, binding = 5) uniform sampler2D gPosition;

layout(push_constant) uniform Push {
  uvec2 size;        // of the G-buffer
  vec4 eyeAndRadius; // xyz: camera position, world space; w: the radius in pixels at distance 1
} push;

const uint kTaps = 32;

void main() {
  uvec2 pixel = gl_GlobalInvocationID.xy;
  if (pixel.x >= push.size.x || pixel.y >= push.size.y) return;
  ivec2 at = ivec2(pixel);
  vec3 n = texelFetch(gNormal, at, 0).xyz;
  float visible = 1.0;
  if (dot(n, n) > 0.0) {  // the clear leaves the sky's normal zero
    n = normalize(n);
    vec3 p = texelFetch(gPosition, at, 0).xyz;
    float radius = push.eyeAndRadius.w / max(length(push.eyeAndRadius.xyz - p), 1.0);
    float occlusion = 0.0;
    for (uint i = 0; i < kTaps; ++i) {
      float f = (float(i) + 0.5) / float(kTaps);
      float angle = float(i) * 2.39996 + float((pixel.x * 7u + pixel.y * 13u) % 8u) * 0.785;
      ivec2 tap = at + ivec2(vec2(cos(angle), sin(angle)) * radius * sqrt(f) + 0.5);
      tap = clamp(tap, ivec2(0), ivec2(push.size) - 1);
      vec3 q = texelFetch(gPosition, tap, 0).xyz;
      vec3 v = q - p;
      float d2 = dot(v, v);
      vec3 nq = texelFetch(gNormal, tap, 0).xyz;
      if (d2 < 1e-6 || dot(nq, nq) == 0.0) continue;  // the same surface point, or sky
      occlusion += max(dot(n, v) * inversesqrt(d2) - 0.1, 0.0) / (1.0 + d2);
    }
    visible = clamp(1.0 - 1.6 * occlusion / float(kTaps), 0.0, 1.0);
  }
  ao.values[pixel.y * push.size.x + pixel.x] = visible;
}
