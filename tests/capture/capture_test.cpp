#include "reel/capture/capture.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "reel/runtime/null_device.h"
#include "reel/schema/messages.h"
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
  o.appName = "capture_test";
  o.appArgs = {"--scene", "all"};
  o.compression.maxFramesPerChunk = 3;
  o.handleSignals = false;
  return o;
}

std::unique_ptr<Capture> start(Renderer& renderer, CaptureOptions o) {
  auto capture = Capture::start(renderer, std::move(o));
  EXPECT_TRUE(capture) << capture.error().message;
  return capture ? std::move(capture.value()) : nullptr;
}

TraceReader open(const std::string& path) {
  auto reader = TraceReader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  return std::move(reader.value());
}

TEST(Capture, RoundTripOfEveryCommandKeyTypeAndResourceKind) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  auto capture = start(renderer, options(dir.path("all.reel")));
  ASSERT_TRUE(capture);
  Witness witness;  // beside the capture, which registered itself
  const ObserverRegistration watching = renderer.addObserver(witness);
  constexpr uint64_t kFrames = 12;
  for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
  ASSERT_TRUE(capture->finish());
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{}) << "the scene itself is valid";
  const capture::CaptureStats stats = capture->stats();
  EXPECT_EQ(stats.framesCaptured, kFrames);
  EXPECT_EQ(stats.framesWritten, kFrames);
  EXPECT_EQ(stats.chunks, 5u) << "three frames per chunk, then the CaptureEnd in a chunk of its own";
  EXPECT_TRUE(stats.finished);
  EXPECT_TRUE(stats.error.empty()) << stats.error;

  TraceReader reader = open(dir.path("all.reel"));
  EXPECT_EQ(reader.warnings(), std::vector<std::string>{});
  EXPECT_TRUE(reader.hasIndex());
  EXPECT_TRUE(reader.complete());
  ASSERT_EQ(reader.frameCount(), kFrames);

  std::set<uint16_t> commands;
  std::set<std::string> keyTypes;
  bool sawShared = false, sawRetained = false, sawEmptyBucket = false;
  for (size_t i = 0; i < kFrames; ++i) {
    EXPECT_EQ(reader.frameNumber(i), i);
    auto frame = reader.readFrame(i);
    ASSERT_TRUE(frame) << frame.error().message;
    SCOPED_TRACE("frame " + std::to_string(i));
    expectFrameEquals(witness.frames().at(i), frame.value());
    for (const auto& r : frame->requests) commands.insert(r.type);
    for (const auto& bucket : frame->buckets) {
      keyTypes.insert(std::string(bucket.keyType));
      sawRetained |= bucket.retained;
      sawEmptyBucket |= bucket.keyCount() == 0;
      EXPECT_EQ(bucket.retained, i == 7 && bucket.name == "tiny") << bucket.name;
      for (size_t k = 0; k < bucket.keyCount(); ++k) {
        bucket.forEachInChain(k, [&](const trace::PacketRecord& p) {
          commands.insert(p.type);
          sawShared |= p.shared;
        });
      }
    }
  }
  for (uint16_t id = 0; id < kCommandTypeCount; ++id) {
    EXPECT_TRUE(commands.count(id)) << commandName(static_cast<CommandType>(id))
                                    << " never reached the trace";
  }
  EXPECT_EQ(keyTypes, (std::set<std::string>{"DrawKey", "u8", "u16", "u32", "u64"}));
  EXPECT_TRUE(sawShared);
  EXPECT_TRUE(sawRetained);
  EXPECT_TRUE(sawEmptyBucket);

  auto end = reader.readCaptureEnd();
  ASSERT_TRUE(end && end->has_value());
  EXPECT_EQ(end->value().frames, kFrames);
  EXPECT_EQ(end->value().reason, "stopped");
}

