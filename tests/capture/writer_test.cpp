// The trace writer at speed: chunks compressed on several threads and written in order, the memory
// bound, the policy when the writer cannot keep up (wait, or drop frames and mark them), and frames
// encoded against the frames before them in their chunk.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/schema/compression.h"
#include "reel/schema/messages.h"
#include "reel/schema/predict.h"
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
  o.appName = "writer_test";
  o.handleSignals = false;
  return o;
}

struct Captured {
  std::map<uint64_t, WitnessFrame> frames;
  capture::CaptureStats stats;
};

// Captures `frames` frames of the test scene with `o`, witnessed.
Captured captureScene(CaptureOptions o, uint64_t frames, SceneOptions sceneOptions = {}) {
  NullDevice device(false);
  Renderer renderer(device);
  Scene scene(renderer, sceneOptions);
  auto capture = Capture::start(renderer, std::move(o));
  EXPECT_TRUE(capture) << capture.error().message;
  if (!capture) return {};
  Witness witness;
  const ObserverRegistration watching = renderer.addObserver(witness);
  for (uint64_t f = 0; f < frames; ++f) scene.frame();
  EXPECT_TRUE(capture.value()->finish());
  renderer.flushAndWait();
  return {witness.frames(), capture.value()->stats()};
}

TraceReader open(const std::string& path) {
  auto reader = TraceReader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  return std::move(reader.value());
}

void expectEveryFrameAsWitnessed(TraceReader& reader, const std::map<uint64_t, WitnessFrame>& witnessed) {
  ASSERT_EQ(reader.frameCount(), witnessed.size());
  for (size_t i = 0; i < reader.frameCount(); ++i) {
    auto frame = reader.readFrame(i);
    ASSERT_TRUE(frame) << frame.error().message;
    EXPECT_FALSE(frame->dropped);
    expectFrameEquals(witnessed.at(frame->number), frame.value());
  }
}

TEST(TraceWriter, ChunksCompressedOnSeveralThreadsReachTheFileInOrder) {
  TempDir dir;
  CaptureOptions o = options(dir.path("threads.reel"));
  o.compression.threads = 4;
  o.compression.maxFramesPerChunk = 1;  // a chunk per frame: many in flight at once
  constexpr uint64_t kFrames = 40;
  const Captured captured = captureScene(o, kFrames, {.draws = 300});
  EXPECT_EQ(captured.stats.framesOnDisk, kFrames);
  EXPECT_EQ(captured.stats.chunks, kFrames + 1) << "a chunk per frame, and the CaptureEnd's";

  TraceReader reader = open(o.path);
  EXPECT_TRUE(reader.hasIndex());
  EXPECT_EQ(reader.warnings(), std::vector<std::string>{});
  // In the file one after another, in frame order.
  const auto chunks = reader.chunks();
  for (size_t c = 1; c < chunks.size(); ++c)
    EXPECT_EQ(chunks[c].offset, chunks[c - 1].offset + chunks[c - 1].compressedSize) << c;
  expectEveryFrameAsWitnessed(reader, captured.frames);
}

TEST(TraceWriter, WithoutCompressionThreadsTheWriterThreadCompresses) {
  TempDir dir;
  CaptureOptions o = options(dir.path("inline.reel"));
  o.compression.threads = 0;
  o.compression.maxFramesPerChunk = 2;
  const Captured captured = captureScene(o, 9);
  TraceReader reader = open(o.path);
  EXPECT_TRUE(reader.complete());
  expectEveryFrameAsWitnessed(reader, captured.frames);
}

// zstd's match table is a setting (CompressionSettings::hashLog): whatever its size the frames read back
// as drawn, and a size zstd refuses is one error at the start, naming the file.
TEST(TraceWriter, EveryMatchTableSizeReadsBackExactlyAndOneZstdRefusesIsAnError) {
  TempDir dir;
  for (const int hashLog : {0, 12, 17, 22}) {
    CaptureOptions o = options(dir.path("hash" + std::to_string(hashLog) + ".reel"));
    o.compression.hashLog = hashLog;
    o.compression.maxFramesPerChunk = 4;
    const Captured captured = captureScene(o, 9, {.draws = 100});
    TraceReader reader = open(o.path);
    EXPECT_TRUE(reader.complete()) << "hashLog " << hashLog;
    expectEveryFrameAsWitnessed(reader, captured.frames);
  }
  NullDevice device(false);
  Renderer renderer(device);
  CaptureOptions refused = options(dir.path("refused.reel"));
  refused.compression.hashLog = 40;
  auto capture = Capture::start(renderer, refused);
  ASSERT_FALSE(capture);
  EXPECT_NE(capture.error().message.find(refused.path), std::string::npos) << capture.error().message;
  EXPECT_NE(capture.error().message.find("zstd"), std::string::npos) << capture.error().message;
}

