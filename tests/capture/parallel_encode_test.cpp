// Frames encoded on several threads at once (CaptureOptions::encodeThreads): the file gets them in frame
// order whatever order their encoders finish in, predicted exactly as one thread predicts them; the
// frames between the renderer and the file stay within maxEncodeFrames and maxEncodeBytes; the policy
// when the encoders fall behind still holds.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <utility>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/schema/compression.h"
#include "reel/trace/reader.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

using capture::Capture;
using capture::CaptureOptions;
using trace::TraceReader;

CaptureOptions options(const std::string& path) {
  CaptureOptions o;
  o.path = path;
  o.appName = "parallel_encode_test";
  o.handleSignals = false;
  o.keyFrames.everyMillis = 0;    // the same messages every run
  o.compression.chunkMillis = 0;  // chunks by frame count and size alone: the same chunks every run
  o.compression.maxFramesPerChunk = 8;
  return o;
}

// `draws` draws, each after 1 KiB of push constants, whose keys and bytes move a little from frame to
// frame, as an animated scene's do. The constants cost the encoder (copied, predicted, shuffled) far more
// than they cost the null device's render thread, so frames queue up for the encoders.
void recordDraws(CommandBucket<uint32_t>& bucket, uint64_t frame, uint32_t draws) {
  uint32_t constants[256];
  for (uint32_t i = 0; i < draws; ++i) {
    // Moving linearly with the frame, as positions of an animation do: what prediction is for.
    for (uint32_t w = 0; w < 256; ++w)
      constants[w] = (i * 2654435761u ^ w * 40503u) + static_cast<uint32_t>(frame) * (w + 1);
    auto& push = bucket.addWithData<cmd::PushConstants>(i * 4 + static_cast<uint32_t>(frame % 3), constants,
                                                        sizeof constants);
    auto& draw = bucket.append<cmd::Draw>(&push);
    draw.vertexCount = 3 + i % 5;
    draw.firstVertex = static_cast<uint32_t>(frame) * 2 + i;
  }
}

struct Captured {
  std::map<uint64_t, WitnessFrame> frames;
  capture::CaptureStats stats;
};

// Frames of alternately `big` and `small` draws: a big frame takes far longer to encode than the small
// frame after it, which its encoder starts as soon as the big one is planned.
Captured captureAlternating(const CaptureOptions& o, uint64_t frames, uint32_t big, uint32_t small) {
  NullDevice device(false);
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("alternating");
  auto capture = Capture::start(renderer, o);
  EXPECT_TRUE(capture) << capture.error().message;
  if (!capture) return {};
  Witness witness;
  const ObserverRegistration watching = renderer.addObserver(witness);
  for (uint64_t f = 0; f < frames; ++f) {
    recordDraws(bucket, renderer.recordingFrame(), f % 2 == 0 ? big : small);
    renderer.kick();
  }
  EXPECT_TRUE(capture.value()->finish());
  renderer.flushAndWait();
  return {witness.frames(), capture.value()->stats()};
}

// The frame messages of a trace, decompressed, in file order.
std::vector<std::vector<std::byte>> frameMessages(const std::string& path) {
  auto reader = TraceReader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  if (!reader) return {};
  const std::vector<std::byte> file = readFile(path);
  schema::ChunkDecompressor decompressor;
  std::vector<std::vector<std::byte>> out;
  std::vector<std::byte> raw;
  uint32_t loaded = UINT32_MAX;
  for (const trace::MessageInfo& m : reader->messages()) {
    if (m.kind != static_cast<uint8_t>(trace::MessageKind::Frame)) continue;
    if (m.chunk != loaded) {
      const trace::ChunkInfo& c = reader->chunks()[m.chunk];
      raw.resize(c.rawSize);
      EXPECT_TRUE(decompressor.decompress(file.data() + c.offset, c.compressedSize, raw.data(), raw.size()));
      loaded = m.chunk;
    }
    out.emplace_back(raw.begin() + m.offset, raw.begin() + m.offset + m.size);
  }
  return out;
}

void expectEveryFrameInOrderAsWitnessed(const std::string& path,
                                        const std::map<uint64_t, WitnessFrame>& witnessed) {
  auto reader = TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), witnessed.size());
  auto expected = witnessed.begin();
  for (size_t i = 0; i < reader->frameCount(); ++i, ++expected) {
    auto frame = reader->readFrame(i);
    ASSERT_TRUE(frame) << i << ": " << frame.error().message;
    EXPECT_EQ(frame->number, expected->first) << "the trace's frame " << i;
    EXPECT_FALSE(frame->dropped);
    expectFrameEquals(expected->second, frame.value());
  }
  // In the file too: each frame message after the one before it.
  uint64_t last = 0;
  bool any = false;
  for (const trace::MessageInfo& m : reader->messages()) {
    if (m.kind != static_cast<uint8_t>(trace::MessageKind::Frame)) continue;
    if (any) {
      EXPECT_GT(m.frame, last) << "frame " << m.frame << " written after frame " << last;
    }
    last = m.frame;
    any = true;
  }
}