TEST(Capture, HeaderDescribesTheRuntimeTheTraceWasCapturedWith) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  const auto before = std::chrono::system_clock::now();
  auto capture = start(renderer, options(dir.path("header.reel")));
  ASSERT_TRUE(capture);
  scene.frame();
  ASSERT_TRUE(capture->finish());
  const auto after = std::chrono::system_clock::now();

  TraceReader reader = open(dir.path("header.reel"));
  const trace::TraceHeader& h = reader.header();
  EXPECT_EQ(h.formatMajor, schema::kFormatMajor);
  EXPECT_EQ(h.formatMinor, schema::kFormatMinor);
  EXPECT_FALSE(h.reelVersion.empty());
  EXPECT_EQ(h.appName, "capture_test");
  EXPECT_EQ(h.appArgs, (std::vector<std::string>{"--scene", "all"}));
  EXPECT_EQ(h.device.name, device.info().name);
  EXPECT_EQ(h.device.driver, device.info().driver);
  EXPECT_EQ(h.device.type, "null");
  EXPECT_GE(h.captureTimeNs,
            std::chrono::duration_cast<std::chrono::nanoseconds>(before.time_since_epoch()).count());
  EXPECT_LE(h.captureTimeNs,
            std::chrono::duration_cast<std::chrono::nanoseconds>(after.time_since_epoch()).count());
  EXPECT_EQ(h.firstFrame, 0u);
  EXPECT_TRUE(h.tagsEnabled);  // packets always have their tag field
  EXPECT_EQ(h.resourceKinds.size(), static_cast<size_t>(ResourceKind::Count));

  ASSERT_EQ(h.commands.size(), kCommandTypeCount);
  for (uint16_t id = 0; id < kCommandTypeCount; ++id) {
    const CommandInfo& info = commandTable()[id];
    EXPECT_TRUE(h.matchesRuntime(id)) << info.name;
    EXPECT_EQ(h.commands[id].name, info.name);
    EXPECT_EQ(h.commands[id].size, info.size);
    EXPECT_EQ(h.commands[id].queue, info.queue);
    EXPECT_EQ(hashFields(h.commands[id].fields), hashFields(info.fields))
        << info.name << ": field table differs";
  }
  // A packet prints the same through the trace's tables as through the runtime's own.
  cmd::BeginRenderPass pass{};
  pass.target = RenderTargetHandle::make(3, 2);
  pass.colorLoad = LoadOp::DontCare;
  pass.clearColor[2] = 0.5f;
  const auto bytes = std::as_bytes(std::span(&pass, 1));
  EXPECT_EQ(h.formatPacket(static_cast<uint16_t>(CommandType::BeginRenderPass), bytes),
            "BeginRenderPass " + formatFields(FieldsOf<cmd::BeginRenderPass>::fields(), &pass, sizeof pass));
  cmd::CreatePipeline create{};
  create.desc.attributes[1].format = Format::RG32Float;
  create.desc.blend = BlendMode::Additive;
  EXPECT_EQ(
      h.formatPacket(static_cast<uint16_t>(CommandType::CreatePipeline),
                     std::as_bytes(std::span(&create, 1))),
      "CreatePipeline " + formatFields(FieldsOf<cmd::CreatePipeline>::fields(), &create, sizeof create));

  for (const char* keyType : {"DrawKey", "u8", "u16", "u32", "u64"}) {
    ASSERT_NE(h.keyLayout(keyType), nullptr) << keyType;
  }
  const auto layout = h.keyLayout("DrawKey")->fields;
  const auto expected = KeyTraits<DrawKey>::layout();
  ASSERT_EQ(layout.size(), expected.size());
  for (size_t i = 0; i < layout.size(); ++i) {
    EXPECT_STREQ(layout[i].name, expected[i].name);
    EXPECT_EQ(layout[i].shift, expected[i].shift);
    EXPECT_EQ(layout[i].bits, expected[i].bits);
    EXPECT_EQ(layout[i].mode, expected[i].mode);
    EXPECT_EQ(layout[i].inverted, expected[i].inverted);
  }
  for (const DrawKey key : {DrawKey::draw(1, 2, Translucency::Additive, {77, 3}, 12345),
                            DrawKey::draw(0, 1, Translucency::Opaque, {5, 1}, 99),
                            DrawKey::command(2, 3, Translucency::Opaque, 42)}) {
    EXPECT_EQ(h.formatKey("DrawKey", key.bits), KeyTraits<DrawKey>::format(key.bits));
  }
  EXPECT_EQ(h.formatKey("u16", 513), "value=513");
  EXPECT_EQ(h.formatKey("NoSuchKey", 255), "0x00000000000000ff");
}

