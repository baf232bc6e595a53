// Shared by the deferred scene's shaders (samples/src/scenes/deferred.cpp): the lit image, which is a
// storage buffer rather than an image because reel's binding model has no storage images (common.glsl).
// The lighting dispatch writes it (LIT_ACCESS writeonly), the post chain's fragment shaders read it.

// One texel per pixel of the G-buffer, row by row from the top: rgb linear HDR radiance.
layout(std430, set = 0, binding = 8) LIT_ACCESS buffer Lit {
  vec4 texels[];
} lit;
