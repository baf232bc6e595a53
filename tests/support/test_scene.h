#pragma once
// A small deterministic scene on the runtime's public API, for tests that need real frames without a
// GPU: two buckets (DrawKey and u32 keys), recording from two threads, resources created, written and
// destroyed while running, chains, shared packets, auxiliary data and tags. Frame f is the same on
// every run.

#include <cstdint>

#include "reel/runtime/renderer.h"

namespace reel::test {

class TestScene {
 public:
  explicit TestScene(Renderer& renderer);
  // Records frame `f` (the caller kicks).
  void record(uint64_t f);

 private:
  Renderer& renderer_;
  CommandBucket<DrawKey>& world_;
  CommandBucket<uint32_t>& post_;
  BufferHandle vertices_, uniforms_;
  TextureHandle albedo_, color_;
  RenderTargetHandle target_;
  ShaderHandle vs_, fs_;
  PipelineHandle opaque_, blended_;
  SamplerHandle sampler_;
  BufferHandle transient_;  // created every third frame and destroyed the next
};

}  // namespace reel::test
