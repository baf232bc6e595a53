#include <gtest/gtest.h>

#include <fstream>

#include "cli_test_util.h"
#include "reel/image/image.h"

namespace reel::test {
namespace {

image::Image solid(uint8_t r, uint8_t g, uint8_t b) {
  image::Image img(8, 8);
  for (size_t i = 0; i < img.rgba.size(); i += 4) {
    img.rgba[i] = r;
    img.rgba[i + 1] = g;
    img.rgba[i + 2] = b;
    img.rgba[i + 3] = 255;
  }
  return img;
}

TEST(CliCompare, IdenticalImagesExitZero) {
  const auto dir = testFolder();
  ASSERT_TRUE(image::writePng(dir / "a.png", solid(10, 20, 30)).ok());
  ASSERT_TRUE(image::writePng(dir / "b.png", solid(10, 20, 30)).ok());
  const RunResult r = runReel("compare " + (dir / "a.png").string() + " " + (dir / "b.png").string());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("match: 0 of 64 pixels differ"), std::string::npos) << r.out;
  // Identical images have an infinite PSNR, which JSON cannot hold: null, never an out-of-range number.
  const RunResult json =
      runReel("compare " + (dir / "a.png").string() + " " + (dir / "b.png").string() + " --json");
  EXPECT_EQ(json.exitCode, 0) << json.err;
  EXPECT_NE(json.out.find("\"psnr_db\":null"), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("1e999"), std::string::npos) << json.out;
}

TEST(CliCompare, DifferenceOverToleranceExitsOneAndWritesTheDiff) {
  const auto dir = testFolder();
  image::Image b = solid(10, 20, 30);
  b.pixel(2, 2)[0] = 15;
  ASSERT_TRUE(image::writePng(dir / "a.png", solid(10, 20, 30)).ok());
  ASSERT_TRUE(image::writePng(dir / "b.png", b).ok());
  const std::string ab = (dir / "a.png").string() + " " + (dir / "b.png").string();
  RunResult r = runReel("compare " + ab + " --diff " + (dir / "diff.png").string());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  auto diff = image::readPng(dir / "diff.png");
  ASSERT_TRUE(diff.ok());
  EXPECT_GT(diff->pixel(2, 2)[0], 90);
  EXPECT_EQ(diff->pixel(2, 2)[1], 0);
  EXPECT_EQ(runReel("compare " + ab + " --threshold 5").exitCode, 0);
  EXPECT_EQ(runReel("compare " + ab + " --max-diff-fraction 0.02").exitCode, 0);
  EXPECT_EQ(runReel("compare " + ab + " --max-diff-fraction 0.01").exitCode, 1);
  r = runReel("compare " + ab + " --json");
  EXPECT_NE(r.out.find("\"result\":\"differ\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"max_difference\":5"), std::string::npos) << r.out;
}

TEST(CliCompare, FoldersAreMatchedByName) {
  const auto dir = testFolder();
  std::filesystem::create_directories(dir / "x");
  std::filesystem::create_directories(dir / "y");
  for (int i = 0; i < 3; ++i) {
    const std::string name = "frame_" + std::to_string(i) + ".png";
    ASSERT_TRUE(image::writePng(dir / "x" / name, solid(i, 0, 0)).ok());
    ASSERT_TRUE(image::writePng(dir / "y" / name, solid(i == 1 ? 99 : i, 0, 0)).ok());
  }
  const RunResult r = runReel("compare " + (dir / "x").string() + " " + (dir / "y").string() + " --diff " +
                              (dir / "diffs").string());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("differ: 1 of 3 images differ"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "diffs" / "frame_1.png"));
  EXPECT_FALSE(std::filesystem::exists(dir / "diffs" / "frame_0.png"));
}

TEST(CliCompare, BadInputIsOneLineAndExitTwo) {
  const auto dir = testFolder();
  ASSERT_TRUE(image::writePng(dir / "a.png", solid(1, 2, 3)).ok());
  std::ofstream(dir / "text.png") << "not a png";
  const std::string a = (dir / "a.png").string();
  struct Case {
    std::string args, expected;
  } cases[] = {
      {"compare " + a + " " + (dir / "missing.png").string(), "missing.png: no such file"},
      {"compare " + a + " " + (dir / "text.png").string(), "text.png: not a PNG file"},
      {"compare " + a + " " + dir.string(), dir.string() + " is a folder and " + a + " a file"},
      {"compare " + dir.string() + " " + a, dir.string() + " is a folder and " + a + " a file"},
      {"compare " + a + " /dev/zero", "/dev/zero: not a regular file"},
      {"compare " + a + " " + a + " --threshold 300", "threshold"},
      {"compare " + a, "B is required"},
      {"compare " + a + " " + a + " --no-such-flag", "no-such-flag"},
      {"frobnicate", "frobnicate"},
  };
  for (const Case& c : cases) {
    const RunResult r = runReel(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
}

}  // namespace
}  // namespace reel::test
