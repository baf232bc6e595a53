#version 450
layout(push_constant) uniform Push {
  vec4 rect;
  vec4 color;
} push;

layout(location = 0) out vec4 color;

void main() {
  color = push.color;
}
