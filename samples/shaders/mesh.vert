#version 450
#include "common.glsl"

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec2 inUv;

layout(push_constant) uniform Push {
  mat4 model;  // uniform scale only: mat3(model) transforms normals
  vec4 tint;
} push;

layout(location = 0) out vec3 normal;
layout(location = 1) out vec2 uv;

void main() {
  vec4 world = push.model * vec4(inPosition, 1.0);
  normal = mat3(push.model) * inNormal;
  uv = inUv;
  gl_Position = camera.viewProj * world;
}