// A chunk closes after the frame that takes it past chunkBytes, before its frame count says so: no chunk
// holds more than chunkBytes before its last frame message.
TEST(TraceWriter, ChunksCloseOnceTheyHoldChunkBytes) {
  TempDir dir;
  CaptureOptions o = options(dir.path("bytes.reel"));
  o.compression.chunkBytes = 64 << 10;
  o.compression.maxFramesPerChunk = 16;
  o.compression.chunkMillis = 0;
  o.keyFrames.everyMillis = 0;
  constexpr uint64_t kFrames = 24;
  const Captured captured = captureScene(o, kFrames, {.draws = 300});  // some 20 KiB a frame message
  TraceReader reader = open(o.path);
  std::map<uint32_t, std::vector<trace::MessageInfo>> byChunk;
  for (const trace::MessageInfo& m : reader.messages()) byChunk[m.chunk].push_back(m);
  ASSERT_GE(byChunk.size(), 4u) << "24 frames in chunks of 64 KiB, not of 16 frames";
  for (const auto& [chunk, messages] : byChunk) {
    uint64_t frames = 0, beforeLast = 0;
    for (const trace::MessageInfo& m : messages) {
      if (m.kind != static_cast<uint8_t>(trace::MessageKind::Frame)) continue;
      ++frames;
      beforeLast = m.offset;
    }
    if (frames == 0) continue;  // the CaptureEnd's
    EXPECT_LT(beforeLast, o.compression.chunkBytes) << "chunk " << chunk;
    EXPECT_LT(frames, 16u) << "chunk " << chunk;
  }
  expectEveryFrameAsWitnessed(reader, captured.frames);
}

// Frames predicted from the frames before them read back exactly, in any order, and make a smaller
// file than the same frames whole.
TEST(TraceWriter, PredictedFramesReadBackExactlyInAnyOrderAndSmaller) {
  TempDir dir;
  CaptureOptions predicted = options(dir.path("predicted.reel"));
  predicted.compression.maxFramesPerChunk = 6;
  // Chunks of 6 frames in both files, however slow the build (a time limit closed them after one or two
  // frames under ThreadSanitizer, and the comparison then measured the chunking, not the prediction).
  predicted.compression.chunkMillis = 0;
  CaptureOptions whole = predicted;
  whole.path = dir.path("whole.reel");
  whole.compression.predictFrames = false;
  constexpr uint64_t kFrames = 20;
  const Captured a = captureScene(predicted, kFrames, {.draws = 400});
  const Captured b = captureScene(whole, kFrames, {.draws = 400});
  TraceReader reader = open(predicted.path);
  expectEveryFrameAsWitnessed(reader, a.frames);
  TraceReader wholeReader = open(whole.path);
  expectEveryFrameAsWitnessed(wholeReader, b.frames);
  EXPECT_LT(a.stats.fileBytes, b.stats.fileBytes);

  // A fresh reader for each frame (nothing decoded before it), then backwards, then shuffled.
  std::vector<size_t> order(kFrames);
  for (size_t i = 0; i < kFrames; ++i) order[i] = i;
  for (size_t i : order) {
    TraceReader fresh = open(predicted.path);
    auto frame = fresh.readFrame(i);
    ASSERT_TRUE(frame) << i << ": " << frame.error().message;
    expectFrameEquals(a.frames.at(frame->number), frame.value());
  }
  std::reverse(order.begin(), order.end());
  std::shuffle(order.begin() + 5, order.end(), std::mt19937(3));
  trace::FrameRecord reused;
  for (size_t i : order) {
    ASSERT_TRUE(reader.readFrame(i, reused)) << i;
    expectFrameEquals(a.frames.at(reused.number), reused);
  }
}

