// Key frames (CaptureOptions::keyFrames, format 1.4): a capture writes the live resources again at
// intervals, and the replay engine starts from the nearest one. A replay that starts there reaches the
// same device calls (null device) and images (lavapipe) as one from the capture start (the same trace,
// SessionOptions::keyFrames off); a seek replays
// only the frames from the nearest key frame; a damaged chunk costs only the frames up to the next one.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

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

constexpr uint64_t kFrames = 12;
constexpr uint32_t kKeyEvery = 4;  // key frames at frames 4 and 8

// The test scene's frames 0..kFrames-1 on `device`, captured with key frames every `keyEvery` frames
// (0: none), two frames a chunk.
void captureScene(Device& device, const fs::path& path, uint32_t keyEvery) {
  Renderer renderer(device);
  test::TestScene scene(renderer);
  capture::CaptureOptions options{.path = path.string(), .firstFrame = 0, .lastFrame = kFrames - 1};
  options.handleSignals = false;
  options.compression.maxFramesPerChunk = 2;
  options.compression.chunkMillis = 0;
  options.keyFrames = {.everyMillis = 0, .everyBytes = 0, .everyFrames = keyEvery};
  auto capture = capture::Capture::start(renderer, options);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  for (uint64_t f = 0; f < kFrames; ++f) {
    scene.record(f);
    renderer.kick();
  }
  renderer.flushAndWait();
  ASSERT_TRUE((*capture)->finish().ok());
  EXPECT_EQ((*capture)->stats().keyFrames, keyEvery ? (kFrames - 1) / keyEvery : 0);
}

fs::path nullCapture(const std::string& name, uint32_t keyEvery) {
  const fs::path path = testing::tempPath(name);
  NullDevice device(/*recordCalls=*/false);
  captureScene(device, path, keyEvery);
  return path;
}

struct NullReplay {
  std::unique_ptr<trace::TraceReader> reader;
  NullDevice device;
  std::unique_ptr<replay::ReplaySession> session;
};

// The commands the device ran in its last frame (frame numbers left out: a replay that starts from a
// key frame kicks frames of its own to put the resources back).
std::vector<std::pair<CommandType, std::vector<std::byte>>> lastFrameCommands(NullReplay& replay) {
  replay.session->renderer().flushAndWait();  // replayFrame returns once the frame is kicked
  const auto& calls = replay.device.calls();
  size_t begin = calls.size();
  while (begin > 0 && calls[begin - 1].kind != NullDevice::Call::Kind::BeginFrame) --begin;
  std::vector<std::pair<CommandType, std::vector<std::byte>>> out;
  for (size_t i = begin; i < calls.size(); ++i) {
    if (calls[i].kind == NullDevice::Call::Kind::Command) out.emplace_back(calls[i].type, calls[i].payload);
  }
  return out;
}

// The last frame of each ran the same commands, and some.
void expectSameCommands(NullReplay& a, NullReplay& b, size_t frame) {
  const auto x = lastFrameCommands(a), y = lastFrameCommands(b);
  EXPECT_FALSE(x.empty()) << "frame " << frame;
  EXPECT_EQ(x.size(), y.size()) << "frame " << frame;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (x[i] != y[i]) {
      ADD_FAILURE() << "frame " << frame << ": command " << i << " (" << commandName(x[i].first)
                    << ") differs";
      return;
    }
  }
}

// The same resources alive, with the same contents.
void expectSameResources(replay::ReplaySession& a, replay::ReplaySession& b, size_t frame) {
  ASSERT_TRUE(a.feeder().liveResources() == b.feeder().liveResources()) << "frame " << frame;
  for (const auto& [key, live] : a.feeder().liveResources()) {
    if (live.kind == ResourceKind::Buffer) {
      auto x = a.readBuffer(BufferHandle{live.handle}), y = b.readBuffer(BufferHandle{live.handle});
      ASSERT_TRUE(x.ok() && y.ok());
      EXPECT_EQ(*x, *y) << "frame " << frame << ": buffer " << live.handle;
    } else if (live.kind == ResourceKind::Texture) {
      auto x = a.readTexture(TextureHandle{live.handle}), y = b.readTexture(TextureHandle{live.handle});
      ASSERT_TRUE(x.ok() && y.ok());
      EXPECT_EQ(x->texels, y->texels) << "frame " << frame << ": texture " << live.handle;
    }
  }
}

