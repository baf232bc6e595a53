#version 450
layout(push_constant) uniform Push {
  vec4 rect;
  vec4 color;
  vec4 params;
} push;

layout(location = 0) out vec4 outColor;

void main() { outColor = push.color; }
