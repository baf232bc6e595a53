// Instance merging changes no pixel (docs/instance-merging.md). On lavapipe with validation on
// (synchronization checks included): the `stress` scene rendered merged equals its unmerged render, pixel
// for pixel, at 1, 2, 4 and 8 render workers; and a `stress` capture that starts mid-run (its pipelines'
// opt-in comes from the resources alive at its first frame) replays merged and unmerged, at 1, 2, 4 and 8
// workers, to the app's own pixels.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "reel/image/compare.h"
#include "reel/replay/session.h"
#include "run.h"
#include "vulkan_test_env.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kWorkerCounts[] = {1, 2, 4, 8};

// Sets an environment variable for its lifetime (the renderer reads REEL_MERGE_INSTANCES and
// REEL_RENDER_WORKERS when it is created), then puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

struct Rendered {
  samples::RunResult result;
  std::map<uint64_t, image::Image> images;
};

Rendered renderStress(uint32_t workers, bool merge, const std::string& captureOut = {}) {
  useLavapipe();
  const ScopedEnv env("REEL_MERGE_INSTANCES", merge ? "1" : "0");
  samples::RunOptions options;
  options.scene = "stress";
  options.draws = 3000;
  options.frames = 3;
  options.width = 160;
  options.height = 96;
  options.headless = true;
  options.validate = true;
  options.renderWorkers = workers;
  if (!captureOut.empty()) {
    options.captureOut = captureOut;
    options.captureFirst = 1;
    options.captureLast = 2;
  }
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

void expectSameImages(const std::map<uint64_t, image::Image>& actual,
                      const std::map<uint64_t, image::Image>& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (const auto& [frame, image] : expected) {
    ASSERT_EQ(actual.count(frame), 1u) << what << ": frame " << frame;
    const image::Comparison c = image::compare(actual.at(frame), image);
    EXPECT_TRUE(c.sameSize && c.differingPixels == 0) << what << ", frame " << frame << ": " << c.summary();
  }
}

TEST(InstanceMergeImages, StressMergedEqualsUnmergedAtEveryWorkerCount) {
  const Rendered reference = renderStress(1, false);
  EXPECT_EQ(reference.result.errorCount, 0u) << joinErrors(reference.result.errors);
  EXPECT_EQ(reference.result.rendererStats.drawsSubmitted, reference.result.rendererStats.drawsRecorded);
  ASSERT_EQ(reference.images.size(), 3u);
  for (const uint32_t workers : kWorkerCounts) {
    const Rendered merged = renderStress(workers, true);
    const std::string what = "merged, " + std::to_string(workers) + " workers";
    EXPECT_EQ(merged.result.errorCount, 0u) << what << joinErrors(merged.result.errors);
    // Merging happened: the opaque quarter of the draws folds into a few instanced draws.
    EXPECT_EQ(merged.result.rendererStats.drawsRecorded, reference.result.rendererStats.drawsRecorded)
        << what;
    EXPECT_LT(merged.result.rendererStats.drawsSubmitted * 10, merged.result.rendererStats.drawsRecorded * 9)
        << what;
    expectSameImages(merged.images, reference.images, what);
  }
}

TEST(InstanceMergeImages, AStressCaptureReplaysMergedAndUnmergedToTheAppsPixels) {
  const fs::path dir = fs::temp_directory_path() / "reel_instance_merge_images_test";
  fs::create_directories(dir);
  const fs::path trace = dir / "stress.reel";
  const Rendered app = renderStress(1, true, trace.string());
  EXPECT_EQ(app.result.errorCount, 0u) << joinErrors(app.result.errors);
  std::map<uint64_t, image::Image> captured;
  for (uint64_t frame = 1; frame <= 2; ++frame) captured[frame] = app.images.at(frame);

  for (const bool merge : {false, true}) {
    for (const uint32_t workers : kWorkerCounts) {
      const std::string what =
          std::string(merge ? "merged" : "unmerged") + " replay, " + std::to_string(workers) + " workers";
      const ScopedEnv mergeEnv("REEL_MERGE_INSTANCES", merge ? "1" : "0");
      const ScopedEnv workersEnv("REEL_RENDER_WORKERS", std::to_string(workers));
      auto reader = trace::TraceReader::open(trace.string());
      ASSERT_TRUE(reader.ok()) << reader.error().message;
      ASSERT_EQ(reader->frameCount(), 2u);
      auto session = replay::ReplaySession::create(*reader, {.validate = true});
      ASSERT_TRUE(session.ok()) << session.error().message;
      std::map<uint64_t, image::Image> replayed;
      for (size_t i = 0; i < reader->frameCount(); ++i) {
        auto frame = (*session)->replayFrame(i, UINT64_MAX, replay::TargetChoice{});
        ASSERT_TRUE(frame.ok()) << what << ": " << frame.error().message;
        ASSERT_TRUE(frame->image.has_value()) << what << ": frame " << frame->frame;
        replayed[frame->frame] = std::move(*frame->image);
      }
      EXPECT_EQ((*session)->takeDeviceErrors(), std::vector<std::string>{}) << what;
      // The replay merges again, from the packets and the pipelines' opt-in the capture carried.
      const RendererStats stats = (*session)->renderer().stats();
      if (merge) {
        EXPECT_LT(stats.drawsSubmitted * 10, stats.drawsRecorded * 9) << what;
      } else {
        EXPECT_EQ(stats.drawsSubmitted, stats.drawsRecorded) << what;
      }
      expectSameImages(replayed, captured, what);
    }
  }
}

}  // namespace
}  // namespace reel::test
