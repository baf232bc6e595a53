// reel info / dump / verify on traces of the test scene, and on bad files.

#include <gtest/gtest.h>

#include <fstream>

#include "cli_test_util.h"
#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "test_scene.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;

fs::path makeTrace(const fs::path& dir, uint64_t frames) {
  const fs::path path = dir / "scene.reel";
  NullDevice device(false);
  Renderer renderer(device);
  TestScene scene(renderer);
  capture::CaptureOptions options;
  options.path = path.string();
  options.appName = "test-scene";
  options.appArgs = {"--frames", std::to_string(frames)};
  options.handleSignals = false;
  auto capture = capture::Capture::start(renderer, options);
  EXPECT_TRUE(capture.ok());
  for (uint64_t f = 0; f < frames; ++f) {
    scene.record(f);
    renderer.kick();
  }
  EXPECT_TRUE((*capture)->finish().ok());
  return path;
}

size_t countLines(const std::string& text, const std::string& needle) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

TEST(CliTrace, InfoDescribesTheTrace) {
  const fs::path trace = makeTrace(testFolder(), 4);
  RunResult r = runReel("info " + trace.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("app        test-scene --frames 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("frames     4 (0-3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("index      intact"), std::string::npos) << r.out;
  // 80 draws a frame, each a chain of BindPipeline, BindVertexBuffer, PushConstants, Draw.
  EXPECT_NE(r.out.find("  Draw                   320"), std::string::npos) << r.out;
  r = runReel("info " + trace.string() + " --json");
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("\"frames\":4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"Draw\":320"), std::string::npos) << r.out;
}

TEST(CliTrace, DumpNamesDeclaredPassesAndThePassEachKeyNames) {
  const std::string trace = std::string(REEL_TRACES_DIR) + "/deferred_declared.reel";
  RunResult r = runReel("dump " + trace + " --frame 1 --type DeclarePass");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(countLines(r.out, "DeclarePass pass="), 6u) << r.out;
  EXPECT_NE(r.out.find("DeclarePass pass=1 desc={target=null"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("queue=async_compute}  \"deferred: lighting (compute)\""), std::string::npos) << r.out;
  // In sorted order the first key names the G-buffer pass, the last the HUD's.
  r = runReel("dump " + trace + " --frame 1 --sorted");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const size_t first = r.out.find("sorted 0 ");
  ASSERT_NE(first, std::string::npos) << r.out.substr(0, 2000);
  EXPECT_EQ(r.out.compare(r.out.find('[', first), 17, "[declared_pass=0 "), 0) << r.out.substr(first, 300);
  const size_t last = r.out.rfind(" sorted ");
  EXPECT_NE(r.out.find("[declared_pass=5 ", last), std::string::npos) << r.out.substr(last, 300);
  r = runReel("dump " + trace + " --frame 1 --json --type DeclarePass");
  EXPECT_EQ(countLines(r.out, "\"name\":\"deferred: blur\""), 1u) << r.out;
}

TEST(CliTrace, DumpPrintsPacketsByFieldInBothOrders) {
  const fs::path trace = makeTrace(testFolder(), 2);
  RunResult r = runReel("dump " + trace.string() + " --frame 1 --type Draw");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(countLines(r.out, "Draw vertexCount=3 firstVertex=0"), 80u) << r.out.substr(0, 500);
  r = runReel("dump " + trace.string() + " --frame 1 --tag \"main pass\"");
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(countLines(r.out, "BeginRenderPass target=render_target#"), 1u) << r.out;
  EXPECT_NE(r.out.find("command=1 priority=0"), std::string::npos)
      << "the key decoded into fields: " << r.out;
  // Sorted order: the pass begins first and ends last in the world bucket's packets.
  r = runReel("dump " + trace.string() + " --frame 0 --sorted");
  ASSERT_EQ(r.exitCode, 0);
  const size_t begin = r.out.find("BeginRenderPass"), draw = r.out.find(" Draw "),
               end = r.out.find("EndRenderPass");
  ASSERT_NE(begin, std::string::npos);
  EXPECT_LT(begin, draw);
  EXPECT_LT(draw, end);
  r = runReel("dump " + trace.string() + " --frame 0 --sorted --json --type EndRenderPass");
  EXPECT_EQ(countLines(r.out, "\"type\":\"EndRenderPass\""), 1u) << r.out;
  EXPECT_NE(r.out.find("\"sorted_position\":"), std::string::npos);
}

TEST(CliTrace, VerifyPassesAWholeTraceAndFailsADamagedOne) {
  const fs::path dir = testFolder();
  const fs::path trace = makeTrace(dir, 6);
  RunResult r = runReel("verify " + trace.string());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": ok: 6 frames"), std::string::npos) << r.out;

  // Cut off the last third: chunks lost, index gone.
  std::ifstream in(trace, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir / "cut.reel", std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
  r = runReel("verify " + (dir / "cut.reel").string());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("problem"), std::string::npos) << r.out;

  // Flip a byte in the middle: a chunk's checksum no longer matches.
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x5a;
  std::ofstream(dir / "flipped.reel", std::ios::binary) << flipped;
  r = runReel("verify " + (dir / "flipped.reel").string());
  EXPECT_NE(r.exitCode, 0) << r.out << r.err;
}

