// Every scene renders headless on lavapipe with validation on (synchronization checks included) and
// reports nothing; its image matches the golden; the images do not depend on frames in flight.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "image_expectations.h"
#include "run.h"
#include "vulkan_test_env.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;

struct SceneCase {
  const char* scene;
  uint32_t draws;   // small: lavapipe with validation costs tens of microseconds per draw
  uint64_t frames;  // enough to reach the scene's resource churn (transparency: frame 16, compute: 60)
};

void PrintTo(const SceneCase& c, std::ostream* os) {
  *os << c.scene;
}

struct Rendered {
  samples::RunResult result;
  std::map<uint64_t, image::Image> images;
};

Rendered render(samples::RunOptions options) {
  useLavapipe();
  options.headless = true;
  options.validate = true;
  Rendered out;
  std::mutex mutex;
  auto result = samples::runSample(options, [&](uint64_t frame, image::Image&& image) {
    std::lock_guard lock(mutex);
    out.images[frame] = std::move(image);
  });
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (result.ok()) out.result = std::move(*result);
  return out;
}

// Golden images are compared exactly: lavapipe renders the same bits on one Mesa build whatever the
// JIT's vector width (tests/samples/README.md says what was measured). REEL_GOLDEN_THRESHOLD=N allows a
// per-channel difference of N on a host whose lavapipe differs (a CPU without SSE4.1: up to 11).
image::Tolerance goldenTolerance() {
  const char* threshold = std::getenv("REEL_GOLDEN_THRESHOLD");
  return image::Tolerance{.threshold = threshold ? static_cast<uint32_t>(std::atoi(threshold)) : 0u,
                          .maxDiffFraction = 0.0};
}

class Scenes : public ::testing::TestWithParam<SceneCase> {};

TEST_P(Scenes, RenderValidationCleanAndMatchTheGolden) {
  const SceneCase c = GetParam();
  samples::RunOptions options;
  options.scene = c.scene;
  options.draws = c.draws;
  options.frames = c.frames;
  options.width = 256;
  options.height = 256;
  options.saveFirst = options.saveLast = c.frames - 1;
  const Rendered r = render(options);
  EXPECT_EQ(r.result.errorCount, 0u) << joinErrors(r.result.errors);
  EXPECT_TRUE(r.result.imageErrors.empty()) << joinErrors(r.result.imageErrors);
  EXPECT_EQ(r.result.frames, c.frames);
  ASSERT_EQ(r.images.count(c.frames - 1), 1u);
  const image::Tolerance tolerance = goldenTolerance();
  EXPECT_IMAGE(r.images.at(c.frames - 1), fs::path(REEL_GOLDEN_DIR) / (std::string(c.scene) + ".png"),
               tolerance.threshold, tolerance.maxDiffFraction);
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, Scenes,
                         ::testing::Values(SceneCase{"cubes", 400, 3}, SceneCase{"transparency", 0, 18},
                                           SceneCase{"post", 0, 3}, SceneCase{"compute", 256, 62},
                                           SceneCase{"stress", 6000, 3}, SceneCase{"default", 0, 4},
                                           SceneCase{"deferred", 0, 3}),
                         [](const ::testing::TestParamInfo<SceneCase>& p) {
                           return std::string(p.param.scene);
                         });

TEST(SceneRuns, FramesInFlightDoNotChangeTheImages) {
  samples::RunOptions options;
  options.scene = "default";
  options.frames = 5;
  options.width = 160;
  options.height = 96;
  std::map<uint64_t, image::Image> reference;
  for (uint32_t inFlight = 1; inFlight <= 4; ++inFlight) {
    options.framesInFlight = inFlight;
    const Rendered r = render(options);
    EXPECT_EQ(r.result.errorCount, 0u) << "in flight " << inFlight << joinErrors(r.result.errors);
    ASSERT_EQ(r.images.size(), 5u) << "in flight " << inFlight;
    if (inFlight == 1) {
      reference = r.images;
      continue;
    }
    for (const auto& [frame, image] : r.images) {
      const image::Comparison c = image::compare(image, reference.at(frame));
      EXPECT_TRUE(c.matches && c.differingPixels == 0)
          << "frame " << frame << ", " << inFlight << " in flight: " << c.summary();
    }
  }
}

TEST(SceneRuns, FramesDifferFromEachOther) {
  // The animation runs on the frame number: consecutive frames are different images (a test that the
  // images compared above are not, say, all the clear color).
  samples::RunOptions options;
  options.scene = "cubes";
  options.draws = 50;
  options.frames = 2;
  options.width = 64;
  options.height = 64;
  const Rendered r = render(options);
  ASSERT_EQ(r.images.size(), 2u);
  EXPECT_FALSE(image::compare(r.images.at(0), r.images.at(1)).matches);
}

TEST(SceneRuns, UnknownSceneAndBadOptionsAreErrors) {
  samples::RunOptions options;
  options.scene = "teapot";
  auto r = samples::runSample(options, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown scene 'teapot'"), std::string::npos) << r.error().message;
  options.scene = "cubes";
  options.framesInFlight = 7;
  EXPECT_FALSE(samples::runSample(options, {}).ok());
}

}  // namespace
}  // namespace reel::test
