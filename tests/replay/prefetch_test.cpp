// Pipelined replay (replay/src/replay/frame_prefetcher.h): frames read ahead on worker threads are the
// frames reading in line gives, in order or after a jump, with one worker or several; the workers stop
// at the look-ahead and its byte budget; a record handed back and filled again holds its new frame only;
// and a session reading ahead drives the device exactly as one reading in line.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "frame_prefetcher.h"
#include "reel/capture/capture.h"
#include "reel/replay/session.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/message_kind.h"
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

replay::PrefetchOptions aheadOptions(uint32_t lookahead, uint32_t workers) {
  return {.lookahead = lookahead, .workers = workers};
}

TEST(FramePrefetcher, FramesReadAheadAreTheFramesReadInLineInOrderOrAfterAJump) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  for (const uint32_t workers : {1u, 3u}) {
    for (const uint32_t lookahead : {2u, 8u}) {
      SCOPED_TRACE(std::to_string(workers) + " workers, look-ahead " + std::to_string(lookahead));
      auto reader = trace::TraceReader::open(path);
      ASSERT_TRUE(reader) << reader.error().message;
      auto inLine = trace::TraceReader::open(path);
      ASSERT_TRUE(inLine);
      auto prefetch = replay::FramePrefetcher::create(reader.value(), aheadOptions(lookahead, workers));
      ASSERT_TRUE(prefetch);
      EXPECT_EQ(prefetch->workers(), workers);
      const std::vector<size_t> order = {0,  1,  2,  3, 4, 5, 6,  7, 8, 9, 10,
                                         11, 12, 13, 7, 8, 2, 13, 0, 1, 2, 3};
      trace::FrameRecord taken;
      for (const size_t i : order) {
        SCOPED_TRACE("frame " + std::to_string(i));
        ASSERT_TRUE(prefetch->take(i, taken));
        auto expected = inLine->readFrame(i);
        ASSERT_TRUE(expected) << expected.error().message;
        expectFrameEquals(expected.value(), taken);
      }
    }
  }
}

TEST(FramePrefetcher, TheWorkersStopAtTheLookahead) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  for (const uint32_t workers : {1u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    auto reader = trace::TraceReader::open(path);
    ASSERT_TRUE(reader);
    auto prefetch = replay::FramePrefetcher::create(reader.value(), aheadOptions(2, workers));
    ASSERT_TRUE(prefetch);
    EXPECT_EQ(prefetch->capacity(), 2u);
    trace::FrameRecord frame;
    ASSERT_TRUE(prefetch->take(0, frame));
    // Time enough to read the whole trace; the workers must stop two frames ahead of the one taken.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(prefetch->stats().frames, 3u);
    ASSERT_TRUE(prefetch->take(1, frame));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(prefetch->stats().frames, 4u);
    EXPECT_LE(prefetch->stats().peakAhead, 2u);
  }
}

TEST(FramePrefetcher, TheByteBudgetBoundsTheFramesAhead) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader);
  uint64_t largest = 0;
  for (const trace::MessageInfo& m : reader->messages()) {
    if (m.kind == static_cast<uint8_t>(trace::MessageKind::Frame))
      largest = std::max<uint64_t>(largest, m.size);
  }
  ASSERT_GT(largest, 0u);
  // Room for three of the largest frames: three frames ahead, not the 32 asked for.
  auto prefetch = replay::FramePrefetcher::create(
      reader.value(), {.lookahead = 32, .budgetBytes = 3 * largest + largest / 2, .workers = 3});
  ASSERT_TRUE(prefetch);
  EXPECT_EQ(prefetch->capacity(), 3u);
  trace::FrameRecord frame;
  for (size_t i = 0; i < kFrames; ++i) {
    ASSERT_TRUE(prefetch->take(i, frame));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_LE(prefetch->stats().frames, i + 1 + 3) << "frames decoded after taking frame " << i;
  }
  EXPECT_LE(prefetch->stats().peakAhead, 3u);
  EXPECT_GE(prefetch->stats().peakAhead, 2u) << "the workers did read ahead";
}

// A trace whose frames differ in length: frame f holds 40 draws, every fourth frame 3, each draw's
// indexCount naming its frame and position; four frames a chunk.
constexpr uint64_t kVaryingFrames = 22;
uint32_t drawsOf(uint64_t frame) {
  return frame % 4 == 3 ? 3 : 40;
}

