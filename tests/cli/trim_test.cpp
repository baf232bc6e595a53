// `reel trim` on a real device (lavapipe here): every frame of a trimmed trace replays to the same image
// as the same frame of the whole trace, bit for bit. The trimmed trace starts from what the GPU left in
// every resource at its first frame (render targets kept across frames, compute outputs, generated mips),
// which a trim on the null device cannot know.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_test_util.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;

class Trim : public ::testing::TestWithParam<const char*> {};

TEST_P(Trim, EveryTrimmedFrameReplaysToTheWholeTracesImage) {
  const fs::path dir = testFolder();
  const fs::path whole = dir / "whole.reel", trimmed = dir / "trimmed.reel";
  const std::string capture = std::string(REEL_SAMPLE_PATH) + " --scene " + GetParam() +
                              " --frames 8 --width 96 --height 96 --headless --capture 1-7 --capture-out " +
                              whole.string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(capture.c_str()), 0) << capture;

  const RunResult trim = runReel("trim " + whole.string() + " --frames 4-6 -o " + trimmed.string());
  ASSERT_EQ(trim.exitCode, 0) << trim.err;
  EXPECT_NE(trim.out.find("frames 4-6 of"), std::string::npos) << trim.out;

  const RunResult replayWhole = runReel("replay " + whole.string() + " --out " + (dir / "whole").string());
  ASSERT_EQ(replayWhole.exitCode, 0) << replayWhole.err;
  const RunResult replayTrimmed =
      runReel("replay " + trimmed.string() + " --out " + (dir / "trimmed").string());
  ASSERT_EQ(replayTrimmed.exitCode, 0) << replayTrimmed.err;

  size_t images = 0;
  for (const auto& entry : fs::directory_iterator(dir / "trimmed")) {
    ++images;
    const fs::path same = dir / "whole" / entry.path().filename();
    ASSERT_TRUE(fs::exists(same)) << entry.path() << " is not a frame of the whole trace";
    const RunResult compare =
        runReel("compare " + entry.path().string() + " " + same.string() + " --threshold 0");
    EXPECT_EQ(compare.exitCode, 0) << entry.path().filename() << ": " << compare.out << compare.err;
  }
  EXPECT_EQ(images, 3u) << "frames 4, 5 and 6";
}

INSTANTIATE_TEST_SUITE_P(Scenes, Trim, ::testing::Values("cubes", "compute", "post"));

}  // namespace
}  // namespace reel::test
