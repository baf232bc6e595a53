// Shared by the deferred scene's shaders (samples/src/scenes/deferred.cpp): the lit image and the ambient
// occlusion, storage buffers rather than images because reel's binding model has no storage images
// (common.glsl). The lighting dispatch writes the lit image (LIT_ACCESS writeonly), the post chain's
// fragment shaders read it; the occlusion dispatch writes the occlusion (AO_ACCESS writeonly), the
// lighting reads it.

// One texel per pixel of the G-buffer, row by row from the top: rgb linear HDR radiance.
#ifdef LIT_ACCESS
layout(std430, set = 0, binding = 8) LIT_ACCESS buffer Lit {
  vec4 texels[];
} lit;
#endif

// One ambient factor per pixel of the G-buffer, row by row from the top: 1 open, 0 covered.
#ifdef AO_ACCESS
layout(std430, set = 0, binding = 9) AO_ACCESS buffer Occlusion {
  float values[];
} ao;
#endif
