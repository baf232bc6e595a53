// reel replay --json (per-frame CPU and GPU times, the time spent reading the trace) and --window (under
// xvfb-run, on lavapipe with validation on; and without a display), end to end through the executable.

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "cli_test_util.h"

namespace reel::test {
namespace {

const std::filesystem::path kCubes = std::filesystem::path(REEL_TRACES_DIR) / "cubes.reel";
const std::string kNumber = R"(-?[0-9][0-9.e+-]*)";

size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// The JSON text of the array `key` holds (no nested arrays in it).
std::string array(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":[");
  if (at == std::string::npos) return "";
  const size_t open = json.find('[', at);
  // Up to the matching ']': a frame's own arrays (the render thread's "jobs") nest inside.
  int depth = 0;
  for (size_t i = open; i < json.size(); ++i) {
    if (json[i] == '[') ++depth;
    if (json[i] == ']' && --depth == 0) return json.substr(open, i - open + 1);
  }
  return json.substr(open);
}

TEST(CliReplayJson, EveryFrameHasCpuAndGpuTimes) {
  const RunResult r = runReel("replay " + kCubes.string() + " --validate --json --loop 3");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "") << "no validation message";
  const std::string& j = r.out;
  EXPECT_NE(j.find("\"gpu_timestamps\":true"), std::string::npos) << j;
  // 2 frames x 3 loops, each matched with its render-thread frame: a CPU and a GPU time, never null.
  const std::string replayed = array(j, "frames_replayed");
  EXPECT_EQ(count(replayed, "\"frame\":"), 6u) << replayed;
  EXPECT_EQ(count(replayed, "\"cpu_ms\":" + kNumber), 6u) << replayed;
  EXPECT_EQ(count(replayed, "\"gpu_ms\":" + kNumber), 6u) << replayed;
  EXPECT_EQ(count(replayed, "\"loop\":2"), 2u) << replayed;
  // The render thread also ran the restarts' empty frames: at least the 6.
  const std::string thread = array(j, "render_thread");
  EXPECT_GE(count(thread, "\"gpu_ms\":" + kNumber), 6u) << thread;
  EXPECT_GE(count(thread, "\"sort_ms\":" + kNumber), 6u) << thread;
  // Summaries over the 6 frames.
  EXPECT_EQ(count(j, "\"gpu_ms\":\\{\"frames\":6,\"mean\":" + kNumber + ",\"median\":" + kNumber +
                         ",\"p95\":" + kNumber + ",\"min\":" + kNumber + ",\"max\":" + kNumber + "\\}"),
            1u)
      << j;
  EXPECT_EQ(count(j, "\"cpu_ms\":\\{\"frames\":6,"), 1u) << j;
  // The time spent reading the trace, and its share of the replay's CPU time: above 0, below 1.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(j, m, std::regex("\"decode_share\":(" + kNumber + ")"))) << j;
  EXPECT_GT(std::stod(m[1]), 0.0);
  EXPECT_LT(std::stod(m[1]), 1.0);
  EXPECT_EQ(count(j, "\"decode_ms\":" + kNumber), 2u) << "summary and cpu_time: " << j;
  // Reading alone, and zstd alone, are parts of it.
  std::smatch read, zstd;
  ASSERT_TRUE(std::regex_search(j, read, std::regex("\"read_share\":(" + kNumber + ")"))) << j;
  ASSERT_TRUE(std::regex_search(j, zstd, std::regex("\"decompress_share\":(" + kNumber + ")"))) << j;
  EXPECT_GT(std::stod(zstd[1]), 0.0);
  EXPECT_LE(std::stod(zstd[1]), std::stod(read[1]));
  EXPECT_LE(std::stod(read[1]), std::stod(m[1]));
  // The fields from before are all still there.
  for (const char* key :
       {"trace", "device", "driver", "frames", "seconds", "fps", "images_written", "device_errors",
        "sort_mismatches", "wall_ms", "executed", "translate_ms", "submit_ms"}) {
    EXPECT_NE(j.find("\"" + std::string(key) + "\":"), std::string::npos) << key;
  }
}

TEST(CliReplayJson, WithoutJsonNoTimes) {
  const RunResult r = runReel("replay " + kCubes.string() + " --frames 2");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.find("gpu"), std::string::npos) << r.out;
}

class CliReplayWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    xvfb_ = findXvfbRun();
    if (xvfb_.empty()) GTEST_SKIP() << "xvfb-run is not installed (apt install xvfb)";
  }
  RunResult replayInWindow(const std::string& args) {
    return runReelWith(xvfb_ + " -a -s '-screen 0 1280x1024x24'",
                       "replay " + kCubes.string() + " --window " + args);
  }
  std::string xvfb_;
};

TEST_F(CliReplayWindow, PresentsEveryFrameValidationClean) {
  const RunResult r = replayInWindow("--frames 1-2 --validate");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "") << "no validation message";
  EXPECT_NE(r.out.find("replayed 2 frames (1-2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("window: 2 frames presented, swapchain created 1 times"), std::string::npos) << r.out;
}

TEST_F(CliReplayWindow, LoopsUntilClosedThroughResizeAndMinimize) {
  // Resized at frame 10, minimized 20-29 (nothing presented), restored at 30, closed before frame 40.
  const RunResult r = replayInWindow("--validate --loop 1000 --exercise-window --json");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "") << "no validation message";
  EXPECT_NE(r.out.find("\"frames\":40,"), std::string::npos) << "closing stops the replay: " << r.out;
  EXPECT_NE(r.out.find("\"window_closed\":true"), std::string::npos) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("\"presented\":([0-9]+)"))) << r.out;
  EXPECT_EQ(std::stoi(m[1]), 40) << "every replayed frame chose a target to show";
  const RunResult text = replayInWindow("--validate --loop 1000 --exercise-window");
  ASSERT_EQ(text.exitCode, 0) << text.out << text.err;
  ASSERT_TRUE(std::regex_search(
      text.out, m, std::regex("window: ([0-9]+) frames presented, swapchain created ([0-9]+) times; closed")))
      << text.out;
  // Frames 20-29 are not presented; one or two before them may not be either: the render thread, up to
  // two frames behind, may end them after the window was reported minimized.
  EXPECT_LE(std::stoi(m[1]), 30) << "frames 20-29 were minimized: " << text.out;
  EXPECT_GE(std::stoi(m[1]), 28) << text.out;
  EXPECT_GE(std::stoi(m[2]), 2) << "the swapchain followed the resize: " << text.out;
}

TEST(CliReplayNoDisplay, WindowIsBadInput) {
  for (const std::string prefix :
       {"env -u DISPLAY -u WAYLAND_DISPLAY", "env -u WAYLAND_DISPLAY DISPLAY=:59999"}) {
    const RunResult r = runReelWith(prefix, "replay " + kCubes.string() + " --window");
    EXPECT_EQ(r.exitCode, 2) << prefix << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("--window: "), std::string::npos) << prefix << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_EQ(r.out, "") << prefix;
  }
}

}  // namespace
}  // namespace reel::test