// A 1.2 reader must refuse a predicted frame rather than read residuals as packets: a predicted column
// leaves its plain field absent, which a 1.2 decoder finds too short for the bucket's bodies. Likewise a
// bucket that repeats the structure of the frame before it (1.6) leaves every structure column out. The
// first frame of every chunk is never predicted (chunks decode on their own).
TEST(TraceWriter, APredictedColumnLeavesItsPlainFieldAbsentAndChunksStartWhole) {
  TempDir dir;
  CaptureOptions o = options(dir.path("p.reel"));
  o.compression.maxFramesPerChunk = 4;
  captureScene(o, 12, {.draws = 200});
  TraceReader reader = open(o.path);
  const std::vector<std::byte> file = readFile(o.path);
  schema::ChunkDecompressor decompressor;
  uint32_t lastChunk = UINT32_MAX;
  std::vector<std::byte> raw;
  size_t predictedBuckets = 0, sameStructureBuckets = 0, ownStructureBuckets = 0, sparseColumns = 0;
  for (const trace::MessageInfo& m : reader.messages()) {
    if (m.kind != static_cast<uint8_t>(fb::Body::Frame)) continue;
    const trace::ChunkInfo& c = reader.chunks()[m.chunk];
    const bool firstOfChunk = m.chunk != lastChunk;
    if (firstOfChunk) {
      raw.resize(c.rawSize);
      ASSERT_TRUE(decompressor.decompress(file.data() + c.offset, c.compressedSize, raw.data(), raw.size()));
      lastChunk = m.chunk;
    }
    flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(raw.data() + m.offset), m.size);
    ASSERT_TRUE(fb::VerifySizePrefixedMessageBuffer(verifier));
    const fb::Frame* frame = fb::GetSizePrefixedMessage(raw.data() + m.offset)->body_as_Frame();
    ASSERT_TRUE(frame && frame->buckets());
    for (const fb::Bucket* bucket : *frame->buckets()) {
      using schema::PredictedColumn;
      using schema::Predictor;
      if (firstOfChunk) {
        EXPECT_EQ(bucket->predictors(), 0) << "frame " << m.frame;
        EXPECT_FALSE(bucket->same_structure()) << "frame " << m.frame;
      }
      if (bucket->predictors() != 0) ++predictedBuckets;
      // A repeated structure (format 1.6) is absent, column for column; a 1.5 reader finds keys without
      // chain lengths and refuses the frame.
      if (bucket->same_structure()) {
        ++sameStructureBuckets;
        EXPECT_GT(bucket->keys() ? bucket->keys()->size() : bucket->keys_residual()->size(), 0u);
        EXPECT_EQ(bucket->chain_lengths(), nullptr);
        EXPECT_EQ(bucket->link_body(), nullptr);
        EXPECT_EQ(bucket->link_tag(), nullptr);
        EXPECT_EQ(bucket->body_type(), nullptr);
        EXPECT_EQ(bucket->body_aux_size(), nullptr);
        EXPECT_EQ(bucket->shared_bodies(), nullptr);
        EXPECT_EQ(bucket->tags(), nullptr);
        EXPECT_EQ(bucket->strings(), nullptr);
        EXPECT_EQ(bucket->passes(), nullptr);
      } else if (bucket->keys() || bucket->keys_residual()) {
        ++ownStructureBuckets;
        EXPECT_NE(bucket->chain_lengths(), nullptr);
      }
      // A column is in one field or the other (an empty one in neither).
      auto expectOneOf = [&](PredictedColumn which, const auto* plain, const auto* residual) {
        if (schema::predictorOf(bucket->predictors(), which) == Predictor::Plain) {
          EXPECT_EQ(residual, nullptr);
        } else {
          EXPECT_EQ(plain, nullptr);
          EXPECT_NE(residual, nullptr);
        }
      };
      expectOneOf(PredictedColumn::Keys, bucket->keys(), bucket->keys_residual());
      expectOneOf(PredictedColumn::Payload, bucket->payload(), bucket->payload_residual());
      expectOneOf(PredictedColumn::Aux, bucket->aux(), bucket->aux_residual());
      // A residual column keeps only its segments that are not all zero (format 1.7), with their mask;
      // a plain column has none. Never empty: its first segment is always kept.
      auto expectSegments = [&](PredictedColumn which, const auto* residual, const auto* segments) {
        if (schema::predictorOf(bucket->predictors(), which) == Predictor::Plain) {
          EXPECT_EQ(segments, nullptr);
          return;
        }
        ASSERT_NE(segments, nullptr);
        size_t marked = 0;
        for (const uint64_t word : *segments) marked += static_cast<size_t>(std::popcount(word));
        EXPECT_GT(marked, 0u);
        EXPECT_LE(residual->size(), marked * schema::kResidualSegmentBytes);
        EXPECT_GT(residual->size(), (marked - 1) * schema::kResidualSegmentBytes);
        // Shorter than any column of that many mask words: segments were left out.
        if (residual->size() < (segments->size() - 1) * 64 * schema::kResidualSegmentBytes) ++sparseColumns;
      };
      expectSegments(PredictedColumn::Keys, bucket->keys_residual(), bucket->keys_residual_segments());
      expectSegments(PredictedColumn::Payload, bucket->payload_residual(),
                     bucket->payload_residual_segments());
      expectSegments(PredictedColumn::Aux, bucket->aux_residual(), bucket->aux_residual_segments());
    }
  }
  EXPECT_GT(predictedBuckets, 0u);
  EXPECT_GT(sameStructureBuckets, 0u);
  EXPECT_GT(ownStructureBuckets, 0u);
  EXPECT_GT(sparseColumns, 0u) << "some residual column leaves out more than a mask word's segments";
}