TEST(Capture, CaptureStartedMidRunCarriesLiveResourcesAndReplaysOnItsOwn) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  for (int f = 0; f < 6; ++f) scene.frame();  // frames 0..5; the temporaries of frame 5 are alive at 6
  const std::vector<std::byte> trackedAtStart = scene.trackedContents();

  CaptureOptions o = options(dir.path("mid.reel"));
  o.firstFrame = 6;
  o.lastFrame = 8;
  auto capture = start(renderer, o);
  ASSERT_TRUE(capture);
  Witness witness;
  witness.snapshotAt(6);
  const ObserverRegistration watching = renderer.addObserver(witness);
  for (int f = 6; f <= 8; ++f) scene.frame();
  renderer.flushAndWait();
  ASSERT_TRUE(capture->finish());
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});

  TraceReader reader = open(dir.path("mid.reel"));
  EXPECT_EQ(reader.header().firstFrame, 6u);
  ASSERT_EQ(reader.frameCount(), 3u);
  EXPECT_EQ(reader.frameNumber(0), 6u);
  EXPECT_EQ(reader.frameNumber(2), 8u);
  auto end = reader.readCaptureEnd();
  ASSERT_TRUE(end && end->has_value());
  EXPECT_EQ(end->value().reason, "frame range complete");

  // The resources alive at frame 6, with the contents the device held then.
  auto snapshots = reader.readResources();
  ASSERT_TRUE(snapshots) << snapshots.error().message;
  std::vector<trace::LiveResourceRecord> resources;
  for (const auto& s : snapshots.value()) {
    EXPECT_EQ(s.frame, 6u);
    resources.insert(resources.end(), s.resources.begin(), s.resources.end());
  }
  const auto& expected = witness.snapshot();
  ASSERT_EQ(resources.size(), expected.size());
  EXPECT_EQ(resources.size(), 4u + 3u + 1u + 2u + 1u + 1u + 6u)
      << "base resources plus one temporary of each kind";
  std::set<CommandType> kinds;
  bool sawTracked = false;
  for (size_t i = 0; i < resources.size(); ++i) {
    const auto& r = resources[i];
    kinds.insert(static_cast<CommandType>(r.createType));
    EXPECT_EQ(r.createType, static_cast<uint16_t>(expected[i].createType));
    EXPECT_TRUE(std::ranges::equal(r.create, expected[i].create));
    EXPECT_TRUE(std::ranges::equal(r.code, expected[i].code));
    EXPECT_TRUE(r.readbackError.empty());
    ASSERT_EQ(r.contents.size(), expected[i].contents.size());
    for (size_t c = 0; c < r.contents.size(); ++c) {
      EXPECT_EQ(r.contents[c].mip, c);
      EXPECT_TRUE(std::ranges::equal(r.contents[c].bytes, expected[i].contents[c]));
    }
    uint32_t handle;
    std::memcpy(&handle, r.create.data(), sizeof handle);
    if (r.createType == static_cast<uint16_t>(CommandType::CreateBuffer) &&
        handle == scene.trackedBuffer().value) {
      sawTracked = true;
      // Independent of the readback: what the requests and the GPU-side updates of frames 0..5 wrote.
      EXPECT_TRUE(std::ranges::equal(r.contents[0].bytes, trackedAtStart));
    }
  }
  EXPECT_TRUE(sawTracked);
  EXPECT_EQ(kinds.size(), 6u) << "every resource kind";
  for (size_t i = 0; i < 3; ++i) {
    auto frame = reader.readFrame(i);
    ASSERT_TRUE(frame) << frame.error().message;
    expectFrameEquals(witness.frames().at(6 + i), frame.value());
  }

  // Replayed on a device that never saw frames 0..5: every handle its packets name is live, and the
  // device does exactly what the original did in frames 6..8.
  NullDevice replayDevice;
  Renderer replayRenderer(replayDevice);
  Witness replayWitness;
  const ObserverRegistration replayWatching = replayRenderer.addObserver(replayWitness);
  auto replayed = replayTrace(reader, replayRenderer);
  ASSERT_TRUE(replayed) << replayed.error().message;
  EXPECT_EQ(replayDevice.takeErrors(), std::vector<std::string>{});
  for (uint64_t i = 0; i < 3; ++i) {
    const auto original = commandsOfFrame(device, 6 + i);
    const auto replay = commandsOfFrame(replayDevice, 1 + i);
    ASSERT_EQ(replay.size(), original.size()) << "frame " << 6 + i;
    for (size_t c = 0; c < original.size(); ++c) {
      EXPECT_EQ(replay[c]->type, original[c]->type) << "frame " << 6 + i << " call " << c;
      EXPECT_EQ(replay[c]->payload, original[c]->payload) << "frame " << 6 + i << " call " << c;
      EXPECT_EQ(replay[c]->aux, original[c]->aux) << "frame " << 6 + i << " call " << c;
      EXPECT_EQ(replay[c]->tag, original[c]->tag) << "frame " << 6 + i << " call " << c;
    }
    EXPECT_EQ(replayWitness.frames().at(1 + i).sortedOrderHash, witness.frames().at(6 + i).sortedOrderHash);
  }
  const auto originalBytes =
      renderer.withIdleDevice([&](Device& d) { return d.readBuffer(scene.trackedBuffer()); });
  const auto replayBytes =
      replayRenderer.withIdleDevice([&](Device& d) { return d.readBuffer(scene.trackedBuffer()); });
  ASSERT_TRUE(originalBytes && replayBytes);
  EXPECT_EQ(replayBytes.value(), originalBytes.value());
  EXPECT_EQ(replayBytes.value(), scene.trackedContents());
}

