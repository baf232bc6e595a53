#version 450
// Post chain, pass 3 (the view on the frame image): lit image plus bloom, exposure, a filmic tone curve,
// gamma and a vignette. The HDR-to-display step happens only here, so both earlier passes stay linear.
#define LIT_ACCESS readonly
#include "deferred_common.glsl"

layout(set = 0, binding = 4) uniform sampler2D bloom;
layout(push_constant) uniform Push {
  uvec2 size;  // of the lit image, which is the view's size
  float exposure;
  float bloomStrength;
} push;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

// Narkowicz's fit of the ACES filmic curve.
vec3 filmic(vec3 x) {
  return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

void main() {
  ivec2 p = min(ivec2(uv * vec2(push.size)), ivec2(push.size) - 1);
  vec3 hdr = lit.texels[uint(p.y) * push.size.x + uint(p.x)].rgb + texture(bloom, uv).rgb * push.bloomStrength;
  vec3 mapped = pow(filmic(hdr * push.exposure), vec3(1.0 / 2.2));
  float vignette = mix(1.0, smoothstep(0.95, 0.35, length(uv - 0.5)), 0.6);
  color = vec4(mapped * vignette, 1.0);
}
