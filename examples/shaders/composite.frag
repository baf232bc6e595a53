#version 450
// The second pass: samples the texture the offscreen pass rendered, with a ripple and a vignette.
layout(set = 0, binding = 4) uniform sampler2D offscreen;  // texture slot 0
layout(push_constant) uniform Push {
  vec4 params;  // x: time
} push;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main() {
  vec2 centered = uv - 0.5;
  float ripple = sin(length(centered) * 30.0 - push.params.x * 3.0) * 0.006;
  vec3 c = texture(offscreen, uv + normalize(centered + 1e-5) * ripple).rgb;
  float vignette = smoothstep(0.9, 0.3, length(centered));
  color = vec4(c * vignette + vec3(0.02, 0.02, 0.05), 1.0);
}