TEST(Capture, FrameRangeEndsByItselfAndLaterFramesAreLeftAlone) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  CaptureOptions o = options(dir.path("range.reel"));
  o.firstFrame = 2;
  o.lastFrame = 3;
  auto capture = start(renderer, o);
  ASSERT_TRUE(capture);
  for (int f = 0; f < 8; ++f) scene.frame();
  renderer.flushAndWait();
  for (int i = 0; i < 500 && !capture->finished(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_TRUE(capture->finished()) << "the range ended at frame 3 without stop()";
  EXPECT_EQ(capture->stats().framesCaptured, 2u);
  TraceReader reader = open(dir.path("range.reel"));
  ASSERT_EQ(reader.frameCount(), 2u);
  EXPECT_EQ(reader.frameNumber(0), 2u);
  EXPECT_EQ(reader.frameNumber(1), 3u);
  EXPECT_TRUE(reader.complete());
}

TEST(Capture, StopEndsTheTraceAfterTheLastKickedFrame) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  auto capture = start(renderer, options(dir.path("stop.reel")));
  ASSERT_TRUE(capture);
  for (int f = 0; f < 3; ++f) scene.frame();
  capture->stop();
  for (int f = 0; f < 3; ++f) scene.frame();
  ASSERT_TRUE(capture->finish());
  TraceReader reader = open(dir.path("stop.reel"));
  EXPECT_EQ(reader.frameCount(), 3u);
}

TEST(Capture, DestroyingTheCaptureFinishesTheTrace) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  auto capture = start(renderer, options(dir.path("destroyed.reel")));
  for (int f = 0; f < 4; ++f) scene.frame();
  capture.reset();  // frames 0..3 may still be in flight: the destructor flushes them into the trace
  scene.frame();    // and the renderer goes on without it
  renderer.flushAndWait();
  TraceReader reader = open(dir.path("destroyed.reel"));
  EXPECT_EQ(reader.frameCount(), 4u);
  EXPECT_TRUE(reader.complete());
  auto end = reader.readCaptureEnd();
  ASSERT_TRUE(end && end->has_value());
  EXPECT_EQ(end->value().reason, "capture destroyed");
}

TEST(Capture, MarkersAreWrittenBeforeTheFrameTheyWereMadeIn) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  auto capture = start(renderer, options(dir.path("markers.reel")));
  scene.frame();
  capture->marker("level loaded");
  capture->marker("boss appears");
  scene.frame();
  scene.frame();
  ASSERT_TRUE(capture->finish());
  TraceReader reader = open(dir.path("markers.reel"));
  auto markers = reader.readMarkers();
  ASSERT_TRUE(markers) << markers.error().message;
  ASSERT_EQ(markers->size(), 2u);
  EXPECT_EQ((*markers)[0].frame, 1u);
  EXPECT_EQ((*markers)[0].text, "level loaded");
  EXPECT_EQ((*markers)[1].text, "boss appears");
  size_t markerAt = 0, frameAt = 0;
  for (size_t i = 0; i < reader.messages().size(); ++i) {
    const auto& m = reader.messages()[i];
    if (m.kind == static_cast<uint8_t>(fb::Body::Marker) && markerAt == 0) markerAt = i;
    if (m.kind == static_cast<uint8_t>(fb::Body::Frame) && m.frame == 1) frameAt = i;
  }
  EXPECT_LT(markerAt, frameAt);
}

TEST(Capture, AKeyTypeFirstSeenMidCaptureGetsItsLayoutWritten) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  auto& world = renderer.createBucket<DrawKey>("world");
  auto capture = start(renderer, options(dir.path("late.reel")));
  world.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 5)).vertexCount = 3;
  renderer.kick();
  auto& late = renderer.createBucket<uint16_t>("late");
  late.add<cmd::Draw>(uint16_t{9}).vertexCount = 4;
  renderer.kick();
  ASSERT_TRUE(capture->finish());
  TraceReader reader = open(dir.path("late.reel"));
  ASSERT_NE(reader.header().keyLayout("u16"), nullptr);
  EXPECT_EQ(reader.header().formatKey("u16", 9), "value=9");
  auto frame = reader.readFrame(1);
  ASSERT_TRUE(frame) << frame.error().message;
  ASSERT_EQ(frame->buckets.size(), 2u);
  EXPECT_EQ(frame->buckets[1].keyType, "u16");
}

