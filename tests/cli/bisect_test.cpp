// `reel bisect` on a trace of the suite, on the default device (lavapipe in CI): its flags, output and
// exit codes in both modes (a golden image; a reference device or trace), with and without checkpoints.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cli_test_util.h"
#include "reel/image/image.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;
const fs::path kTraces = REEL_TRACES_DIR;
const std::string kCubes = (kTraces / "cubes.reel").string();

// The text between `"key":` and the end of its JSON value (an object or a scalar), for comparing.
std::string jsonValue(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return "";
  const size_t start = at + key.size() + 3;
  if (json[start] != '{') return json.substr(start, json.find_first_of(",}", start) - start);
  int depth = 0;
  for (size_t i = start; i < json.size(); ++i) {
    depth += json[i] == '{' ? 1 : json[i] == '}' ? -1 : 0;
    if (depth == 0) return json.substr(start, i - start + 1);
  }
  return "";
}

TEST(CliBisect, AGoldenOfThisDeviceMatchesAndExitsZero) {
  const RunResult r = runReel("bisect " + kCubes + " --frame 2 --validate --golden " +
                              (kTraces / "golden/lavapipe/cubes/frame_2.png").string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("frame 2 (render_target#"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("match:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("first differing command"), std::string::npos) << r.out;
}

TEST(CliBisect, AnotherDevicesGoldenNamesTheLastWriterWithOrWithoutCheckpoints) {
  // The NVIDIA golden differs from lavapipe's image in a third of its pixels (README: lavapipe vs NVIDIA).
  const std::string args =
      "bisect " + kCubes + " --frame 2 --golden " + (kTraces / "golden/nvidia/cubes/frame_2.png").string();
  RunResult r = runReel(args);
  ASSERT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("differ:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first differing command: sorted "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the last command that brought the differing pixels to their final values"),
            std::string::npos)
      << r.out;

  const RunResult resumed = runReel(args + " --json");
  const RunResult fromStart = runReel(args + " --json --from-capture-start");
  ASSERT_EQ(resumed.exitCode, 1) << resumed.err;
  ASSERT_EQ(fromStart.exitCode, 1) << fromStart.err;
  for (const char* key : {"frame", "differs", "summary", "probes", "target", "against", "answer"}) {
    EXPECT_NE(jsonValue(resumed.out, key), "") << key << " in " << resumed.out;
  }
  EXPECT_EQ(jsonValue(resumed.out, "differs"), "true");
  EXPECT_EQ(jsonValue(resumed.out, "against"), "\"golden\"");
  EXPECT_EQ(jsonValue(resumed.out, "resume"), "\"checkpoint\"");
  EXPECT_EQ(jsonValue(fromStart.out, "resume"), "\"capture start\"");
  const std::string culprit = jsonValue(resumed.out, "first_differing_command");
  ASSERT_NE(culprit, "") << resumed.out;
  EXPECT_NE(culprit.find("\"stop_at\":"), std::string::npos) << culprit;
  EXPECT_EQ(culprit, jsonValue(fromStart.out, "first_differing_command"));
  EXPECT_EQ(jsonValue(resumed.out, "probes"), jsonValue(fromStart.out, "probes"));
  // Resuming replays frame 1 once; from the capture start, for every probe.
  const uint64_t probes = std::stoull(jsonValue(resumed.out, "probes"));
  EXPECT_LE(std::stoull(jsonValue(resumed.out, "frames_replayed")), probes + 2);
  EXPECT_EQ(std::stoull(jsonValue(fromStart.out, "frames_replayed")), 2 * (probes + 1));
}

TEST(CliBisect, AReferenceDeviceOrTraceThatAgreesExitsZero) {
  const auto dir = testFolder();
  const fs::path copy = dir / "reference.reel";
  fs::copy_file(kCubes, copy);
  for (const std::string& reference :
       {"--reference-trace " + copy.string(), std::string("--reference-device llvmpipe"),
        std::string("--against-device llvmpipe")}) {
    const RunResult r = runReel("bisect " + kCubes + " --frame 2 --json " + reference);
    EXPECT_EQ(r.exitCode, 0) << reference << "\n" << r.out << r.err;
    EXPECT_EQ(jsonValue(r.out, "differs"), "false") << r.out;
    EXPECT_EQ(jsonValue(r.out, "against"), "\"reference\"") << r.out;
    EXPECT_EQ(jsonValue(r.out, "answer"), "\"the first command whose output differs\"") << r.out;
  }
}

TEST(CliBisect, BadInputIsOneLineAndExitTwo) {
  const auto dir = testFolder();
  const image::Image small(16, 16);
  const fs::path smallPng = dir / "small.png";
  ASSERT_TRUE(image::writePng(smallPng, small).ok());
  const std::string golden = (kTraces / "golden/lavapipe/cubes/frame_2.png").string();
  struct Case {
    std::string args, expected;
  } cases[] = {
      {"bisect " + kCubes + " --frame 2",
       "bisect needs --golden IMG, --reference-device NAME or --reference-trace"},
      {"bisect " + kCubes + " --frame 2 --golden " + golden + " --reference-trace " + kCubes, "excludes"},
      {"bisect " + kCubes + " --frame 2 --golden " + smallPng.string(), "but the replayed image is 128x128"},
      {"bisect " + kCubes + " --frame 9 --golden " + golden, "outside the trace"},
      {"bisect " + kCubes + " --frame 2 --reference-trace " + (kTraces / "stress_small.reel").string(),
       "has no frame 2"},
  };
  for (const Case& c : cases) {
    const RunResult r = runReel(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
}

}  // namespace
}  // namespace reel::test
