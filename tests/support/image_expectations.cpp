#include "image_expectations.h"

#include <cstdlib>
#include <string>

namespace reel::test {

namespace fs = std::filesystem;

::testing::AssertionResult imageMatches(const image::Image& actual, const fs::path& golden,
                                        const image::Tolerance& tolerance) {
  const char* update = std::getenv("REEL_UPDATE_GOLDENS");
  if (update && std::string(update) == "1") {
    std::error_code ec;
    fs::create_directories(golden.parent_path(), ec);
    if (auto written = image::writePng(golden, actual); !written) {
      return ::testing::AssertionFailure() << "updating the golden: " << written.error().message;
    }
    return ::testing::AssertionSuccess() << "golden updated: " << golden.string();
  }

  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path outDir = fs::path(REEL_TEST_OUTPUT_DIR) /
                          (std::string(info->test_suite_name()) + "." + info->name()) / golden.stem();
  auto writeOutputs = [&](const image::Image* expected, const image::Image* diff) {
    std::error_code ec;
    fs::create_directories(outDir, ec);
    (void)image::writePng(outDir / "actual.png", actual);
    if (expected) (void)image::writePng(outDir / "expected.png", *expected);
    if (diff && !diff->empty()) (void)image::writePng(outDir / "diff.png", *diff);
  };

  auto expected = image::readPng(golden);
  if (!expected) {
    writeOutputs(nullptr, nullptr);
    return ::testing::AssertionFailure() << "no golden to compare with: " << expected.error().message
                                         << "\n  actual image written to " << (outDir / "actual.png").string()
                                         << "\n  (REEL_UPDATE_GOLDENS=1 writes it as the golden)";
  }
  const image::Comparison comparison = image::compare(actual, *expected, tolerance);
  if (comparison.matches) return ::testing::AssertionSuccess() << comparison.summary();
  writeOutputs(&*expected, &comparison.diff);
  return ::testing::AssertionFailure() << golden.filename().string() << ": " << comparison.summary()
                                       << " (threshold " << tolerance.threshold << ", allowed fraction "
                                       << tolerance.maxDiffFraction << ")\n  actual, expected and diff images in "
                                       << outDir.string();
}

}  // namespace reel::test