// A small frame's encoder finishes before the big frame's before it (framesEncodedEarly counts it), yet
// the file has every frame in frame order, each read back as the renderer saw it. Whether a small frame
// overtakes depends on the scheduler (on a loaded machine the big frame's encoder may finish before the
// small frame is even recorded), so the capture runs again until one did, checking the order every time.
TEST(ParallelEncode, FramesReachTheFileInFrameOrderWhateverOrderTheyAreEncodedIn) {
  TempDir dir;
  uint64_t encodedEarly = 0;
  for (int attempt = 0; attempt < 5 && encodedEarly == 0; ++attempt) {
    CaptureOptions o = options(dir.path("order" + std::to_string(attempt) + ".reel"));
    o.encodeThreads = 4;
    const Captured captured = captureAlternating(o, 40, 3000, 1);
    EXPECT_EQ(captured.stats.framesWritten, 40u);
    expectEveryFrameInOrderAsWitnessed(o.path, captured.frames);
    encodedEarly = captured.stats.framesEncodedEarly;
  }
  EXPECT_GT(encodedEarly, 0u)
      << "in five captures no frame finished encoding before the frame before it: the order went untested";
}

// The frame messages several threads build are byte for byte those one thread builds (the same
// predictions from the same frames), and the chunk plan matched the file's chunks: no frame was encoded
// twice.
TEST(ParallelEncode, SeveralEncodeThreadsWriteTheBytesOneWrites) {
  TempDir dir;
  CaptureOptions one = options(dir.path("one.reel"));
  one.encodeThreads = 0;
  CaptureOptions four = options(dir.path("four.reel"));
  four.encodeThreads = 4;
  const Captured a = captureAlternating(one, 30, 800, 800);
  const Captured b = captureAlternating(four, 30, 800, 800);
  EXPECT_EQ(a.stats.framesReencoded, 0u);
  EXPECT_EQ(b.stats.framesReencoded, 0u);
  const auto messagesA = frameMessages(one.path);
  const auto messagesB = frameMessages(four.path);
  ASSERT_EQ(messagesA.size(), 30u);
  ASSERT_EQ(messagesB.size(), 30u);
  // Predicted frames are what this compares: they shrink the file well below whole frames.
  CaptureOptions whole = one;
  whole.path = dir.path("whole.reel");
  whole.compression.predictFrames = false;
  const Captured c = captureAlternating(whole, 30, 800, 800);
  EXPECT_LT(b.stats.fileBytes * 10, c.stats.fileBytes * 9);
  for (size_t i = 0; i < messagesA.size(); ++i)
    EXPECT_TRUE(messagesA[i] == messagesB[i]) << "frame message " << i;
  expectEveryFrameInOrderAsWitnessed(four.path, b.frames);
}

// The summary gives the encode threads' CPU a frame and every capture thread's: the compression threads'
// time counts there only when there are compression threads (without them the writer compresses, in
// its own time, which is counted once).
TEST(ParallelEncode, TheSummaryCountsEveryCaptureThreadsCpuOnce) {
  TempDir dir;
  auto summaryOf = [&](uint32_t compressionThreads, capture::CaptureStats& stats) {
    CaptureOptions o = options(dir.path("cpu" + std::to_string(compressionThreads) + ".reel"));
    o.encodeThreads = 2;
    o.compression.threads = compressionThreads;
    std::string line;
    o.log = [&](std::string_view l) { line = l; };
    stats = captureAlternating(o, 30, 800, 800).stats;
    return line;
  };
  auto figures = [](const std::string& line) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(
        line, m, std::regex(R"(\(([\d.]+) ms CPU a frame; ([\d.]+) ms with compressing and writing\))")))
        << line;
    return m.size() == 3 ? std::pair{std::stod(m[1]), std::stod(m[2])} : std::pair{-1.0, -1.0};
  };
  capture::CaptureStats threaded, inline_;
  const auto [encode, all] = figures(summaryOf(2, threaded));
  EXPECT_GT(threaded.compressCpuNs, 0u) << "2 compression threads compressed 30 frames";
  const double frames = double(threaded.framesWritten);
  EXPECT_NEAR(
      all, double(threaded.writerCpuNs + threaded.encodeCpuNs + threaded.compressCpuNs) / 1e6 / frames, 0.01);
  EXPECT_NEAR(encode, double(threaded.encodeCpuNs) / 1e6 / frames, 0.01);
  EXPECT_GT(all, encode);
  const auto [encodeInline, allInline] = figures(summaryOf(0, inline_));
  EXPECT_EQ(inline_.compressCpuNs, 0u) << "no compression threads: the writer's own time";
  EXPECT_NEAR(allInline,
              double(inline_.writerCpuNs + inline_.encodeCpuNs) / 1e6 / double(inline_.framesWritten), 0.01);
  EXPECT_GE(allInline, encodeInline);
}

