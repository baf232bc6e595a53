#version 450
// The post pass: samples the offscreen scene (and its half-size copy, as a cheap glow), with a ripple
// distortion, a vignette and a color grade that change with time.
layout(set = 0, binding = 4) uniform sampler2D scene;
layout(set = 0, binding = 5) uniform sampler2D glow;
layout(push_constant) uniform Push {
  vec4 params;  // x: time
} push;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main() {
  float t = push.params.x;
  vec2 centered = uv - 0.5;
  float ripple = sin(length(centered) * 40.0 - t * 4.0) * 0.004;
  vec2 st = uv + normalize(centered + 1e-5) * ripple;
  vec3 c = texture(scene, st).rgb + texture(glow, st).rgb * 0.35;
  float vignette = smoothstep(0.85, 0.25, length(centered));
  vec3 grade = mix(vec3(1.0, 0.95, 0.85), vec3(0.85, 0.95, 1.1), 0.5 + 0.5 * sin(t * 0.7));
  color = vec4(c * grade * vignette, 1.0);
}