// The writer stalls (the trace goes into a FIFO nobody reads yet): with DropFrames the render thread
// never waits; the frames it could not queue are in the trace with their requests, marked dropped,
// without buckets, and every other frame is whole.
TEST(TraceWriter, DroppedFramesKeepTheirRequestsAndAreMarked) {
  TempDir dir;
  const std::string fifo = dir.path("slow.reel");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int readEnd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(readEnd, 0);
  NullDevice device(false);
  Renderer renderer(device, {.framesInFlight = kMaxFramesInFlight});
  Scene scene(renderer, {.draws = 200, .auxBytes = 1024, .randomAux = true});  // ~200 KiB a frame
  CaptureOptions o = options(fifo);
  o.compression.maxFramesPerChunk = 1;
  o.compression.maxPendingBytes = 1;
  o.whenBehind = capture::WhenBehind::DropFrames;
  auto capture = Capture::start(renderer, o);
  ASSERT_TRUE(capture) << capture.error().message;
  Witness witness;
  const ObserverRegistration watching = renderer.addObserver(witness);

  // More than the frames the capture holds on their way to the file (maxEncodeFrames' default) and the
  // renderer lets it keep leased.
  constexpr uint64_t kFrames = reel::capture::kDefaultMaxEncodeFrames + 16;
  for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
  renderer.flushAndWait();
  const capture::CaptureStats during = capture.value()->stats();
  std::vector<std::byte> received;
  std::thread drain([&] {
    ::fcntl(readEnd, F_SETFL, 0);
    std::byte buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(readEnd, buffer, sizeof buffer);
      if (n <= 0) break;
      received.insert(received.end(), buffer, buffer + n);
    }
  });
  ASSERT_TRUE(capture.value()->finish());
  drain.join();
  ::close(readEnd);

  const capture::CaptureStats stats = capture.value()->stats();
  EXPECT_EQ(stats.renderWaits, 0u);
  EXPECT_GE(during.framesDropped, 1u) << "the writer could not take every frame while the FIFO was full";
  EXPECT_EQ(stats.framesWritten, kFrames);
  auto reader = TraceReader::fromBytes(std::move(received), "fifo");
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), kFrames);
  uint64_t dropped = 0;
  for (size_t i = 0; i < kFrames; ++i) {
    auto frame = reader->readFrame(i);
    ASSERT_TRUE(frame) << i << ": " << frame.error().message;
    const WitnessFrame& expected = witness.frames().at(frame->number);
    if (!frame->dropped) {
      expectFrameEquals(expected, frame.value());
      continue;
    }
    ++dropped;
    EXPECT_TRUE(frame->buckets.empty());
    EXPECT_EQ(frame->sortedOrderHash, expected.sortedOrderHash);
    ASSERT_EQ(frame->requests.size(), expected.requests.size()) << "frame " << frame->number;
    for (size_t r = 0; r < expected.requests.size(); ++r) {
      EXPECT_EQ(frame->requests[r].type, expected.requests[r].type);
      EXPECT_TRUE(std::equal(frame->requests[r].payload.begin(), frame->requests[r].payload.end(),
                             expected.requests[r].payload.begin(), expected.requests[r].payload.end()));
      EXPECT_TRUE(std::equal(frame->requests[r].aux.begin(), frame->requests[r].aux.end(),
                             expected.requests[r].aux.begin(), expected.requests[r].aux.end()));
    }
  }
  EXPECT_EQ(dropped, stats.framesDropped);
  EXPECT_GE(dropped, 1u);
}

}  // namespace
}  // namespace reel::testing
