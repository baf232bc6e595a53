// Replay through the same Renderer path, checked on the null device: what the device is asked to do
// when a trace is replayed equals what it was asked when the app ran.

#include <gtest/gtest.h>

#include <filesystem>

#include "reel/capture/capture.h"
#include "reel/replay/frame_feeder.h"
#include "reel/replay/frame_order.h"
#include "reel/replay/session.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "temp_path.h"
#include "test_scene.h"

namespace reel {
namespace {

namespace fs = std::filesystem;

using testing::tempPath;

using Calls = std::vector<NullDevice::Call>;

// Runs the test scene for `frames` frames, capturing [first, last] into `path`; returns every call.
Calls runApp(uint64_t frames, const fs::path& path, uint64_t first, uint64_t last) {
  NullDevice device;
  {
    Renderer renderer(device);
    test::TestScene scene(renderer);
    capture::CaptureOptions options;
    options.path = path.string();
    options.firstFrame = first;
    options.lastFrame = last;
    options.handleSignals = false;
    auto capture = capture::Capture::start(renderer, options);
    EXPECT_TRUE(capture.ok()) << capture.error().message;
    for (uint64_t f = 0; f < frames; ++f) {
      scene.record(f);
      renderer.kick();
    }
    renderer.flushAndWait();
  }
  return device.calls();
}

struct Replayed {
  Calls calls;
  std::vector<replay::FrameFeeder::SortMismatch> mismatches;
};

Replayed replayTrace(const fs::path& path, uint32_t framesInFlight = 2) {
  auto reader = trace::TraceReader::open(path.string());
  EXPECT_TRUE(reader.ok()) << reader.error().message;
  NullDevice device;
  Replayed out;
  {
    // The replay engine on this test's device, playing every frame in order.
    auto session = replay::ReplaySession::create(*reader, device, {.framesInFlight = framesInFlight});
    EXPECT_TRUE(session.ok()) << session.error().message;
    if (!session.ok()) return out;
    for (size_t i = 0; i < reader->frameCount(); ++i) {
      auto played = (*session)->replayFrame(i);
      EXPECT_TRUE(played.ok()) << played.error().message;
    }
    (*session)->renderer().flushAndWait();
    out.mismatches = (*session)->feeder().sortMismatches();
    EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  }
  out.calls = device.calls();
  return out;
}

// The device calls of frames [first, last]; `sortedOnly` drops resource requests.
Calls callsOf(const Calls& calls, uint64_t first, uint64_t last, bool sortedOnly) {
  Calls out;
  for (const auto& c : calls) {
    if (c.kind != NullDevice::Call::Kind::Command || c.frame < first || c.frame > last) continue;
    if (sortedOnly && commandInfo(c.type).queue != CommandQueue::Sorted) continue;
    out.push_back(c);
  }
  return out;
}

void expectSameCalls(const Calls& actual, const Calls& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].frame, expected[i].frame) << "call " << i;
    ASSERT_EQ(actual[i].type, expected[i].type)
        << "call " << i << ": " << commandName(actual[i].type) << " vs " << commandName(expected[i].type);
    ASSERT_EQ(actual[i].payload, expected[i].payload) << "call " << i << " " << commandName(actual[i].type);
    ASSERT_EQ(actual[i].aux, expected[i].aux) << "call " << i;
    ASSERT_EQ(actual[i].tag, expected[i].tag) << "call " << i;
  }
}

TEST(Replay, WholeCaptureReplaysTheSameDeviceCalls) {
  const fs::path path = tempPath("whole.reel");
  const Calls app = runApp(6, path, 0, 5);
  for (uint32_t inFlight = 1; inFlight <= 4; ++inFlight) {
    const Replayed replayed = replayTrace(path, inFlight);
    expectSameCalls(callsOf(replayed.calls, 0, 5, false), callsOf(app, 0, 5, false));
    EXPECT_TRUE(replayed.mismatches.empty()) << "the sort order changed";
  }
}

TEST(Replay, CaptureStartedMidRunReplaysOnItsOwn) {
  const fs::path path = tempPath("mid.reel");
  const Calls app = runApp(8, path, 4, 6);
  const Replayed replayed = replayTrace(path);
  // The resources alive at frame 4 are created first, then frames 4-6 draw exactly as the app did.
  expectSameCalls(callsOf(replayed.calls, 4, 6, true), callsOf(app, 4, 6, true));
  EXPECT_TRUE(replayed.mismatches.empty());
}

TEST(Replay, FrameOrderMatchesTheRenderThread) {
  const fs::path path = tempPath("order.reel");
  const Calls app = runApp(3, path, 0, 2);
  auto reader = trace::TraceReader::open(path.string());
  ASSERT_TRUE(reader.ok());
  for (size_t i = 0; i < reader->frameCount(); ++i) {
    auto frame = reader->readFrame(i);
    ASSERT_TRUE(frame.ok());
    const replay::FrameOrder order = replay::orderFrame(*frame);
    EXPECT_EQ(order.sortedOrderHash, frame->sortedOrderHash);
    // Walking the sorted order gives the device's calls of that frame, packet by packet.
    std::vector<CommandType> types;
    for (const auto& k : order.sorted) {
      frame->buckets[k.bucket].forEachInChain(
          k.key, [&](const trace::PacketRecord& p) { types.push_back(static_cast<CommandType>(p.type)); });
    }
    std::vector<CommandType> expected;
    for (const auto& c : callsOf(app, frame->number, frame->number, true)) expected.push_back(c.type);
    EXPECT_EQ(types, expected);
  }
}

TEST(Replay, TrimmedTraceReplaysTheSameFrames) {
  const fs::path path = tempPath("long.reel");
  const fs::path trimmed = tempPath("trimmed.reel");
  fs::remove(trimmed);
  const Calls app = runApp(7, path, 0, 6);
  const std::string command = std::string(REEL_CLI_PATH) + " trim " + path.string() + " --frames 3-5 -o " +
                              trimmed.string() + " --device null > /dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  auto reader = trace::TraceReader::open(trimmed.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  EXPECT_EQ(reader->frameCount(), 3u);
  EXPECT_EQ(reader->frameNumber(0), 3u);
  EXPECT_EQ(reader->header().appName, trace::TraceReader::open(path.string())->header().appName);
  const Replayed replayed = replayTrace(trimmed);
  expectSameCalls(callsOf(replayed.calls, 3, 5, true), callsOf(app, 3, 5, true));
}

}  // namespace
}  // namespace reel
