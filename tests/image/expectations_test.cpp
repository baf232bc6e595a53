#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include "image_expectations.h"

namespace reel::test {
namespace {

image::Image checker(uint8_t value) {
  image::Image img(4, 4);
  for (uint32_t i = 0; i < 16; ++i) {
    img.rgba[i * 4] = (i % 2) ? value : 0;
    img.rgba[i * 4 + 3] = 255;
  }
  return img;
}

std::filesystem::path goldenPath(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / ("reel_expect_image_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

TEST(ExpectImage, PassesOnTheGoldenAndWithinTolerance) {
  const auto golden = goldenPath("pass.png");
  ASSERT_TRUE(image::writePng(golden, checker(200)).ok());
  EXPECT_IMAGE(checker(200), golden);
  EXPECT_IMAGE(checker(203), golden, .threshold = 3);
}

TEST(ExpectImage, FailsOnADifferenceAndLeavesTheImages) {
  const auto golden = goldenPath("fail.png");
  ASSERT_TRUE(image::writePng(golden, checker(200)).ok());
  EXPECT_NONFATAL_FAILURE(EXPECT_IMAGE(checker(210), golden, .threshold = 3), "8 of 16 pixels differ");
  const auto out = std::filesystem::path(REEL_TEST_OUTPUT_DIR_FOR_TESTS) /
                   "ExpectImage.FailsOnADifferenceAndLeavesTheImages" / "fail";
  EXPECT_TRUE(std::filesystem::exists(out / "actual.png"));
  EXPECT_TRUE(std::filesystem::exists(out / "expected.png"));
  EXPECT_TRUE(std::filesystem::exists(out / "diff.png"));
}

TEST(ExpectImage, MissingGoldenFailsAndSaysHowToCreateIt) {
  EXPECT_NONFATAL_FAILURE(EXPECT_IMAGE(checker(1), goldenPath("none.png")), "REEL_UPDATE_GOLDENS=1");
}

}  // namespace
}  // namespace reel::test
