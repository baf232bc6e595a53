// The `passes` scene draws one material in two passes through a MaterialBinder. Rendered on lavapipe with
// validation on and captured, its trace replays to the same pixels as the app's own frames, bit for bit:
// the binder's packets are in the trace (before they were packets, the replay lacked both passes' state).

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "reel/image/compare.h"
#include "reel/replay/session.h"
#include "run.h"
#include "vulkan_test_env.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;

TEST(BinderScene, CaptureReplaysToTheAppsPixelsBitForBit) {
  useLavapipe();
  const fs::path dir = fs::temp_directory_path() / "reel_sample_replay_tests";
  fs::create_directories(dir);
  const fs::path trace = dir / "passes.reel";

  samples::RunOptions options;
  options.scene = "passes";
  options.frames = 4;
  options.width = 160;
  options.height = 96;
  options.validate = true;
  options.captureOut = trace.string();
  options.captureFirst = 1;
  options.captureLast = 3;
  options.saveFirst = 1;
  options.saveLast = 3;
  std::mutex mutex;
  std::map<uint64_t, image::Image> direct;
  auto ran = samples::runSample(options, [&](uint64_t frame, image::Image&& image) {
    std::lock_guard lock(mutex);
    direct[frame] = std::move(image);
  });
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  EXPECT_EQ(ran->errorCount, 0u) << joinErrors(ran->errors);
  ASSERT_EQ(direct.size(), 3u);

  auto reader = trace::TraceReader::open(trace.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), 3u);
  auto session = replay::ReplaySession::create(*reader, {.validate = true});
  ASSERT_TRUE(session.ok()) << session.error().message;
  for (size_t i = 0; i < reader->frameCount(); ++i) {
    auto replayed = (*session)->replayFrame(i, UINT64_MAX, replay::TargetChoice{});
    ASSERT_TRUE(replayed.ok()) << replayed.error().message;
    ASSERT_TRUE(replayed->image.has_value()) << "frame " << replayed->frame;
    ASSERT_EQ(direct.count(replayed->frame), 1u) << "frame " << replayed->frame;
    const image::Comparison c = image::compare(*replayed->image, direct.at(replayed->frame));
    EXPECT_TRUE(c.sameSize && c.differingPixels == 0) << "frame " << replayed->frame << ": " << c.summary();
  }
  EXPECT_EQ((*session)->takeDeviceErrors(), std::vector<std::string>{});
  EXPECT_TRUE((*session)->feeder().sortMismatches().empty()) << "the sorted order changed";
}

}  // namespace
}  // namespace reel::test
