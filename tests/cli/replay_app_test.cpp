// A replay gives the app's own pixels: reel-sample renders frames with a capture on and writes its own
// images, `reel replay` of the capture writes its images, and `reel compare` finds them equal bit for bit
// (what scripts/main.sh shows; here in CI, on lavapipe with validation). And a replay keeps every live
// texture it has to: a sampler destroyed in the same slot as a texture does not make the replay forget
// the texture.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <fstream>
#include <sstream>

#include "cli_test_util.h"
#include "reel/capture/capture.h"
#include "reel/image/image.h"
#include "reel/runtime/null_device.h"

namespace reel::test {
namespace {

namespace fs = std::filesystem;

struct SampleRun {
  int exitCode = -1;
  std::string output;
};

SampleRun runSample(const std::string& args, const fs::path& dir) {
  const fs::path log = dir / "sample.log";
  const std::string command = std::string(REEL_SAMPLE_PATH) + " " + args + " >" + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), s.str()};
}

class ReplayMatchesTheApp : public ::testing::TestWithParam<const char*> {};

TEST_P(ReplayMatchesTheApp, BitForBit) {
  const fs::path dir = testFolder();
  const std::string scene = GetParam();
  const std::string trace = (dir / (scene + ".reel")).string();
  // Frames 2-4 of 6, captured mid-run (the trace starts with every resource alive at frame 2).
  const SampleRun app = runSample("--scene " + scene + " --frames 6 --headless --width 160 --height 96 " +
                                      "--validate --capture 2-4 --capture-out " + trace + " --out " +
                                      (dir / "app").string() + " --save-frames 2-4",
                                  dir);
  ASSERT_EQ(app.exitCode, 0) << app.output;
  RunResult r = runReel("replay " + trace + " --validate --out " + (dir / "replayed").string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "") << "no validation message";
  EXPECT_NE(r.out.find("images: " + (dir / "replayed").string() + "/frame_<n>.png (3 written)"),
            std::string::npos)
      << r.out;
  r = runReel("compare " + (dir / "replayed").string() + " " + (dir / "app").string() + " --threshold 0");
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("match: 0 of 3 images differ"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Scenes, ReplayMatchesTheApp, ::testing::Values("default", "passes", "deferred"),
                         [](const auto& param) { return std::string(param.param); });

// The deferred scene's targets are transient (texture_usage::kTransient): on one queue (lavapipe) the
// bright and blur targets share memory with two of the G-buffer's, whose passes end before theirs begin.
// The images stay the app's own, bit for bit, with validation on (above); here the replay says what
// sharing saved.
TEST(CliReplay, TransientTargetsWhosePassesDoNotOverlapShareMemory) {
  const fs::path dir = testFolder();
  const std::string trace = (dir / "deferred.reel").string();
  const SampleRun app = runSample(
      "--scene deferred --frames 3 --headless --width 160 --height 96 --capture 1-2 --capture-out " + trace,
      dir);
  ASSERT_EQ(app.exitCode, 0) << app.output;
  const RunResult r =
      runReel("replay " + trace + " --json --validate --render-workers 1 --out " + (dir / "one").string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto number = [](const RunResult& run, const std::string& key) -> long long {
    const size_t at = run.out.find("\"" + key + "\":");
    return at == std::string::npos ? -1 : std::stoll(run.out.substr(at + key.size() + 3));
  };
  // Half-size RGBA16F bright and blur targets, 80 x 48 x 8 bytes each (give or take the driver's padding).
  const long long saved = number(r, "aliased_bytes_saved");
  EXPECT_GE(saved, 2 * 80 * 48 * 8) << r.out.substr(0, 2000);
  EXPECT_GT(number(r, "transient_bytes"), saved);
  // Stored DONT_CARE: the G-buffer's depth at its pass, once in each of the 2 frames; nothing reads it
  // after (the lighting reads the G-buffer's colors, and the bright and blur targets are read later).
  EXPECT_EQ(number(r, "stores_discarded"), 2) << r.out.substr(0, 2000);

  // Wide frames (jobs of 8 keys: two textures sharing memory meet inside a job too) share as much and
  // discard as much, with validation on, and draw the same pixels.
  const RunResult wide = runReelWith(
      "env REEL_RENDER_JOB_KEYS=8",
      "replay " + trace + " --json --validate --render-workers 4 --out " + (dir / "wide").string());
  ASSERT_EQ(wide.exitCode, 0) << wide.out << wide.err;
  EXPECT_EQ(number(wide, "aliased_bytes_saved"), saved);
  EXPECT_EQ(number(wide, "stores_discarded"), 2) << "told to the job that ends the G-buffer pass";
  for (const char* frame : {"frame_1.png", "frame_2.png"}) {
    auto a = image::readPng(dir / "one" / frame);
    auto b = image::readPng(dir / "wide" / frame);
    ASSERT_TRUE(a && b) << frame;
    EXPECT_TRUE(a->rgba == b->rgba) << frame << ": wide frames drew other pixels";
  }
}

// Frame 0 creates texture #N (known texels) and sampler #N, the same slot of another kind; frame 1
// destroys the sampler; frame 2 reads the texture back. A replay that forgot the texture with the
// sampler's destroy (fixed in 91b74c1) says "texture #N is not alive".
TEST(CliReplay, ASamplerDestroyedInATexturesSlotLeavesTheTexture) {
  const fs::path dir = testFolder();
  const fs::path trace = dir / "slots.reel";
  std::array<uint8_t, 4 * 4 * 4> texels{};
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<uint8_t>(i * 7 + 3);
  uint32_t slot = 0;
  {
    NullDevice device(false);
    Renderer renderer(device);
    auto capture = capture::Capture::start(renderer, {.path = trace.string(), .handleSignals = false});
    ASSERT_TRUE(capture) << capture.error().message;
    ResourceContext& r = renderer.resources();
    const TextureHandle texture =
        r.createTexture({.width = 4,
                         .height = 4,
                         .mipLevels = 1,
                         .format = Format::RGBA8Unorm,
                         .usage = texture_usage::kSampled | texture_usage::kTransferSrc},
                        std::as_bytes(std::span(texels)));
    const SamplerHandle sampler =
        r.createSampler({Filter::Linear, Filter::Linear, AddressMode::Repeat, AddressMode::Repeat});
    ASSERT_EQ(texture.index(), sampler.index()) << "the test needs both in one slot number";
    slot = texture.index();
    renderer.kick();
    r.destroy(sampler);
    renderer.kick();
    renderer.kick();
    ASSERT_TRUE((*capture)->finish());
  }
  const RunResult r =
      runReel("replay " + trace.string() + " --frames 2 --target tex:" + std::to_string(slot) + " --out " +
              (dir / "img").string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto image = image::readPng(dir / "img" / "frame_2.png");
  ASSERT_TRUE(image) << image.error().message;
  ASSERT_EQ(image->width, 4u);
  ASSERT_EQ(image->height, 4u);
  EXPECT_TRUE(std::equal(texels.begin(), texels.end(), image->rgba.begin(), image->rgba.end()))
      << "the replayed texture holds the texels it was created with";
}

}  // namespace
}  // namespace reel::test
