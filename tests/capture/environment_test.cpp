#include "reel/capture/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

using capture::FrameRange;
using capture::installFromEnvironment;
using capture::kNoLastFrame;
using capture::parseFrameRange;

TEST(CaptureEnvironment, ParsesFrameRanges) {
  auto range = parseFrameRange("10-12");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 10u);
  EXPECT_EQ(range->last, 12u);
  range = parseFrameRange("7");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 7u);
  EXPECT_EQ(range->last, 7u);
  range = parseFrameRange("500-");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 500u);
  EXPECT_EQ(range->last, kNoLastFrame);
  for (const char* bad : {"", "-", "-4", "a-b", "5-3", "1-2-3", "1 -2", "12x", "0x10"}) {
    auto r = parseFrameRange(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("REEL_CAPTURE_FRAMES"), std::string::npos) << r.error().message;
  }
}

class EnvironmentTest : public ::testing::Test {
 protected:
  // Settings for a capture that installs no signal handlers and prints nothing.
  static capture::CaptureOptions quietDefaults() {
    capture::CaptureOptions defaults;
    defaults.handleSignals = false;
    defaults.log = [](std::string_view) {};
    return defaults;
  }
  void TearDown() override {
    ::unsetenv("REEL_CAPTURE");
    ::unsetenv("REEL_CAPTURE_FRAMES");
    ::unsetenv("REEL_CAPTURE_ENCODE_THREADS");
    ::unsetenv("REEL_CAPTURE_COMPRESS_THREADS");
    ::unsetenv("REEL_CAPTURE_PRIORITY");
    ::unsetenv("REEL_CAPTURE_LEVEL");
  }
};

TEST_F(EnvironmentTest, NothingHappensWithoutReelCapture) {
  ::unsetenv("REEL_CAPTURE");
  NullDevice device;
  Renderer renderer(device);
  auto capture = installFromEnvironment(renderer);
  ASSERT_TRUE(capture) << capture.error().message;
  EXPECT_EQ(capture->get(), nullptr);
  ::setenv("REEL_CAPTURE", "", 1);
  capture = installFromEnvironment(renderer);
  ASSERT_TRUE(capture);
  EXPECT_EQ(capture->get(), nullptr);
}

TEST_F(EnvironmentTest, CapturesTheFramesTheEnvironmentNamesAndPrintsASummary) {
  TempDir dir;
  const std::string path = dir.path("env.reel");
  ::setenv("REEL_CAPTURE", path.c_str(), 1);
  ::setenv("REEL_CAPTURE_FRAMES", "2-3", 1);
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  ::testing::internal::CaptureStderr();
  {
    capture::CaptureOptions defaults;
    defaults.handleSignals = false;
    auto capture = installFromEnvironment(renderer, defaults);
    ASSERT_TRUE(capture) << capture.error().message;
    ASSERT_NE(capture->get(), nullptr);
    for (int f = 0; f < 6; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
  }
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("reel capture: frames 2-3 (2) to " + path), std::string::npos) << printed;
  EXPECT_NE(printed.find("render thread waited"), std::string::npos) << printed;
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), 2u);
  EXPECT_EQ(reader->frameNumber(0), 2u);
  EXPECT_EQ(reader->frameNumber(1), 3u);
  EXPECT_FALSE(reader->header().appName.empty()) << "taken from /proc/self/cmdline";
}

TEST_F(EnvironmentTest, AMalformedRangeIsAnError) {
  ::setenv("REEL_CAPTURE", "/tmp/never-written.reel", 1);
  ::setenv("REEL_CAPTURE_FRAMES", "twelve", 1);
  NullDevice device;
  Renderer renderer(device);
  auto capture = installFromEnvironment(renderer);
  ASSERT_FALSE(capture);
  EXPECT_NE(capture.error().message.find("twelve"), std::string::npos) << capture.error().message;
}

