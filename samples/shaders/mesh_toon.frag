#version 450
#include "common.glsl"

layout(set = 0, binding = 4) uniform sampler2D albedo;
layout(push_constant) uniform Push {
  mat4 model;
  vec4 tint;
} push;

layout(location = 0) in vec3 normal;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec4 color;

// Banded lighting plus a rim: a second material with its own pipeline.
void main() {
  vec3 n = normalize(normal);
  float diffuse = max(dot(n, -camera.lightDirection.xyz), 0.0);
  float bands = floor(diffuse * 3.0 + 0.5) / 3.0;
  float rim = pow(1.0 - abs(n.z), 3.0) * 0.35;
  vec3 base = texture(albedo, uv).rgb * push.tint.rgb;
  color = vec4(base * (camera.ambient.rgb + bands * camera.lightColor.rgb) + rim, 1.0);
}
