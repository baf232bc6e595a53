// default: every scene at a modest size, each in its own view of a 3 x 2 grid on the frame image.
#include "scene.h"

namespace reel::samples {
namespace {

class Default final : public Scene {
 public:
  void create(const SceneSetup& setup, const View& view) override {
    // Draw counts small enough for a validation run on lavapipe, large enough to exercise each path.
    scenes_.push_back(makeCubes());
    scenes_.push_back(makeTransparency());
    scenes_.push_back(makePost());
    scenes_.push_back(makeCompute());
    scenes_.push_back(makeStress());
    const uint32_t draws[] = {200, 32, 0, 512, 2000};
    const uint32_t columns = 3, rows = 2;
    for (uint32_t cell = 0; cell < scenes_.size(); ++cell) {
      const uint32_t column = cell % columns, row = cell / columns;
      View v;
      v.x = view.x + static_cast<int32_t>(view.width * column / columns);
      v.y = view.y + static_cast<int32_t>(view.height * row / rows);
      v.width = view.width * (column + 1) / columns - view.width * column / columns;
      v.height = view.height * (row + 1) / rows - view.height * row / rows;
      SceneSetup part = setup;
      part.draws = draws[cell];
      scenes_[cell]->create(part, v);
    }
  }

  void declarePasses(FrameRecorder& recorder) override {
    for (auto& scene : scenes_) scene->declarePasses(recorder);
  }
  void record(FrameRecorder& recorder) override {
    for (auto& scene : scenes_) scene->record(recorder);
  }
  void destroy(ResourceContext& resources) override {
    for (auto& scene : scenes_) scene->destroy(resources);
  }
  void views(std::vector<View>& out) const override {
    for (const auto& scene : scenes_) scene->views(out);
  }

 private:
  std::vector<std::unique_ptr<Scene>> scenes_;
};

}  // namespace

std::unique_ptr<Scene> makeDefault() {
  return std::make_unique<Default>();
}

}  // namespace reel::samples
