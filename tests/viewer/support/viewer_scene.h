#pragma once
// The scene the viewer's tests (and its benchmark) capture: small, deterministic by frame number, and
// made so that every panel has something to show and every step of a replay can be checked:
//  - "world" (DrawKey): a render pass on a 64x48 RGBA8 target with depth; per frame `draws` quads of
//    their own colour, each a chain BindPipeline + PushConstants (aux: rect, colour, depth) + Draw,
//    tagged "quad i"; opaque ones of three materials at depths that make the sorted order differ from
//    the submission order, one alpha-blended; a viewport shared by three keys (shared packets);
//  - "copies" (u32): CopyTexture packets that copy 8x8 tiles of a texture the frame's requests write
//    into another texture, in key order that differs from recording order, so that even the null
//    device (which does not rasterize) changes an image at every step; an UpdateBuffer;
//  - resources: created in frame 0; a temporary texture and sampler created in frame 1 and destroyed
//    in frame 2.
// Shaders are real SPIR-V (glslc at build time), so the Vulkan device (lavapipe in CI) draws it.

#include <cstdint>
#include <string>
#include <vector>

#include "reel/runtime/renderer.h"
#include "reel/runtime/result.h"

namespace reel::viewer::testing {

struct SceneOptions {
  uint32_t width = 64;
  uint32_t height = 48;
  uint32_t draws = 7;
  uint32_t copies = 4;
};

class ViewerScene {
 public:
  explicit ViewerScene(Renderer& renderer, SceneOptions options = {});
  void record();  // the frame renderer.recordingFrame()
  void frame() {
    record();
    renderer_.kick();
  }

  TextureHandle color() const { return color_; }
  TextureHandle depth() const { return depth_; }
  TextureHandle tiles() const { return tilesDestination_; }
  RenderTargetHandle target() const { return target_; }
  BufferHandle buffer() const { return buffer_; }
  const SceneOptions& options() const { return options_; }

 private:
  void createResources();
  Renderer& renderer_;
  SceneOptions options_;
  CommandBucket<DrawKey>& world_;
  CommandBucket<uint32_t>& copies_;
  TextureHandle color_{}, depth_{}, tilesSource_{}, tilesDestination_{}, temporary_{};
  SamplerHandle temporarySampler_{};
  RenderTargetHandle target_{};
  PipelineHandle opaque_{}, blended_{};
  BufferHandle buffer_{};
};

// The handle values the scene gets, which are the ones a capture of it records (capture copies packets
// as they are): taken from a throwaway renderer on the null device.
struct SceneHandles {
  uint32_t color = 0;
  uint32_t tiles = 0;
  uint32_t target = 0;
};
SceneHandles sceneHandles(SceneOptions options = {});

// Captures frames [0, frames) of the scene, driven on `device`, into `path`; the capture starts at
// `firstFrame` (resources alive then are carried as the capture start).
Result<void> captureScene(const std::string& path, Device& device, uint32_t frames, uint64_t firstFrame = 0,
                          SceneOptions options = {});

}  // namespace reel::viewer::testing
