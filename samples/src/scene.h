#pragma once
// The sample's scenes and what they record with. A scene creates its resources once, records one frame
// at a time from the frame number alone (deterministic: frame N is the same image on every run), and
// destroys its resources at the end. It uses only the runtime's public API: ResourceContext, buckets of
// DrawKey, and commands.
//
// Frame layout by DrawKey viewport (the key's top field, so it orders the whole frame):
//   0  compute work (dispatches that later passes read)
//   1  offscreen passes (the post scene renders its scene here)
//   2  cubes   3 transparency   4 post   5 compute   6 stress   - one view each on the frame image
//   7  HUD over the whole frame
// Scenes outside `default` reuse these: passes draws in the cubes view; deferred keeps its G-buffer,
// lighting dispatch and post chain in viewport 1 (each pass in layers of its own, deferred.cpp) and
// composites in the post view.
// Inside a view's viewport: layer 0 holds commands (uniform uploads at priority 10, the app's
// BeginRenderPass at 100, the scene's view state at 200), layers 1..14 the draws, and the app's
// EndRenderPass is a command in the last group (layer 15, subtractive), after every draw.

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
inline DrawKey passBegin(uint32_t viewport) {
  return DrawKey::command(viewport, 0, Translucency::Opaque, 100);
}
inline DrawKey viewSetup(uint32_t viewport) {
  return DrawKey::command(viewport, 0, Translucency::Opaque, 200);
}
inline DrawKey passEnd(uint32_t viewport) {
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
};

class Scene {
 public:
  virtual ~Scene() = default;
  // `view`: where the scene draws (the composite "default" scene splits it among its parts).
  virtual void create(const SceneSetup& setup, const View& view) = 0;
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