std::unique_ptr<NullReplay> nullReplay(const fs::path& path, bool keyFrames = true) {
  auto r = std::make_unique<NullReplay>();
  auto reader = trace::TraceReader::open(path.string());
  EXPECT_TRUE(reader.ok()) << reader.error().message;
  if (!reader.ok()) return nullptr;
  r->reader = std::make_unique<trace::TraceReader>(std::move(reader.value()));
  auto session =
      replay::ReplaySession::create(*r->reader, r->device, {.device = "null", .keyFrames = keyFrames});
  EXPECT_TRUE(session.ok()) << session.error().message;
  if (!session.ok()) return nullptr;
  r->session = std::move(session.value());
  return r;
}

TEST(KeyFrames, CaptureWritesThemAtTheIntervalAndTheReaderIndexesThem) {
  const fs::path path = nullCapture("interval.reel", kKeyEvery);
  auto reader = trace::TraceReader::open(path.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  EXPECT_EQ(reader->keyFrames(), (std::vector<size_t>{4, 8}));
  auto key = reader->readKeyFrame(8);
  ASSERT_TRUE(key.ok()) << key.error().message;
  ASSERT_FALSE(key->empty());
  EXPECT_EQ(key->front().frame, 8u);
  auto start = reader->readResources();
  ASSERT_TRUE(start.ok());
  EXPECT_EQ(start->size(), 1u) << "a key frame must not read as capture-start resources";
  EXPECT_FALSE(reader->readKeyFrame(5).ok());

  auto none = trace::TraceReader::open(nullCapture("none.reel", 0).string());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->keyFrames().empty());
}

TEST(KeyFrames, EveryFrameFromItsNearestKeyFrameRunsTheSameDeviceCallsAsFromTheStart) {
  const fs::path keyed = nullCapture("keyed.reel", kKeyEvery);
  // The same trace played from the capture start (the app's transient handles differ from capture to
  // capture: a destroyed slot is freed when the GPU is done with it).
  auto reference = nullReplay(keyed, /*keyFrames=*/false);
  ASSERT_TRUE(reference);
  for (size_t i = 0; i < kFrames; ++i) {
    ASSERT_TRUE(reference->session->replayFrame(i).ok());
    auto jumped = nullReplay(keyed);  // a fresh session: frame i from the nearest key frame
    ASSERT_TRUE(jumped);
    auto got = jumped->session->replayFrame(i);
    ASSERT_TRUE(got.ok()) << got.error().message;
    expectSameCommands(*jumped, *reference, i);
    if (i >= kKeyEvery) {
      // From the key frame: fewer renderer frames than the i + 1 a replay from the capture start kicks.
      const auto& calls = jumped->device.calls();
      const auto begun = std::count_if(calls.begin(), calls.end(), [](const NullDevice::Call& c) {
        return c.kind == NullDevice::Call::Kind::BeginFrame;
      });
      EXPECT_LT(size_t(begun), i + 1) << "frame " << i << " was not replayed from its key frame";
    }
    expectSameResources(*jumped->session, *reference->session, i);
    EXPECT_TRUE(jumped->session->feeder().sortMismatches().empty());
  }
}

TEST(KeyFrames, ASeekReplaysOnlyFromTheNearestKeyFrame) {
  const fs::path keyed = nullCapture("seek_keyed.reel", kKeyEvery);
  auto k = nullReplay(keyed);
  auto p = nullReplay(keyed, /*keyFrames=*/false);
  ASSERT_TRUE(k && p);
  auto fromKey = k->session->seek(10);
  ASSERT_TRUE(fromKey.ok()) << fromKey.error().message;
  EXPECT_EQ(fromKey->path, SeekPath::KeyFrame);
  EXPECT_EQ(fromKey->framesReplayed, 3u);  // frames 8 and 9 whole, then 10
  auto fromStart = p->session->seek(10);
  ASSERT_TRUE(fromStart.ok()) << fromStart.error().message;
  EXPECT_EQ(fromStart->path, SeekPath::FromStart);
  EXPECT_EQ(fromStart->framesReplayed, 11u);
  expectSameCommands(*k, *p, 10);
  // Back before the checkpoint, to frame 5: from key frame 4, not the capture start.
  auto back = k->session->seek(5);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->path, SeekPath::KeyFrame);
  EXPECT_EQ(back->framesReplayed, 2u);
}

