#pragma once
// The example's frame, in three passes ordered by the draw key's viewport field:
//   viewport 0  a compute dispatch writes kParticles particles into a storage buffer;
//   viewport 1  a render pass into an offscreen texture draws them (the vertex shader reads that buffer);
//   viewport 2  a render pass into the frame image samples the offscreen texture on a full-screen
//               triangle, with a grid of translucent tiles on top.
// Four buckets, each filled by one thread per frame: "main" by the thread that kicks (the frame pass and
// the full-screen triangle), "effects" by a std::thread of its own (the dispatch and the offscreen pass),
// "tiles0" and "tiles1" by two more (half of the tiles each). The renderer merges the buckets and sorts
// the keys, so the image does not depend on which thread finished first.

#include <array>
#include <cstdint>

#include "reel/reel.h"

namespace example {

inline constexpr uint32_t kWidth = 320, kHeight = 240;  // the frame image
inline constexpr uint32_t kOffscreenSize = 256;
inline constexpr uint32_t kParticles = 384;
inline constexpr uint32_t kTileColumns = 8, kTileRows = 6;
inline constexpr uint32_t kTileThreads = 2;

class Scene {
 public:
  // Creates the buckets and requests every resource (applied by the first kick). Kick thread.
  explicit Scene(reel::Renderer& renderer);
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  // Records frame `frame` on the calling thread and kTileThreads + 1 std::threads, and returns once
  // they are joined: the caller kicks next. Its content depends on the frame number alone.
  void record(uint64_t frame);
  // Requests every resource's destruction (applied by the next kick). Kick thread.
  void destroy();

  reel::TextureHandle frameImage() const { return frameColor_; }

 private:
  void recordEffects(float time);
  void recordTiles(reel::CommandBucket<reel::DrawKey>& bucket, uint32_t first, uint32_t end, uint64_t frame);
  void recordFramePass(float time);

  reel::Renderer& renderer_;
  reel::CommandBucket<reel::DrawKey>& main_;
  reel::CommandBucket<reel::DrawKey>& effects_;
  std::array<reel::CommandBucket<reel::DrawKey>*, kTileThreads> tiles_{};

  reel::ShaderHandle particlesComp_, particlesVert_, particlesFrag_, compositeVert_, compositeFrag_,
      tileVert_, tileFrag_;
  reel::PipelineHandle compute_, particles_, composite_, tile_;
  reel::BufferHandle particleBuffer_;
  reel::TextureHandle offscreenColor_, frameColor_;
  reel::RenderTargetHandle offscreen_, frame_;
  reel::PassId computePass_, offscreenPass_, framePass_;  // this frame's, declared by record()
  reel::SamplerHandle sampler_;
};

}  // namespace example
