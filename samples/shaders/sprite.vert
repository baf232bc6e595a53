#version 450
// A quad from push constants alone (no vertex buffer): six vertices of two triangles.
layout(push_constant) uniform Push {
  vec4 rect;    // center x, y and size w, h in the viewport's normalized device coordinates
  vec4 color;
  vec4 params;  // x: depth, y: rotation (radians), z: 1 = premultiply the output, w: 1 = soft disc mask
} push;

layout(location = 0) out vec2 uv;

const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));

void main() {
  vec2 corner = kCorners[gl_VertexIndex];
  uv = corner;
  vec2 offset = (corner - 0.5) * push.rect.zw;
  float c = cos(push.params.y), s = sin(push.params.y);
  offset = vec2(c * offset.x - s * offset.y, s * offset.x + c * offset.y);
  gl_Position = vec4(push.rect.xy + offset, push.params.x, 1.0);
}
