#pragma once
// Golden images as test expectations (after Filament's ImageExpectations):
//
//   EXPECT_IMAGE(image, goldenDir / "cubes_frame3.png", {.threshold = 1});
//
// On a mismatch the test fails with the comparison's summary, and the actual, expected and diff images
// are written to <build>/test-output/<test suite>.<test>/<golden name>/, which the failure message
// names. With REEL_UPDATE_GOLDENS=1 in the environment the actual image is written as the new golden
// instead (for `scripts/update-goldens.sh`; a person reviews the change before committing it).

#include <gtest/gtest.h>

#include <filesystem>

#include "reel/image/compare.h"

namespace reel::test {

::testing::AssertionResult imageMatches(const image::Image& actual, const std::filesystem::path& golden,
                                        const image::Tolerance& tolerance);

}  // namespace reel::test

#define EXPECT_IMAGE(actualImage, goldenPath, ...) \
  EXPECT_TRUE(::reel::test::imageMatches((actualImage), (goldenPath), ::reel::image::Tolerance{__VA_ARGS__}))
#define ASSERT_IMAGE(actualImage, goldenPath, ...) \
  ASSERT_TRUE(::reel::test::imageMatches((actualImage), (goldenPath), ::reel::image::Tolerance{__VA_ARGS__}))