// A writer that cannot write (the reading end of a FIFO is not read until the render thread waits) falls
// behind: the render thread then waits for it, counted, and no frame is lost. Four frames in flight and
// two retained frames at once also show that the bucket streams never run out.
TEST(Capture, AWriterFallingBehindMakesTheRenderThreadWaitAndDropsNothing) {
  TempDir dir;
  const std::string fifo = dir.path("slow.reel");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int readEnd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(readEnd, 0);
  NullDevice device(false);
  Renderer renderer(device, {.framesInFlight = kMaxFramesInFlight});
  Scene scene(renderer,
              {.draws = 200, .auxBytes = 1024, .randomAux = true});  // ~200 KiB per frame, incompressible
  CaptureOptions o = options(fifo);
  o.compression.maxFramesPerChunk = 1;
  o.compression.maxPendingBytes = 1;  // one chunk waits for the file at a time, then the writer waits
  auto capture = start(renderer, o);
  ASSERT_TRUE(capture);

  std::vector<std::byte> received;
  std::thread drain([&] {
    // The file opens for reading only once the render thread waits (stats() counts a wait as it starts),
    // however slowly the frames are recorded; a minute without one lets the test go on and fail below.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (capture->stats().renderWaits == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::fcntl(readEnd, F_SETFL, 0);  // blocking from now on
    std::byte buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(readEnd, buffer, sizeof buffer);
      if (n <= 0) break;
      received.insert(received.end(), buffer, buffer + n);
    }
  });
  // More frames than the capture holds on their way to the file by default and leased.
  constexpr uint64_t kFrames = reel::capture::kDefaultMaxEncodeFrames + 16;
  for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
  ASSERT_TRUE(capture->finish());
  drain.join();
  ::close(readEnd);

  const capture::CaptureStats stats = capture->stats();
  EXPECT_GE(stats.renderWaits, 1u) << "the file was not read until the render thread waited";
  EXPECT_GT(stats.renderWaitNs, 0u);
  EXPECT_EQ(stats.framesWritten, kFrames);
  auto reader = TraceReader::fromBytes(std::move(received), "fifo");
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->frameCount(), kFrames);
  auto end = reader->readCaptureEnd();
  ASSERT_TRUE(end && end->has_value());
  EXPECT_EQ(end->value().renderWaits, stats.renderWaits) << "the waits are reported in the trace too";
  for (size_t i = 0; i < kFrames; ++i) EXPECT_TRUE(reader->readFrame(i)) << i;
}

TEST(Capture, AWriteErrorIsReportedAndNeverStallsRendering) {
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  auto capture = start(renderer, options("/dev/full"));
  ASSERT_TRUE(capture);
  for (int f = 0; f < 20; ++f) scene.frame();  // would hang here if the render thread waited on a dead writer
  renderer.flushAndWait();
  auto finished = capture->finish();
  ASSERT_FALSE(finished);
  EXPECT_NE(finished.error().message.find("/dev/full"), std::string::npos) << finished.error().message;
  EXPECT_NE(finished.error().message.find("No space"), std::string::npos) << finished.error().message;
  EXPECT_FALSE(capture->stats().error.empty());
  EXPECT_EQ(renderer.stats().framesProcessed, 20u);
}

TEST(Capture, StartFailsForAPathThatCannotBeCreated) {
  NullDevice device;
  Renderer renderer(device);
  auto capture = Capture::start(renderer, options("/nonexistent/dir/out.reel"));
  ASSERT_FALSE(capture);
  EXPECT_NE(capture.error().message.find("/nonexistent/dir/out.reel"), std::string::npos);
  EXPECT_NE(capture.error().message.find("No such file"), std::string::npos);
  renderer.kick();  // no observer was left behind
  renderer.flushAndWait();
}

TEST(Capture, AFrameRangeThatIsOverIsRefused) {
  NullDevice device;
  Renderer renderer(device);
  for (int f = 0; f < 5; ++f) renderer.kick();
  CaptureOptions o = options("/tmp/unused.reel");
  o.firstFrame = 1;
  o.lastFrame = 3;
  auto capture = Capture::start(renderer, o);
  ASSERT_FALSE(capture);
  EXPECT_NE(capture.error().message.find("frame range"), std::string::npos) << capture.error().message;
}

}  // namespace
}  // namespace reel::testing
