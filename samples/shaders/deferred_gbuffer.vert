#version 450
#include "common.glsl"

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec2 inUv;

layout(push_constant) uniform Push {
  mat4 model;     // any scale: the floor is a flattened cube
  vec4 albedo;    // rgb: tint of the texture
  vec4 material;  // x: specular strength, y: emission, z: texture repeat
} push;

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 normal;
layout(location = 2) out vec2 uv;

void main() {
  vec4 world = push.model * vec4(inPosition, 1.0);
  worldPosition = world.xyz;
  normal = transpose(inverse(mat3(push.model))) * inNormal;
  uv = inUv * push.material.z;
  gl_Position = camera.viewProj * world;
}
