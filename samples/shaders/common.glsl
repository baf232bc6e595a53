// Shared by the sample's shaders. reel's binding model (runtime/include/reel/runtime/vulkan/pipelines.h):
// set 0, bindings 0-3 uniform buffers, 4-7 combined image samplers, 8-11 storage buffers, 128 bytes of
// push constants.

// Per-view camera and light, updated every frame with UpdateBuffer (auxiliary data).
layout(set = 0, binding = 0) uniform Camera {
  mat4 viewProj;
  vec4 lightDirection;  // xyz: direction the light travels, world space
  vec4 lightColor;
  vec4 ambient;
  vec4 params;          // x: time in seconds (frame / 60)
} camera;
