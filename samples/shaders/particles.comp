#version 450
// Writes `count` particles (two vec4 each: position.xy, size, angle / color) as a function of time only,
// so that frame N is the same on every run. Read by particles.vert in a later draw.
layout(local_size_x = 64) in;

layout(set = 0, binding = 8) buffer Particles {
  vec4 data[];
} particles;

layout(push_constant) uniform Push {
  uint count;
  float time;
} push;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= push.count) return;
  float f = float(i);
  float t = push.time;
  float angle = f * 2.39996 + t * (0.3 + 0.2 * fract(f * 0.618));
  float radius = sqrt((f + 0.5) / float(push.count)) * (0.85 + 0.1 * sin(t * 1.7 + f * 0.37));
  float size = 0.025 + 0.02 * fract(f * 0.754877);
  particles.data[2 * i] = vec4(cos(angle) * radius, sin(angle) * radius, size, angle);
  vec3 hue = 0.5 + 0.5 * cos(6.28318 * (fract(f / float(push.count) + t * 0.05) + vec3(0.0, 0.33, 0.67)));
  particles.data[2 * i + 1] = vec4(hue, 0.85);
}