// The benchmarks compare the encode threads with the writer thread alone through this variable.
TEST_F(EnvironmentTest, EncodeThreadsComeFromTheEnvironment) {
  TempDir dir;
  const std::string path = dir.path("threads.reel");
  ::setenv("REEL_CAPTURE", path.c_str(), 1);
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  const capture::CaptureOptions defaults = quietDefaults();
  for (const uint32_t threads : {0u, 3u}) {
    ::setenv("REEL_CAPTURE_ENCODE_THREADS", std::to_string(threads).c_str(), 1);
    auto capture = installFromEnvironment(renderer, defaults);
    ASSERT_TRUE(capture) << capture.error().message;
    for (int f = 0; f < 3; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
    EXPECT_EQ(capture.value()->stats().encodeThreads, threads);
    EXPECT_EQ(capture.value()->stats().framesWritten, 3u);
  }
  ::setenv("REEL_CAPTURE_ENCODE_THREADS", "many", 1);
  auto capture = installFromEnvironment(renderer, defaults);
  ASSERT_FALSE(capture);
  EXPECT_NE(capture.error().message.find("REEL_CAPTURE_ENCODE_THREADS='many'"), std::string::npos)
      << capture.error().message;
}

// A fast (negative) level reaches the compressor and the trace it writes reads back whole; a level out of
// zstd's range for captures, or not a number, is an error naming the variable.
TEST_F(EnvironmentTest, TheZstdLevelComesFromTheEnvironment) {
  TempDir dir;
  const std::string path = dir.path("level.reel");
  ::setenv("REEL_CAPTURE", path.c_str(), 1);
  ::setenv("REEL_CAPTURE_LEVEL", "-3", 1);
  auto options = capture::optionsFromEnvironment();
  ASSERT_TRUE(options) << options.error().message;
  ASSERT_TRUE(options->has_value());
  EXPECT_EQ((*options)->compression.level, -3);
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  const capture::CaptureOptions defaults = quietDefaults();
  {
    auto capture = installFromEnvironment(renderer, defaults);
    ASSERT_TRUE(capture) << capture.error().message;
    for (int f = 0; f < 3; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
  }
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->frameCount(), 3u);
  for (size_t i = 0; i < reader->frameCount(); ++i) EXPECT_TRUE(reader->readFrame(i)) << "frame " << i;
  for (const char* bad : {"0", "-8", "20", "fast", "1x", "-"}) {
    ::setenv("REEL_CAPTURE_LEVEL", bad, 1);
    auto refused = capture::optionsFromEnvironment();
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find(std::string("REEL_CAPTURE_LEVEL='") + bad + "'"),
              std::string::npos)
        << refused.error().message;
  }
}

TEST_F(EnvironmentTest, PriorityAndCompressionThreadsComeFromTheEnvironment) {
  TempDir dir;
  const std::string path = dir.path("priority.reel");
  ::setenv("REEL_CAPTURE", path.c_str(), 1);
  ::setenv("REEL_CAPTURE_PRIORITY", "idle", 1);
  ::setenv("REEL_CAPTURE_COMPRESS_THREADS", "0", 1);
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  capture::CaptureOptions defaults;
  defaults.handleSignals = false;
  std::string summary;
  defaults.log = [&](std::string_view line) { summary = line; };
  {
    auto capture = installFromEnvironment(renderer, defaults);
    ASSERT_TRUE(capture) << capture.error().message;
    for (int f = 0; f < 3; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
    EXPECT_EQ(capture.value()->stats().framesWritten, 3u);
  }
  EXPECT_NE(summary.find("at idle priority"), std::string::npos) << summary;
  // adaptive: idle, normal while behind (CaptureOptions::normalWhenBehind).
  ::setenv("REEL_CAPTURE_PRIORITY", "adaptive", 1);
  {
    auto capture = installFromEnvironment(renderer, defaults);
    ASSERT_TRUE(capture) << capture.error().message;
    for (int f = 0; f < 3; ++f) scene.frame();
    renderer.flushAndWait();
    ASSERT_TRUE((*capture)->finish());
  }
  EXPECT_NE(summary.find("idle priority, normal while behind"), std::string::npos) << summary;
  for (const auto& [variable, value] :
       {std::pair{"REEL_CAPTURE_PRIORITY", "low"}, std::pair{"REEL_CAPTURE_COMPRESS_THREADS", "-1"},
        std::pair{"REEL_CAPTURE_COMPRESS_THREADS", "65"}}) {
    ::setenv("REEL_CAPTURE_PRIORITY", "background", 1);
    ::setenv("REEL_CAPTURE_COMPRESS_THREADS", "1", 1);
    ::setenv(variable, value, 1);
    auto capture = installFromEnvironment(renderer, defaults);
    ASSERT_FALSE(capture) << variable << "=" << value;
    EXPECT_NE(capture.error().message.find(std::string(variable) + "='" + value + "'"), std::string::npos)
        << capture.error().message;
  }
}

}  // namespace
}  // namespace reel::testing
