// What environment.h says of reel-sample: it calls installFromEnvironment, so REEL_CAPTURE and
// REEL_CAPTURE_FRAMES capture it with no command-line option, and --capture-out wins over them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "reel/runtime/frame_timing.h"
#include "reel/trace/reader.h"

namespace reel::testing {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ReelSampleEnvironment : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("reel_capture_env_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs reel-sample headless on lavapipe with `environment` before it; returns its output (stdout, then
  // stderr unless `stdoutOnly`), and fails the test when it does not exit with `expectedExit`.
  std::string run(const std::string& environment, const std::string& arguments, int expectedExit = 0,
                  bool stdoutOnly = false) {
    const fs::path out = dir_ / "out.txt";
    const std::string command = "REEL_DEVICE=llvmpipe " + environment + " " + REEL_SAMPLE_PATH +
                                " --scene cubes --draws 20 --frames 5 --width 64 --height 48 --headless " +
                                arguments + " >" + out.string() + (stdoutOnly ? " 2>/dev/null" : " 2>&1");
    const int status = std::system(command.c_str());
    const std::string text = slurp(out);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == expectedExit) << command << "\n" << text;
    return text;
  }

  fs::path dir_;
};

TEST_F(ReelSampleEnvironment, ReelCaptureCapturesTheFramesItNames) {
  const fs::path trace = dir_ / "env.reel";
  const std::string out = run("REEL_CAPTURE=" + trace.string() + " REEL_CAPTURE_FRAMES=1-3", "");
  auto reader = trace::TraceReader::open(trace.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message << "\n" << out;
  ASSERT_EQ(reader->frameCount(), 3u);
  EXPECT_EQ(reader->frameNumber(0), 1u);
  EXPECT_EQ(reader->frameNumber(2), 3u);
  EXPECT_TRUE(reader->complete());
  EXPECT_EQ(reader->header().appName, "reel-sample");
}

TEST_F(ReelSampleEnvironment, CaptureOutOnTheCommandLineWinsOverTheEnvironment) {
  const fs::path fromEnvironment = dir_ / "env.reel", fromCommandLine = dir_ / "cli.reel";
  const std::string out = run("REEL_CAPTURE=" + fromEnvironment.string(),
                              "--capture 2-2 --capture-out " + fromCommandLine.string());
  EXPECT_FALSE(fs::exists(fromEnvironment)) << out;
  auto reader = trace::TraceReader::open(fromCommandLine.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message << "\n" << out;
  ASSERT_EQ(reader->frameCount(), 1u);
  EXPECT_EQ(reader->frameNumber(0), 2u);
}

TEST_F(ReelSampleEnvironment, TagsNameSourceFilesRelativeToTheSourceRoot) {
  const fs::path trace = dir_ / "env.reel";
  const std::string out = run("REEL_CAPTURE=" + trace.string() + " REEL_CAPTURE_FRAMES=1-1", "");
  auto reader = trace::TraceReader::open(trace.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message << "\n" << out;
  auto frame = reader->readFrame(0);
  ASSERT_TRUE(frame.ok()) << frame.error().message;
  size_t tags = 0;
  for (const auto& bucket : frame->buckets) {
    for (const trace::TagView& tag : bucket.tags()) {
      ++tags;
      EXPECT_FALSE(tag.file.starts_with("/")) << "an absolute path in a trace: " << tag.file;
      EXPECT_TRUE(tag.file.starts_with("samples/")) << tag.file;
    }
  }
  EXPECT_GT(tags, 0u) << "the sample tags its packets";
}

TEST_F(ReelSampleEnvironment, AMalformedFrameRangeIsBadInputExitTwo) {
  const fs::path trace = dir_ / "env.reel";
  const std::string out = run("REEL_CAPTURE=" + trace.string() + " REEL_CAPTURE_FRAMES=5-x", "", 2);
  EXPECT_NE(out.find("REEL_CAPTURE_FRAMES='5-x'"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(trace));
}

TEST_F(ReelSampleEnvironment, StatsWriteOnlyJsonToStdout) {
  const fs::path trace = dir_ / "env.reel";
  const std::string out = run("REEL_CAPTURE=" + trace.string(), "--stats", 0, /*stdoutOnly=*/true);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.front(), '{') << out;
  EXPECT_EQ(out[out.find_last_not_of('\n')], '}') << out;
  EXPECT_EQ(out.find("reel-sample:"), std::string::npos) << "a human line on stdout:\n" << out;
  EXPECT_EQ(out.find("\"device\"", out.find("\"device\"") + 1), std::string::npos) << "key \"device\" twice";
}

// The steady frame time the capture benchmarks compare: a median of 4 kick-to-kick intervals (5 frames),
// positive and no larger than the longest interval can be, the whole run's time.
TEST_F(ReelSampleEnvironment, TheSummaryAndStatsGiveTheMedianFrameTime) {
  const std::string human = run("", "");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      human, m, std::regex(R"(frames in ([0-9.]+) s \([0-9.]+ ms/frame, median ([0-9.]+) ms)")))
      << human;
  const double seconds = std::stod(m[1]), median = std::stod(m[2]);
  EXPECT_GT(median, 0.0) << human;
  EXPECT_LE(median, seconds * 1000.0 + 10.0) << human;  // printed with 2 decimals
  const std::string stats = run("", "--stats", 0, /*stdoutOnly=*/true);
  ASSERT_TRUE(std::regex_search(stats, m, std::regex(R"("median_frame_ms": ([0-9.]+))"))) << stats;
  EXPECT_GT(std::stod(m[1]), 0.0) << stats;
}

// --stats also says where a frame's time goes (what the capture-cost script sets side by side): the app
// thread's recording and kick, and every phase of the render thread, as medians a frame. The app records
// something in every frame and the render thread translates it, so those two cannot be zero.
TEST_F(ReelSampleEnvironment, StatsGiveTheAppThreadsAndEveryRenderThreadPhasesMedians) {
  const std::string stats = run("", "--stats", 0, /*stdoutOnly=*/true);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      stats, m, std::regex(R"("app_thread_ms_median": \{"record": ([0-9.]+), "kick": ([0-9.]+)\})")))
      << stats;
  EXPECT_GT(std::stod(m[1]), 0.0) << stats;
  ASSERT_TRUE(std::regex_search(stats, m, std::regex(R"("render_thread_phase_ms_median": \{([^}]*)\})")))
      << stats;
  const std::string phases = m[1];
  for (size_t p = 0; p < kFramePhaseCount; ++p) {
    const std::string name = framePhaseName(static_cast<FramePhase>(p));
    std::smatch value;
    ASSERT_TRUE(std::regex_search(phases, value, std::regex("\"" + name + "\": ([0-9.]+)"))) << name << "\n"
                                                                                             << stats;
    if (name == "translate") {
      EXPECT_GT(std::stod(value[1]), 0.0) << stats;
    }
  }
}

}  // namespace
}  // namespace reel::testing