TEST(CliTrace, BadInputIsOneLineNamingTheFileAndExitTwo) {
  const fs::path dir = testFolder();
  const fs::path trace = makeTrace(dir, 3);
  std::ofstream(dir / "text.reel") << "this is not a trace at all";
  std::ofstream(dir / "empty.reel");
  struct Case {
    std::string args, expected;
  } cases[] = {
      {"info " + (dir / "missing.reel").string(), "missing.reel: no such file"},
      {"info " + dir.string(), "is a directory"},
      {"dump " + (dir / "text.reel").string(), "text.reel"},
      {"verify " + (dir / "empty.reel").string(), "empty.reel"},
      {"dump " + trace.string() + " --frame 99", "outside the trace"},
      {"dump " + trace.string() + " --type NoSuchCommand", "NoSuchCommand"},
      {"trim " + trace.string() + " --frames 2-9 -o " + (dir / "t.reel").string(), "outside the trace"},
      {"trim " + trace.string() + " --frames 1-2 -o " + (dir / "no/such/folder/t.reel").string(),
       "does not exist"},
      {"trim " + trace.string() + " --frames x -o " + (dir / "t.reel").string(), "--frames 'x'"},
  };
  for (const Case& c : cases) {
    const RunResult r = runReel(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "t.reel")) << "nothing half-written is left behind";
}

}  // namespace
}  // namespace reel::test

namespace reel::test {
namespace {

// `reel replay` on a trace of the suite, on the default device (lavapipe in CI).
const std::filesystem::path kCubes = std::filesystem::path(REEL_TRACES_DIR) / "cubes.reel";

TEST(CliReplay, WritesTheFramesAndMatchesTheGolden) {
  const auto dir = testFolder();
  RunResult r = runReel("replay " + kCubes.string() + " --validate --out " + (dir / "img").string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("replayed 2 frames (1-2)"), std::string::npos) << r.out;
  r = runReel("compare " + (dir / "img/frame_2.png").string() + " " +
              (std::filesystem::path(REEL_TRACES_DIR) / "golden/lavapipe/cubes/frame_2.png").string());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
}

TEST(CliReplay, StopAtAndFramesInFlight) {
  const auto dir = testFolder();
  RunResult r =
      runReel("replay " + kCubes.string() + " --frames 2 --stop-at 20 --out " + (dir / "stop").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runReel("replay " + kCubes.string() + " --frames 2 --out " + (dir / "full").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runReel("compare " + (dir / "stop").string() + " " + (dir / "full").string());
  EXPECT_EQ(r.exitCode, 1) << "stopping after 20 commands must change the image: " << r.out;
  for (int k : {1, 3, 4}) {
    const std::string folder = (dir / ("fif" + std::to_string(k))).string();
    r = runReel("replay " + kCubes.string() + " --frames 2 --frames-in-flight " + std::to_string(k) +
                " --out " + folder);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(runReel("compare " + folder + " " + (dir / "full").string()).exitCode, 0)
        << "frames in flight " << k;
  }
  r = runReel("replay " + kCubes.string() + " --frames 1 --json");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("\"frames\":1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"render_thread\":[{"), std::string::npos) << r.out;
}

TEST(CliReplay, BadInputIsOneLineAndExitTwo) {
  const auto dir = testFolder();
  struct Case {
    std::string args, expected;
  } cases[] = {
      {"replay " + kCubes.string() + " --frames 7-9", "outside the trace"},
      {"replay " + kCubes.string() + " --out /proc/reel_not_writable", "/proc/reel_not_writable"},
      {"replay " + kCubes.string() + " --target rt:x", "--target"},
      {"replay " + (dir / "none.reel").string(), "no such file"},
  };
  for (const Case& c : cases) {
    const RunResult r = runReel(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
  // An unknown device: the error names it and lists the devices there are.
  const RunResult r = runReel("replay " + kCubes.string() + " --device NoSuchGpu");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no Vulkan device matches 'NoSuchGpu'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("llvmpipe"), std::string::npos) << "the devices are listed: " << r.err;
}

}  // namespace
}  // namespace reel::test
