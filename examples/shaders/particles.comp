#version 450
// The compute pass: `count` particles (two vec4 each: position.xy, size, unused / color.rgb, alpha) as a
// function of the frame's time only, so that a frame is the same image on every run. particles.vert
// reads them in the offscreen pass that follows.
layout(local_size_x = 64) in;

layout(set = 0, binding = 8) buffer Particles {  // reel's binding model: storage buffer slot 0
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
  float angle = f * 2.39996 + push.time * (0.5 + 0.5 * fract(f * 0.618));
  float radius = 0.9 * sqrt((f + 0.5) / float(push.count));
  particles.data[2 * i] = vec4(cos(angle) * radius, sin(angle) * radius, 0.06 + 0.05 * fract(f * 0.754877), 0.0);
  vec3 hue = 0.5 + 0.5 * cos(6.28318 * (f / float(push.count) + vec3(0.0, 0.33, 0.67)));
  particles.data[2 * i + 1] = vec4(hue, 0.8);
}
