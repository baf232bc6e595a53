#version 450
// Post chain, pass 1 (half resolution): the parts of the lit image brighter than a threshold, blurred
// horizontally. Reads the lit storage buffer directly, 2 x 2 texels per tap.
#define LIT_ACCESS readonly
#include "deferred_common.glsl"

layout(push_constant) uniform Push {
  uvec2 size;  // of the lit image (twice this pass's target)
  float threshold;
} push;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

vec3 litAt(ivec2 p) {
  p = clamp(p, ivec2(0), ivec2(push.size) - 1);
  return lit.texels[uint(p.y) * push.size.x + uint(p.x)].rgb;
}

vec3 bright(ivec2 p) {
  vec3 c = 0.25 * (litAt(p) + litAt(p + ivec2(1, 0)) + litAt(p + ivec2(0, 1)) + litAt(p + ivec2(1, 1)));
  float luminance = dot(c, vec3(0.2126, 0.7152, 0.0722));
  return c * max(luminance - push.threshold, 0.0) / max(luminance, 1e-4);
}

const float kWeights[5] = float[](0.227027, 0.1945946, 0.1216216, 0.054054, 0.016216);

void main() {
  ivec2 base = ivec2(gl_FragCoord.xy) * 2;
  vec3 sum = bright(base) * kWeights[0];
  for (int i = 1; i < 5; ++i) {
    sum += (bright(base + ivec2(2 * i, 0)) + bright(base - ivec2(2 * i, 0))) * kWeights[i];
  }
  color = vec4(sum, 1.0);
}
