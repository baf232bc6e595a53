#pragma once
// A scene that exercises everything a trace must carry, deterministically by frame number:
//  - every command of commands.inc: the sorted ones in buckets, the resource requests through the
//    ResourceContext (creates with initial contents, writes, destroys of every resource kind);
//  - every key type reel has: DrawKey (opaque, transparent and command keys) and u8/u16/u32/u64;
//  - chains (append), shared packets referenced by several keys with chains of their own, aux data,
//    debug tags, a bucket retained over a frame, a frame with an empty bucket;
//  - resources created and destroyed over the frames, and buffers the GPU writes (UpdateBuffer,
//    CopyBuffer), so that a capture starting mid-run must read contents back.

#include <cstdint>
#include <vector>

#include "reel/runtime/renderer.h"

namespace reel::testing {

struct SceneOptions {
  uint32_t draws = 12;     // opaque draws per frame in the world bucket
  uint32_t auxBytes = 64;  // push constants per draw
  bool randomAux = false;  // incompressible aux data (for tests that need big chunks)
};

class Scene {
 public:
  explicit Scene(Renderer& renderer, SceneOptions options = {});
  // Records the frame renderer.recordingFrame() (does not kick).
  void record();
  // record() + kick().
  void frame();

  BufferHandle trackedBuffer() const { return buffers_[0]; }
  // The contents trackedBuffer() holds after the frames recorded so far have run.
  const std::vector<std::byte>& trackedContents() const { return tracked_; }

 private:
  void createResources();
  void recordWorld(uint64_t f);
  void recordOthers(uint64_t f);

  Renderer& renderer_;
  SceneOptions options_;
  CommandBucket<DrawKey>& world_;
  CommandBucket<uint32_t>& compute_;
  CommandBucket<uint64_t>& post_;
  CommandBucket<uint16_t>& ui_;
  CommandBucket<uint8_t>& tiny_;
  std::vector<BufferHandle> buffers_;
  std::vector<TextureHandle> textures_;
  SamplerHandle sampler_{};
  std::vector<ShaderHandle> shaders_;
  PipelineHandle pipeline_{};
  RenderTargetHandle target_{};
  BufferHandle temporary_{};
  SamplerHandle temporarySampler_{};
  ShaderHandle temporaryShader_{};
  PipelineHandle temporaryPipeline_{};
  RenderTargetHandle temporaryTarget_{};
  TextureHandle temporaryTexture_{};
  std::vector<std::byte> tracked_;
  uint64_t randomState_ = 0x9E3779B97F4A7C15ull;
};

}  // namespace reel::testing
