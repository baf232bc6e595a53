#version 450
// The G-buffer: what the lighting dispatch needs of each pixel, and nothing lit yet.
layout(set = 0, binding = 4) uniform sampler2D albedoMap;
layout(push_constant) uniform Push {
  mat4 model;
  vec4 albedo;
  vec4 material;
} push;

layout(location = 0) in vec3 worldPosition;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;

layout(location = 0) out vec4 outAlbedo;    // rgb: albedo, a: 1 where geometry is (the clear leaves 0: sky)
layout(location = 1) out vec4 outNormal;    // xyz: world normal, w: specular strength
layout(location = 2) out vec4 outPosition;  // xyz: world position, w: emission

void main() {
  outAlbedo = vec4(texture(albedoMap, uv).rgb * push.albedo.rgb, 1.0);
  outNormal = vec4(normalize(normal), push.material.x);
  outPosition = vec4(worldPosition, push.material.y);
}
