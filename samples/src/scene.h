#pragma once
// The sample's scenes and what they record with. A scene creates its resources once, records one frame
// at a time from the frame number alone (deterministic: frame N is the same image on every run), and
// destroys its resources at the end. It uses only the runtime's public API: ResourceContext, buckets of
// DrawKey, and commands.
//
// Frame layout: declared passes (ResourceContext::declarePass), which run in the order they are declared
// and begin and end around the keys that name them:
//   1. the scenes' own passes (Scene::declarePasses): compute's particle simulation, post's offscreen
//      scene and glow blit, deferred's G-buffer, lighting and post chain
//   2. one pass per view on the frame image, in key-viewport order (FrameRecorder::viewPass):
//      2 cubes   3 transparency   4 post   5 compute   6 stress
//   3. the HUD over the whole frame (key viewport 7)
// Scenes outside `default` reuse the views: passes draws in the cubes view; deferred composites in the
// post view. Inside a pass, keys keep their viewport field and order by layer: layer 0 holds commands
// (uniform uploads at priority 10, the view's debug label at 100, the scene's view state at 200), layers
// 1..14 the draws, and the label's end is a command in the last group (layer 15, subtractive).

#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/resource_context.h"

namespace reel {
class WorkerPool;
}

namespace reel::samples {

class Assets;

inline constexpr Format kColorFormat = Format::RGBA8Unorm;
inline constexpr Format kDepthFormat = Format::D32Float;

namespace viewport {
inline constexpr uint32_t kComputeWork = 0, kOffscreen = 1, kCubes = 2, kTransparency = 3, kPost = 4,
                          kCompute = 5, kStress = 6, kHud = 7;
}

namespace keys {
inline DrawKey uploads(uint32_t viewport) {
  return DrawKey::command(viewport, 0, Translucency::Opaque, 10);
}
inline DrawKey viewStart(uint32_t viewport) {
  return DrawKey::command(viewport, 0, Translucency::Opaque, 100);
}
inline DrawKey viewSetup(uint32_t viewport) {
  return DrawKey::command(viewport, 0, Translucency::Opaque, 200);
}
inline DrawKey viewEnd(uint32_t viewport) {
  return DrawKey::command(viewport, 15, Translucency::Subtractive, UINT32_MAX);
}
}  // namespace keys

// Where a scene draws: a rectangle of the frame image, under a key viewport.
struct View {
  uint32_t keyViewport = viewport::kCubes;
  int32_t x = 0, y = 0;
  uint32_t width = 0, height = 0;
  const char* label = "";
  float aspect() const { return height ? float(width) / float(height) : 1.0f; }
};

struct SceneSetup {
  ResourceContext& resources;
  const Assets& assets;
  uint32_t frameWidth = 0, frameHeight = 0;  // the frame image
  uint32_t draws = 0;                        // --draws; 0: the scene's default
};

// One frame's recording: the buckets, the frame number, and the recording threads.
class FrameRecorder {
 public:
  FrameRecorder(uint64_t frame, ResourceContext& resources, CommandBucket<DrawKey>& main,
                std::span<CommandBucket<DrawKey>* const> workers, WorkerPool& pool)
      : frame_(frame), resources_(resources), main_(main), workers_(workers), pool_(pool) {}

  uint64_t frame() const { return frame_; }
  float time() const { return float(frame_) / 60.0f; }  // animation clock: the frame number, never the wall
  ResourceContext& resources() { return resources_; }
  CommandBucket<DrawKey>& main() { return main_; }  // the kick thread's bucket
  uint32_t workerCount() const { return static_cast<uint32_t>(workers_.size()); }
  // This frame's pass for the view of that key viewport (declared by the app after the scenes' own).
  PassId viewPass(uint32_t keyViewport) const { return viewPasses_[keyViewport]; }
  void setViewPass(uint32_t keyViewport, PassId pass) { viewPasses_[keyViewport] = pass; }

  // Calls fn(bucket, begin, end) on every recording thread for its contiguous share of [0, count) and
  // waits. Thread i records into worker bucket i: the renderer merges buckets in creation order, so the
  // sorted order (ties included) never depends on which thread ran first.
  void parallel(uint32_t count, const std::function<void(CommandBucket<DrawKey>&, uint32_t, uint32_t)>& fn);

 private:
  uint64_t frame_;
  ResourceContext& resources_;
  CommandBucket<DrawKey>& main_;
  std::span<CommandBucket<DrawKey>* const> workers_;
  WorkerPool& pool_;
  std::array<PassId, 8> viewPasses_{};  // by key viewport (3 bits)
};

class Scene {
 public:
  virtual ~Scene() = default;
  // `view`: where the scene draws (the composite "default" scene splits it among its parts).
  virtual void create(const SceneSetup& setup, const View& view) = 0;
  // Declares the passes the scene runs before the views, in order (none by default). Called every frame
  // before record(), and before the app declares the view passes.
  virtual void declarePasses(FrameRecorder& recorder) { (void)recorder; }
  virtual void record(FrameRecorder& recorder) = 0;
  virtual void destroy(ResourceContext& resources) = 0;
  // The views on the frame image that the app opens a render pass for.
  virtual void views(std::vector<View>& out) const = 0;
};

// The scenes by --scene name; null for an unknown name.
std::unique_ptr<Scene> makeScene(std::string_view name);
std::span<const char* const> sceneNames();  // every name makeScene knows, in --help order

std::unique_ptr<Scene> makeCubes();
std::unique_ptr<Scene> makeTransparency();
std::unique_ptr<Scene> makePost();
std::unique_ptr<Scene> makeCompute();
std::unique_ptr<Scene> makeStress();
std::unique_ptr<Scene> makeDefault();
std::unique_ptr<Scene> makeDeferred();

}  // namespace reel::samples
