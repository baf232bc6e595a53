#version 450
// sprite.vert for merged draws (docs/instance-merging.md): the same quad, its constants read from entry
// gl_InstanceIndex of the storage buffer at slot 0 (binding 8) instead of the push constants, and handed
// to sprite_instanced.frag unchanged (flat), so that a merged draw renders what the draws it replaces did.
struct Sprite {
  vec4 rect;    // center x, y and size w, h in the viewport's normalized device coordinates
  vec4 color;
  vec4 params;  // x: depth, y: rotation (radians), z: 1 = premultiply the output, w: 1 = soft disc mask
};
layout(std430, set = 0, binding = 8) readonly buffer Instances {
  Sprite entries[];
};

layout(location = 0) out vec2 uv;
layout(location = 1) flat out vec4 color;
layout(location = 2) flat out vec4 params;

const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));

void main() {
  Sprite s = entries[gl_InstanceIndex];
  vec2 corner = kCorners[gl_VertexIndex];
  uv = corner;
  color = s.color;
  params = s.params;
  vec2 offset = (corner - 0.5) * s.rect.zw;
  float c = cos(s.params.y), sn = sin(s.params.y);
  offset = vec2(c * offset.x - sn * offset.y, sn * offset.x + c * offset.y);
  gl_Position = vec4(s.rect.xy + offset, s.params.x, 1.0);
}
