#version 450
// A quad from push constants alone: six vertices of two triangles.
layout(push_constant) uniform Push {
  vec4 rect;  // center x, y and size w, h in normalized device coordinates
  vec4 color;
} push;

const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));

void main() {
  vec2 corner = kCorners[gl_VertexIndex];
  gl_Position = vec4(push.rect.xy + (corner - 0.5) * push.rect.zw, 0.0, 1.0);
}