std::string captureVaryingTrace(const TempDir& dir) {
  const std::string path = dir.path("varying.reel");
  NullDevice device(false);
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("varying");
  capture::CaptureOptions options;
  options.path = path;
  options.handleSignals = false;
  options.compression.maxFramesPerChunk = 4;
  auto capture = capture::Capture::start(renderer, options);
  EXPECT_TRUE(capture) << capture.error().message;
  for (uint64_t f = 0; f < kVaryingFrames; ++f) {
    const uint64_t number = renderer.recordingFrame();
    for (uint32_t i = 0; i < drawsOf(number); ++i)
      bucket.add<cmd::DrawIndexed>(i).indexCount = static_cast<uint32_t>(number * 1000 + i);
    renderer.kick();
  }
  EXPECT_TRUE(capture.value()->finish());
  return path;
}

TEST(FramePrefetcher, ARecycledRecordHoldsItsNewFrameOnly) {
  TempDir dir;
  const std::string path = captureVaryingTrace(dir);
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), kVaryingFrames);
  auto prefetch = replay::FramePrefetcher::create(reader.value(), aheadOptions(3, 2));
  ASSERT_TRUE(prefetch);
  // Long frames after short ones and short after long, in order and after jumps: each record taken has
  // held other frames before, in the ring and here.
  std::vector<size_t> order;
  for (size_t i = 0; i < kVaryingFrames; ++i) order.push_back(i);
  for (const size_t i : {3, 4, 5, 11, 12, 2, 3, 7, 8, 9, 10, 11}) order.push_back(i);
  trace::FrameRecord taken;
  for (const size_t i : order) {
    SCOPED_TRACE("frame " + std::to_string(i));
    ASSERT_TRUE(prefetch->take(i, taken));
    ASSERT_EQ(taken.number, reader->frameNumber(i));
    const trace::BucketRecord* varying = nullptr;
    for (const trace::BucketRecord& b : taken.buckets)
      if (b.name == "varying") varying = &b;
    ASSERT_NE(varying, nullptr);
    ASSERT_EQ(varying->keyCount(), drawsOf(taken.number));
    for (size_t k = 0; k < varying->keyCount(); ++k) {
      cmd::DrawIndexed draw{};
      ASSERT_TRUE(varying->packet(k, 0).as(draw));
      EXPECT_EQ(draw.indexCount, taken.number * 1000 + varying->key(k)) << "key " << k;
    }
  }
}

TEST(FramePrefetcher, AReaderMadeFromBytesGetsNone) {
  TempDir dir;
  const std::string path = captureTrace(dir);
  auto reader = trace::TraceReader::fromBytes(readFile(path), "not-a-file.reel");
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(replay::FramePrefetcher::create(reader.value(), aheadOptions(2, 1)));
  auto fromFile = trace::TraceReader::open(path);
  ASSERT_TRUE(fromFile);
  EXPECT_FALSE(replay::FramePrefetcher::create(fromFile.value(), aheadOptions(0, 1)))
      << "look-ahead 0 reads in line";
}

// Every call the device got, frame by frame, played twice over (the second pass starts over).
std::vector<NullDevice::Call> replayCalls(const std::string& path, uint32_t lookahead, uint32_t workers,
                                          replay::DecodeTimes* times = nullptr) {
  auto reader = trace::TraceReader::open(path);
  EXPECT_TRUE(reader);
  NullDevice device(true);
  replay::SessionOptions options;
  options.lookahead = lookahead;
  options.readWorkers = workers;
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
  const std::vector<NullDevice::Call> inLine = replayCalls(path, 0, 1);
  for (const uint32_t workers : {1u, 3u}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    replay::DecodeTimes times;
    const std::vector<NullDevice::Call> ahead = replayCalls(path, 32, workers, &times);
    ASSERT_EQ(ahead.size(), inLine.size());
    for (size_t c = 0; c < ahead.size(); ++c) {
      EXPECT_EQ(ahead[c].kind, inLine[c].kind) << c;
      EXPECT_EQ(ahead[c].type, inLine[c].type) << c;
      EXPECT_EQ(ahead[c].payload, inLine[c].payload) << c;
      EXPECT_EQ(ahead[c].aux, inLine[c].aux) << c;
    }
    EXPECT_GT(times.aheadCpu.count(), 0) << "the frames were read on the workers";
    EXPECT_GE(times.readCpu, times.aheadCpu);
    EXPECT_GT(times.renderSpan.count(), 0);
    EXPECT_LE(times.renderIdle, times.renderSpan);
  }
}

}  // namespace
}  // namespace reel::testing