// Waking a thread is a system call on the render thread. A frame that the waiting poller finds within a
// millisecond (kClaimPoll) wakes nobody; a frame that comes while the poller is busy with a big one wakes
// the encoder that waits beside it; without encode threads every frame wakes the writer, which takes it
// (CaptureStats::renderWakes).
TEST(ParallelEncode, TheRenderThreadWakesAnEncoderOnlyWhereThePollerWouldFindTheFrameLate) {
  TempDir dir;
  constexpr uint64_t kFrames = 30;
  // Every frame reaches onFrame on its own. After a small frame (2 draws) the capture's threads are
  // waiting again (the frame appended, then time to go back to waiting); a big one (bigDraws, some
  // milliseconds to encode) is followed at once by a small one, which finds the big one either still
  // queued or taken by the poller and being encoded. (Not captureAlternating: its Witness copies every
  // frame on the render thread, which delays the small frame until the poller has finished the big one.)
  auto captureFrames = [&](const std::string& name, uint32_t encodeThreads, uint32_t bigDraws) {
    CaptureOptions o = options(dir.path(name));
    o.encodeThreads = encodeThreads;
    NullDevice device(false);
    Renderer renderer(device);
    auto& bucket = renderer.createBucket<uint32_t>("paced");
    auto capture = Capture::start(renderer, o);
    EXPECT_TRUE(capture) << capture.error().message;
    if (!capture) return capture::CaptureStats{};
    for (uint64_t f = 0; f < kFrames; ++f) {
      const bool big = bigDraws != 0 && f % 2 == 0;
      recordDraws(bucket, renderer.recordingFrame(), big ? bigDraws : 2);
      renderer.kick();
      renderer.flushAndWait();
      if (!big) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (capture.value()->stats().framesWritten <= f && std::chrono::steady_clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    EXPECT_TRUE(capture.value()->finish());
    renderer.flushAndWait();
    return capture.value()->stats();
  };
  const capture::CaptureStats paced = captureFrames("paced.reel", 2, 0);
  EXPECT_EQ(paced.framesWritten, kFrames);
  // Nominally none; a few for a loaded machine's scheduler, far from one a frame.
  EXPECT_LE(paced.renderWakes, kFrames / 5) << "frames the waiting poller would have found woke an encoder";
  const capture::CaptureStats writerOnly = captureFrames("writer.reel", 0, 0);
  EXPECT_EQ(writerOnly.renderWakes, kFrames) << "without encode threads the writer takes every frame";
  const capture::CaptureStats busy = captureFrames("busy.reel", 2, 4000);
  EXPECT_EQ(busy.framesWritten, kFrames);
  // Nominally one for each small frame after a big one: fifteen.
  EXPECT_GE(busy.renderWakes, kFrames / 4) << "frames that came while the poller was busy waited for it";
}

// A chunk closes where the plan said (by frame count here), so predicted frames never cross a chunk;
// and at each chunk's first frame nothing is predicted (the reader checks: every frame reads alone).
TEST(ParallelEncode, EveryChunkDecodesOnItsOwn) {
  TempDir dir;
  CaptureOptions o = options(dir.path("chunks.reel"));
  o.encodeThreads = 3;
  o.compression.maxFramesPerChunk = 3;
  const Captured captured = captureAlternating(o, 20, 500, 500);
  EXPECT_EQ(captured.stats.framesReencoded, 0u);
  auto reader = TraceReader::open(o.path);
  ASSERT_TRUE(reader) << reader.error().message;
  for (size_t i = reader->frameCount(); i-- > 0;) {
    auto fresh = TraceReader::open(o.path);
    ASSERT_TRUE(fresh);
    auto frame = fresh->readFrame(i);
    ASSERT_TRUE(frame) << i << ": " << frame.error().message;
    expectFrameEquals(captured.frames.at(frame->number), frame.value());
  }
}

// The writer stalls (a FIFO nobody reads for a while): the encoders take at most `bound` frames (from
// maxEncodeFrames, 0: the default), the render thread then waits (WhenBehind::Wait), and every frame
// still reaches the trace whole.
void stallTheWriter(uint32_t maxEncodeFrames, uint64_t bound) {
  TempDir dir;
  const std::string fifo = dir.path("stalled.reel");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int readEnd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(readEnd, 0);
  NullDevice device(false);
  Renderer renderer(device, {.framesInFlight = kMaxFramesInFlight});
  Scene scene(renderer, {.draws = 200, .auxBytes = 1024, .randomAux = true});  // ~200 KiB a frame
  CaptureOptions o = options(fifo);
  o.encodeThreads = 4;
  o.maxEncodeFrames = maxEncodeFrames;
  o.compression.maxFramesPerChunk = 1;
  o.compression.maxPendingBytes = 1;
  auto capture = Capture::start(renderer, o);
  ASSERT_TRUE(capture) << capture.error().message;
  Witness witness;
  const ObserverRegistration watching = renderer.addObserver(witness);
  std::vector<std::byte> received;
  std::thread drain([&] {
    // Until the encoders hold the bound and the render thread had to wait for it (it may wait earlier,
    // for the encoders to gather the frames it leased, on a loaded machine or under sanitizers).
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto full = [&] {
      const capture::CaptureStats now = capture.value()->stats();
      return now.peakFramesInFlight >= bound && now.renderWaits > now.renderWaitsForGathering;
    };
    while (!full() && std::chrono::steady_clock::now() < giveUp)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::fcntl(readEnd, F_SETFL, 0);
    std::byte buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(readEnd, buffer, sizeof buffer);
      if (n <= 0) break;
      received.insert(received.end(), buffer, buffer + n);
    }
  });
  const uint64_t kFrames = bound + 13;
  for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
  ASSERT_TRUE(capture.value()->finish());
  renderer.flushAndWait();
  drain.join();
  ::close(readEnd);
  const capture::CaptureStats stats = capture.value()->stats();
  EXPECT_LE(stats.peakFramesInFlight, bound);
  EXPECT_EQ(stats.peakFramesInFlight, bound) << "the stall should have filled the bound";
  EXPECT_GE(stats.renderWaits, 1u);
  EXPECT_LT(stats.renderWaitsForGathering, stats.renderWaits)
      << "a wait for the stalled writer, not the encoders";
  // The waits' frames: none before the renderer's leased frames are all taken (frames not gathered yet
  // hold them; on a loaded machine the encoders may not have gathered the first ones when the next comes)
  // or more than `bound` frames are on their way, none after the last frame recorded.
  const uint64_t firstFrame = witness.frames().begin()->first;
  EXPECT_GE(stats.firstWaitFrame, firstFrame + std::min<uint64_t>(kMaxObserverRetainedFrames, bound + 1));
  EXPECT_LE(stats.firstWaitFrame, stats.lastWaitFrame);
  EXPECT_LT(stats.lastWaitFrame, firstFrame + kFrames);
  EXPECT_EQ(stats.framesWritten, kFrames);
  EXPECT_EQ(stats.framesDropped, 0u);
  auto reader = TraceReader::fromBytes(std::move(received), "fifo");
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), kFrames);
  for (size_t i = 0; i < kFrames; ++i) {
    auto frame = reader->readFrame(i);
    ASSERT_TRUE(frame) << i << ": " << frame.error().message;
    EXPECT_FALSE(frame->dropped);
    expectFrameEquals(witness.frames().at(frame->number), frame.value());
  }
}

TEST(ParallelEncode, FramesInFlightStayWithinMaxEncodeFrames) {
  stallTheWriter(3, 3);
}

// By default the capture rides out a stall of kDefaultMaxEncodeFrames frames (the writer's start, a slow
// disk) before the render thread waits, with any number of encode threads.
TEST(ParallelEncode, ByDefaultMaxEncodeFramesRideOutAStalledWriter) {
  stallTheWriter(0, reel::capture::kDefaultMaxEncodeFrames);
}

// maxEncodeBytes below one frame's columns: one frame at a time, still every frame.
TEST(ParallelEncode, MaxEncodeBytesBelowOneFrameTakesOneFrameAtATime) {
  TempDir dir;
  CaptureOptions o = options(dir.path("bytes.reel"));
  o.encodeThreads = 4;
  o.maxEncodeBytes = 1;
  const Captured captured = captureAlternating(o, 12, 500, 500);
  EXPECT_EQ(captured.stats.peakFramesInFlight, 1u);
  EXPECT_GT(captured.stats.peakBytesInFlight, 0u);
  expectEveryFrameInOrderAsWitnessed(o.path, captured.frames);
}

}  // namespace
}  // namespace reel::testing
