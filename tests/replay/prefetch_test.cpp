// Pipelined replay (replay/src/replay/frame_prefetcher.h): frames read ahead on a worker thread are the
// frames reading in line gives, in order or after a jump, the worker stops at its look-ahead, and a
// session reading ahead drives the device exactly as one reading in line.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "frame_prefetcher.h"
#include "reel/capture/capture.h"
#include "reel/replay/session.h"
#include "reel/runtime/null_device.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

constexpr uint64_t kFrames = 14;

// A trace of the test scene whose frames predict from the frames before them (format 1.3), a few
// chunks of them.
std::string captureTrace(const TempDir& dir) {
  const std::string path = dir.path("prefetch.reel");
  NullDevice device(false);
  Renderer renderer(device);
  Scene scene(renderer, {.draws = 100});
  capture::CaptureOptions options;
  options.path = path;
  options.handleSignals = false;
  options.compression.maxFramesPerChunk = 5;
  auto capture = capture::Capture::start(renderer, options);
  EXPECT_TRUE(capture) << capture.error().message;
  for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
  EXPECT_TRUE(capture.value()->finish());
  return path;
}

TEST(FramePrefetcher, FramesReadAheadAreTheFramesReadInLineInOrderOrAfterAJump) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto inLine = trace::TraceReader::open(path);
  ASSERT_TRUE(inLine);
  auto prefetch = replay::FramePrefetcher::create(reader.value(), 2);
  ASSERT_TRUE(prefetch);
  const std::vector<size_t> order = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 7, 8, 2, 13, 0, 1};
  trace::FrameRecord ahead;
  for (const size_t i : order) {
    SCOPED_TRACE("frame " + std::to_string(i));
    ASSERT_TRUE(prefetch->take(i, ahead));
    auto expected = inLine->readFrame(i);
    ASSERT_TRUE(expected) << expected.error().message;
    expectFrameEquals(expected.value(), ahead);
  }
}

TEST(FramePrefetcher, TheWorkerStopsAtItsLookahead) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader);
  auto prefetch = replay::FramePrefetcher::create(reader.value(), 2);
  ASSERT_TRUE(prefetch);
  trace::FrameRecord frame;
  ASSERT_TRUE(prefetch->take(0, frame));
  // Time enough to read the whole trace; the worker must stop two frames ahead of the one taken.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(prefetch->stats().frames, 3u);
  ASSERT_TRUE(prefetch->take(1, frame));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(prefetch->stats().frames, 4u);
}

TEST(FramePrefetcher, AReaderMadeFromBytesGetsNone) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  auto reader = trace::TraceReader::fromBytes(readFile(path), "not-a-file.reel");
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(replay::FramePrefetcher::create(reader.value(), 2));
  auto fromFile = trace::TraceReader::open(path);
  ASSERT_TRUE(fromFile);
  EXPECT_FALSE(replay::FramePrefetcher::create(fromFile.value(), 0)) << "look-ahead 0 reads in line";
}

// Every call the device got, frame by frame, played twice over (the second pass starts over).
std::vector<NullDevice::Call> replayCalls(const std::string& path, uint32_t lookahead,
                                          replay::DecodeTimes* times = nullptr) {
  auto reader = trace::TraceReader::open(path);
  EXPECT_TRUE(reader);
  NullDevice device(true);
  replay::SessionOptions options;
  options.lookahead = lookahead;
  options.collectTimings = times != nullptr;
  auto session = replay::ReplaySession::create(reader.value(), device, options);
  EXPECT_TRUE(session) << session.error().message;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < reader->frameCount(); ++i) {
      auto played = (*session)->replayFrame(i);
      EXPECT_TRUE(played) << played.error().message;
    }
  }
  (*session)->renderer().flushAndWait();
  EXPECT_TRUE((*session)->feeder().sortMismatches().empty());
  if (times) *times = (*session)->decodeTimes();
  return device.calls();
}

TEST(FramePrefetcher, ASessionReadingAheadDrivesTheDeviceAsOneReadingInLine) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  replay::DecodeTimes times;
  const std::vector<NullDevice::Call> ahead = replayCalls(path, 2, &times);
  const std::vector<NullDevice::Call> inLine = replayCalls(path, 0);
  ASSERT_EQ(ahead.size(), inLine.size());
  for (size_t c = 0; c < ahead.size(); ++c) {
    EXPECT_EQ(ahead[c].kind, inLine[c].kind) << c;
    EXPECT_EQ(ahead[c].type, inLine[c].type) << c;
    EXPECT_EQ(ahead[c].payload, inLine[c].payload) << c;
    EXPECT_EQ(ahead[c].aux, inLine[c].aux) << c;
  }
  EXPECT_GT(times.aheadCpu.count(), 0) << "the frames were read on the worker";
  EXPECT_GE(times.readCpu, times.aheadCpu);
  EXPECT_GT(times.renderSpan.count(), 0);
  EXPECT_LE(times.renderIdle, times.renderSpan);
}

}  // namespace
}  // namespace reel::testing
