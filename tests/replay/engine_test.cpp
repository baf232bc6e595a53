// The replay engine's seeks (replay/include/reel/replay/session.h): every position reached through its
// checkpoint (a continued step, a restored one, a restore across frames that created and destroyed
// resources, a replay that goes on in order after seeks) is the state a replay from the capture start
// reaches: the same images on Vulkan (lavapipe in CI, validation on) for every trace of traces/, the same
// live resources and contents on the null device.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "reel/capture/capture.h"
#include "reel/image/compare.h"
#include "reel/replay/session.h"
#include "reel/runtime/null_device.h"
#include "temp_path.h"
#include "test_scene.h"

namespace reel {
namespace {

namespace fs = std::filesystem;
using replay::SeekPath;
const fs::path kTraces = REEL_TRACES_DIR;

std::unique_ptr<replay::ReplaySession> openSession(const fs::path& path,
                                                   replay::SessionOptions options = {}) {
  options.validate = options.device != "null";
  auto session = replay::ReplaySession::open(path.string(), options);
  EXPECT_TRUE(session.ok()) << session.error().message;
  return session.ok() ? std::move(session.value()) : nullptr;
}

uint64_t packetsOf(replay::ReplaySession& s, size_t index) {
  auto frame = s.reader().readFrame(index);
  EXPECT_TRUE(frame.ok());
  return frame.ok() ? frame->packetCount() : 0;
}

// The image of the frame's last pass after `stop` packets, replayed from the capture start: replayFrame
// starts over whenever it goes back, and this session never seeks.
image::Image fromStart(replay::ReplaySession& fresh, size_t index, uint64_t stop) {
  auto result = fresh.replayFrame(index, stop, replay::TargetChoice{});
  EXPECT_TRUE(result.ok()) << result.error().message;
  return result.ok() && result->image ? std::move(*result->image) : image::Image{};
}

image::Image seekImage(replay::ReplaySession& s, size_t index, uint64_t stop, SeekPath expected) {
  auto position = s.seek(index, stop);
  EXPECT_TRUE(position.ok()) << position.error().message;
  if (!position.ok()) return {};
  EXPECT_EQ(position->path, expected)
      << "frame index " << index << " stop " << stop << ": " << replay::seekPathName(position->path);
  EXPECT_EQ(position->executed, std::min(stop, position->packets));
  auto image = s.readTarget(replay::TargetChoice{});
  EXPECT_TRUE(image.ok()) << image.error().message;
  return image.ok() ? std::move(image->image) : image::Image{};
}

// The sorted position of the first packet of `type` in frame `index`.
uint64_t firstOfType(replay::ReplaySession& s, size_t index, CommandType type) {
  auto frame = s.reader().readFrame(index);
  EXPECT_TRUE(frame.ok());
  const replay::FrameOrder order = replay::orderFrame(*frame);
  uint64_t position = 0;
  for (const replay::PacketRef& ref : replay::packetsInOrder(*frame, order.sorted)) {
    const trace::PacketRecord p = frame->buckets[ref.bucket].packet(ref.key, ref.link);
    if (s.feeder().commandType(p.type) == type) return position;
    ++position;
  }
  ADD_FAILURE() << "frame index " << index << " has no " << commandName(type);
  return 0;
}

class EngineSeek : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineSeek, ContinuedAndRestoredStepsMatchReplaysFromTheCaptureStart) {
  const fs::path path = kTraces / (GetParam() + ".reel");
  auto session = openSession(path);
  auto fresh = openSession(path);
  ASSERT_TRUE(session && fresh);
  const size_t last = session->reader().frameCount() - 1;
  const uint64_t n = packetsOf(*session, last);
  // Steps from the first pass's begin on: before it the frame's last pass has no target to show.
  const uint64_t first = firstOfType(*session, last, CommandType::BeginRenderPass) + 1;
  ASSERT_GT(n / 3, first + 2);
  struct Step {
    size_t frame;
    uint64_t stop;
    SeekPath path;
  };
  std::vector<Step> steps = {{last, first, SeekPath::FromStart},     {last, first + 1, SeekPath::Continued},
                             {last, first + 2, SeekPath::Continued}, {last, n / 3, SeekPath::Continued},
                             {last, first + 1, SeekPath::Restored},  {last, n / 2, SeekPath::Continued},
                             {last, n, SeekPath::Continued},         {last, n - 1, SeekPath::Restored},
                             {last, UINT64_MAX, SeekPath::Continued}};
  if (last > 0) {
    // Back before the checkpoint (from the start), then forward to the last frame from the new one.
    steps.push_back({0, packetsOf(*session, 0) / 2, SeekPath::FromStart});
    steps.push_back({last, n / 2, SeekPath::Forward});
  }
  for (const Step& step : steps) {
    const image::Image got = seekImage(*session, step.frame, step.stop, step.path);
    const image::Image want = fromStart(*fresh, step.frame, step.stop);
    ASSERT_FALSE(got.empty());
    const image::Comparison c = image::compare(got, want);
    EXPECT_TRUE(c.matches) << "frame index " << step.frame << " after " << step.stop << " of " << n
                           << " packets: " << c.summary();
  }
  EXPECT_EQ(session->takeDeviceErrors(), std::vector<std::string>{});
  EXPECT_TRUE(session->feeder().sortMismatches().empty());
}

INSTANTIATE_TEST_SUITE_P(Traces, EngineSeek,
                         ::testing::Values("cubes", "compute", "post", "passes", "transparency",
                                           "default_from_start", "stress_small", "deferred"),
                         [](const auto& param) { return param.param; });

// Every live buffer and texture of both sessions, byte for byte, and the same live resources.
void expectSameState(replay::ReplaySession& a, replay::ReplaySession& b) {
  ASSERT_EQ(a.feeder().liveResources().size(), b.feeder().liveResources().size());
  EXPECT_TRUE(a.feeder().liveResources() == b.feeder().liveResources()) << "the live resources differ";
  for (const auto& [key, live] : a.feeder().liveResources()) {
    if (live.kind == ResourceKind::Buffer) {
      auto x = a.readBuffer(BufferHandle{live.handle}), y = b.readBuffer(BufferHandle{live.handle});
      ASSERT_TRUE(x.ok() && y.ok());
      EXPECT_EQ(*x, *y) << "buffer " << live.handle;
    } else if (live.kind == ResourceKind::Texture) {
      auto x = a.readTexture(TextureHandle{live.handle}), y = b.readTexture(TextureHandle{live.handle});
      ASSERT_TRUE(x.ok() && y.ok());
      EXPECT_EQ(x->texels, y->texels) << "texture " << live.handle;
    }
  }
}

TEST(Engine, ARestoreRemovesWhatWasCreatedSinceAndRecreatesWhatWasDestroyed) {
  // The test scene creates a buffer in frames 0 and 3 and destroys it in frames 1 and 4.
  const fs::path path = testing::tempPath("scene.reel");
  {
    NullDevice device;
    Renderer renderer(device);
    test::TestScene scene(renderer);
    auto capture = capture::Capture::start(
        renderer, {.path = path.string(), .firstFrame = 0, .lastFrame = 5, .handleSignals = false});
    ASSERT_TRUE(capture.ok()) << capture.error().message;
    for (uint64_t f = 0; f < 6; ++f) {
      scene.record(f);
      renderer.kick();
    }
    renderer.flushAndWait();
    ASSERT_TRUE((*capture)->finish().ok());
  }
  auto session = openSession(path, {.device = "null"});
  auto reference = openSession(path, {.device = "null"});
  ASSERT_TRUE(session && reference);
  ASSERT_TRUE(session->seek(1, 3).ok());
  ASSERT_EQ(session->checkpointFrame(), 1u);
  const auto atCheckpoint = session->feeder().liveResources();
  ASSERT_TRUE(session->replayFrame(3).ok());  // puts the checkpoint back, then frames 1-3 in order
  ASSERT_FALSE(session->feeder().liveResources() == atCheckpoint)
      << "frames 1-3 must destroy and create resources, or this test checks nothing";
  auto back = session->seek(1, 3);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->path, SeekPath::Restored);
  auto fresh = reference->seek(1, 3);
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_EQ(fresh->path, SeekPath::FromStart);
  expectSameState(*session, *reference);
  // And on in order from there, as a replay that never went back.
  ASSERT_TRUE(session->replayFrame(5).ok());
  ASSERT_TRUE(reference->replayFrame(5).ok());
  expectSameState(*session, *reference);
  EXPECT_EQ(session->takeDeviceErrors(), std::vector<std::string>{});
}

