// The viewer's side of the one command map (reel/trace/command_map.h; tests/cli/command_map_test.cpp has
// verify's and replay's): the image panel shows a renumbered trace (its commands listed in another order,
// as a build with another commands.inc writes it) as it shows the original, and for a trace with one
// command's layout changed it prints the message that `reel verify` and `reel replay` print.

#include <gtest/gtest.h>

#include <filesystem>

#include "model/render_targets.h"
#include "model/stepping_replay.h"
#include "model/trace_document.h"
#include "rewrite.h"

namespace reel::viewer::testing {
namespace {

const std::string kCubes = std::string(REEL_TRACES_DIR) + "/cubes.reel";

std::filesystem::path testFolder() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() / "reel_viewer_command_map_tests" / info->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The image panel after the last command of the last frame, on the device tests render on.
Result<ReplayOutcome> lastImage(const std::string& path) {
  auto doc = TraceDocument::open(path);
  if (!doc) return doc.error();
  const size_t last = doc.value()->frameCount() - 1;
  auto frame = doc.value()->load(last);
  if (!frame) return frame.error();
  const LoadedFrame& f = *frame.value();
  const PassTargets targets(f.record, f.table, doc.value()->header());
  const auto target = targets.targetAt(static_cast<uint32_t>(f.table.size() - 1));
  if (!target) return fail(path, ": no render pass in the last frame");
  auto session = SteppingReplay::open(path, DeviceChoice{});
  if (!session) return session.error();
  ReplayRequest request;
  request.frameIndex = last;
  request.images.push_back({ImageSource::Kind::TargetColor, *target, 0});
  return session.value()->run(request);
}

TEST(ViewerCommandMap, ARenumberedTraceShowsTheSameImage) {
  const auto dir = testFolder();
  const std::string renumbered = (dir / "renumbered.reel").string();
  auto ok = reel::testing::rewriteTrace(kCubes, renumbered, {.renumber = reel::testing::rotatedIds});
  ASSERT_TRUE(ok) << ok.error().message;
  auto original = lastImage(kCubes);
  auto moved = lastImage(renumbered);
  ASSERT_TRUE(original) << original.error().message;
  ASSERT_TRUE(moved) << moved.error().message;
  ASSERT_EQ(original->images.size(), 1u);
  ASSERT_EQ(moved->images.size(), 1u);
  EXPECT_EQ(moved->images[0].error, "");
  EXPECT_FALSE(original->images[0].texels.empty());
  EXPECT_TRUE(moved->images[0].texels == original->images[0].texels);
}

TEST(ViewerCommandMap, AChangedLayoutShowsTheMessageVerifyAndReplayPrint) {
  const auto dir = testFolder();
  const std::string changed = (dir / "changed.reel").string();
  auto ok = reel::testing::rewriteTrace(
      kCubes, changed, {.renumber = reel::testing::rotatedIds, .changeLayoutOf = "DrawIndexed"});
  ASSERT_TRUE(ok) << ok.error().message;
  auto shown = lastImage(changed);
  ASSERT_FALSE(shown);
  EXPECT_NE(shown.error().message.find(
                "command DrawIndexed was captured with a layout this build of reel does not have"),
            std::string::npos)
      << shown.error().message;
}

}  // namespace
}  // namespace reel::viewer::testing
