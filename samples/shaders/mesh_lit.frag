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

// Lambert with a soft wrap, so that the unlit sides still show their texture.
void main() {
  vec3 n = normalize(normal);
  float diffuse = max(dot(n, -camera.lightDirection.xyz) * 0.8 + 0.2, 0.0);
  vec3 base = texture(albedo, uv).rgb * push.tint.rgb;
  color = vec4(base * (camera.ambient.rgb + diffuse * camera.lightColor.rgb), 1.0);
}