TEST(Engine, ContinuedStepsSendThePacketsEdited) {
  const fs::path path = kTraces / "cubes.reel";
  auto probe = openSession(path);
  ASSERT_TRUE(probe);
  // The first opaque draw in sorted order is the nearest object (front to back): surely visible.
  const uint64_t target = firstOfType(*probe, 1, CommandType::DrawIndexed);
  probe.reset();
  replay::SessionOptions options;
  options.edit = [target](uint64_t frame, uint64_t position, CommandType type, std::span<std::byte> payload) {
    if (frame != 2 || position != target || type != CommandType::DrawIndexed) return;
    cmd::DrawIndexed d;
    std::memcpy(&d, payload.data(), sizeof d);
    d.indexCount = 0;
    std::memcpy(payload.data(), &d, sizeof d);
  };
  auto edited = openSession(path, options);
  auto editedFresh = openSession(path, options);
  auto clean = openSession(path);
  ASSERT_TRUE(edited && editedFresh && clean);
  const uint64_t stop = target + 40;
  (void)seekImage(*edited, 1, target, SeekPath::FromStart);  // stopped before the edited draw
  const image::Image got = seekImage(*edited, 1, stop, SeekPath::Continued);
  EXPECT_TRUE(image::compare(got, fromStart(*editedFresh, 1, stop)).matches);
  EXPECT_FALSE(image::compare(got, fromStart(*clean, 1, stop)).matches)
      << "the edit must show at this stop, or this test checks nothing";
  EXPECT_EQ(edited->takeDeviceErrors(), std::vector<std::string>{});
}

TEST(Engine, ReplayFrameAfterSeeksGoesOnInOrder) {
  const fs::path path = kTraces / "default_from_start.reel";
  auto session = openSession(path);
  auto fresh = openSession(path);
  ASSERT_TRUE(session && fresh);
  const uint64_t n = packetsOf(*session, 1);
  ASSERT_TRUE(session->replayFrame(0).ok());
  (void)seekImage(*session, 1, n / 2, SeekPath::Forward);
  (void)seekImage(*session, 1, n / 4, SeekPath::Restored);
  for (size_t frame : {1, 2}) {
    auto got = session->replayFrame(frame, UINT64_MAX, replay::TargetChoice{});
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_TRUE(image::compare(*got->image, fromStart(*fresh, frame, UINT64_MAX)).matches)
        << "frame " << frame;
  }
  EXPECT_EQ(session->takeDeviceErrors(), std::vector<std::string>{});
  EXPECT_TRUE(session->feeder().sortMismatches().empty());
}

}  // namespace
}  // namespace reel
