#version 450
// One instance per particle of the storage buffer the compute pass wrote (read-only here).
layout(set = 0, binding = 8) readonly buffer Particles {
  vec4 data[];
} particles;

layout(location = 0) out vec2 uv;
layout(location = 1) out vec4 tint;

const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));

void main() {
  vec4 p = particles.data[2 * gl_InstanceIndex];
  tint = particles.data[2 * gl_InstanceIndex + 1];
  vec2 corner = kCorners[gl_VertexIndex];
  uv = corner;
  gl_Position = vec4(p.xy + (corner - 0.5) * p.z, 0.5, 1.0);
}