// Frames 4-7 of a trace whose chunk of key frame 4 and frames 4-5 is damaged (two frames a chunk) fail,
// every other frame replays as in the undamaged trace; with its index, or without (cut off: the reader
// walks the chunks and marks the damaged one unreadable).
void expectOnlyFramesUpToTheNextKeyFrameLost(bool withIndex) {
  const fs::path keyed = nullCapture("damaged_source.reel", kKeyEvery);
  const fs::path damaged = testing::tempPath("damaged.reel");
  {
    auto reader = trace::TraceReader::open(keyed.string());
    ASSERT_TRUE(reader.ok());
    // The chunk of frame 5: key frame 4, frames 4 and 5 (two frames a chunk).
    uint32_t c5 = UINT32_MAX;
    for (const trace::MessageInfo& m : reader->messages()) {
      if (m.kind == uint8_t(trace::MessageKind::Frame) && m.frame == 5) c5 = m.chunk;
    }
    ASSERT_NE(c5, UINT32_MAX);
    const trace::ChunkInfo info = reader->chunks()[c5];
    std::ifstream in(keyed, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes[info.offset + info.compressedSize / 2] ^= 0x5a;
    if (!withIndex) bytes.resize(reader->chunks().back().offset + reader->chunks().back().compressedSize);
    std::ofstream(damaged, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  }
  auto d = nullReplay(damaged);
  auto p = nullReplay(keyed, /*keyFrames=*/false);
  ASSERT_TRUE(d && p);
  EXPECT_EQ(d->reader->hasIndex(), withIndex);
  // Without the index, the frames of the damaged chunk are not even known.
  ASSERT_EQ(d->reader->frameCount(), withIndex ? kFrames : kFrames - 2);
  for (size_t i = 0; i < d->reader->frameCount(); ++i) {
    const uint64_t frame = d->reader->frameNumber(i);  // the test scene's frames start at 0
    ASSERT_TRUE(p->session->replayFrame(frame).ok());
    auto got = d->session->replayFrame(i);
    const bool lost = frame >= 4 && frame < 8;
    EXPECT_EQ(got.ok(), !lost) << "frame " << frame << (got.ok() ? "" : ": " + got.error().message);
    if (got.ok()) expectSameCommands(*d, *p, frame);
  }
}

TEST(KeyFrames, ADamagedChunkCostsOnlyTheFramesUpToTheNextKeyFrame) {
  expectOnlyFramesUpToTheNextKeyFrameLost(/*withIndex=*/true);
}

TEST(KeyFrames, ADamagedChunkOfATraceWithoutItsIndexCostsOnlyTheFramesUpToTheNextKeyFrame) {
  expectOnlyFramesUpToTheNextKeyFrameLost(/*withIndex=*/false);
}

// On lavapipe: a trace captured on the Vulkan device (a replay of traces/default_from_start.reel, captured
// again with a key frame every other frame), every frame replayed from its nearest key frame gives the
// image that a replay from the capture start gives.
TEST(KeyFrames, ImagesFromTheNearestKeyFrameMatchThoseFromTheStart) {
  const fs::path path = testing::tempPath("vulkan.reel");
  size_t frames = 0;
  {
    auto source = replay::ReplaySession::open(
        (fs::path(REEL_TRACES_DIR) / "default_from_start.reel").string(), {.validate = true});
    ASSERT_TRUE(source.ok()) << source.error().message;
    capture::CaptureOptions options{.path = path.string()};
    options.handleSignals = false;
    options.keyFrames = {.everyMillis = 0, .everyBytes = 0, .everyFrames = 2};
    auto capture = capture::Capture::start((*source)->renderer(), options);
    ASSERT_TRUE(capture.ok()) << capture.error().message;
    frames = (*source)->reader().frameCount();
    for (size_t i = 0; i < frames; ++i) ASSERT_TRUE((*source)->replayFrame(i).ok());
    (*source)->renderer().flushAndWait();
    ASSERT_TRUE((*capture)->finish().ok());
    EXPECT_GE((*capture)->stats().keyFrames, 1u);
  }
  auto reference = replay::ReplaySession::open(path.string(), {.validate = true, .keyFrames = false});
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  const std::vector<size_t> keys = (*reference)->reader().keyFrames();
  ASSERT_FALSE(keys.empty());
  for (size_t i = 0; i < frames; ++i) {
    auto want = (*reference)->replayFrame(i, UINT64_MAX, replay::TargetChoice{});
    ASSERT_TRUE(want.ok()) << want.error().message;
    if (i < keys.front()) continue;
    auto fresh = replay::ReplaySession::open(path.string(), {.validate = true});
    ASSERT_TRUE(fresh.ok()) << fresh.error().message;
    auto got = (*fresh)->replayFrame(i, UINT64_MAX, replay::TargetChoice{});
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_TRUE(image::compare(*got->image, *want->image).matches) << "frame " << i;
    EXPECT_EQ((*fresh)->takeDeviceErrors(), std::vector<std::string>{});
  }
  EXPECT_EQ((*reference)->takeDeviceErrors(), std::vector<std::string>{});
}

}  // namespace
}  // namespace reel
