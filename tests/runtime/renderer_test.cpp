#include "reel/runtime/renderer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>

#include "reel/runtime/null_device.h"

namespace reel {
namespace {

using Kind = NullDevice::Call::Kind;

std::vector<const NullDevice::Call*> commandsOfFrame(const NullDevice& device, uint64_t frame) {
  std::vector<const NullDevice::Call*> out;
  for (const auto& call : device.calls()) {
    if (call.kind == Kind::Command && call.frame == frame) out.push_back(&call);
  }
  return out;
}

TEST(Renderer, DispatchesInKeyOrderAcrossBucketsWithTiesInRecordingOrder) {
  NullDevice device;
  Renderer renderer(device);
  auto& world = renderer.createBucket<DrawKey>("world");
  auto& overlay = renderer.createBucket<DrawKey>("overlay");
  // Recorded out of order, over two buckets.
  overlay.add<cmd::Draw>(DrawKey::draw(0, 3, Translucency::Opaque, {1, 0}, 0)).vertexCount = 5;
  world.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Normal, {1, 0}, 100)).vertexCount = 4;  // far
  world.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Normal, {1, 0}, 900)).vertexCount = 3;  // farther
  world.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {2, 0}, 50)).vertexCount = 2;
  world.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 50)).vertexCount = 1;
  world.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 50)).vertexCount =
      11;  // tie: after 1
  renderer.kick();
  renderer.flushAndWait();

  std::vector<uint32_t> order;
  for (const auto* call : commandsOfFrame(device, 0)) order.push_back(call->as<cmd::Draw>().vertexCount);
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 11, 2, 3, 4, 5}));
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
}

TEST(Renderer, ResourceRequestsComeBeforeCommandsAndDestroysAfter) {
  NullDevice device;
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("b");
  ResourceContext& resources = renderer.resources();
  const std::byte bytes[16] = {};
  const BufferHandle buffer = resources.createBuffer({.size = 16, .usage = buffer_usage::kVertex}, bytes);
  bucket.add<cmd::BindVertexBuffer>(1).buffer = buffer;
  EXPECT_TRUE(resources.destroy(buffer));
  EXPECT_EQ(resources.state(buffer), HandleState::Stale) << "stale for the app at once";
  EXPECT_FALSE(resources.destroy(buffer)) << "double destroy is refused";
  const PipelineHandle pipeline = resources.createPipeline({});
  bucket.add<cmd::BindPipeline>(0).pipeline = pipeline;
  renderer.kick();
  renderer.flushAndWait();

  std::vector<CommandType> types;
  for (const auto* call : commandsOfFrame(device, 0)) types.push_back(call->type);
  EXPECT_EQ(types, (std::vector<CommandType>{CommandType::CreateBuffer, CommandType::CreatePipeline,
                                             CommandType::BindPipeline, CommandType::BindVertexBuffer,
                                             CommandType::DestroyBuffer}));
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{}) << "the buffer is still live for its own frame";
  EXPECT_EQ(device.liveResources(), 1u);
  // The destroyed slot is free again only now that the device destroyed it.
  EXPECT_EQ(resources.createBuffer({.size = 4}).index(), buffer.index());
}

TEST(Renderer, StaleHandleInAPacketIsReportedNotUsed) {
  NullDevice device;
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("b");
  const TextureHandle texture = renderer.resources().createTexture({.width = 4, .height = 4, .mipLevels = 1});
  renderer.kick();
  renderer.resources().destroy(texture);
  renderer.kick();
  bucket.add<cmd::BindTexture>(0).texture = texture;  // used after its destroy was applied
  bucket.add<cmd::Draw>(1).vertexCount = 3;
  renderer.kick();
  renderer.flushAndWait();
  const auto errors = device.takeErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("BindTexture.texture"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("not live"), std::string::npos) << errors[0];
  const auto frame2 = commandsOfFrame(device, 2);
  ASSERT_EQ(frame2.size(), 1u) << "the bad packet is skipped, the rest of the frame runs";
  EXPECT_EQ(frame2[0]->type, CommandType::Draw);
}

TEST(Renderer, EmptyFramesAdvanceTheRingWithoutDrift) {
  // Raven's bug: skipping the handoff on a minimized frame left the render thread reading a queue that
  // was never filled. Here every kick is one frame, empty or not; a frame's commands must come out in
  // that frame, never in a later one, never twice.
  for (uint32_t inFlight = 1; inFlight <= kMaxFramesInFlight; ++inFlight) {
    NullDevice device;
    Renderer renderer(device, {.framesInFlight = inFlight});
    auto& bucket = renderer.createBucket<uint32_t>("b");
    std::vector<bool> drew(40);
    for (uint32_t f = 0; f < drew.size(); ++f) {
      drew[f] = (f % 3 == 0) || (f % 7 == 5);
      if (drew[f]) bucket.add<cmd::Draw>(0).vertexCount = f;
      renderer.kick();
    }
    renderer.flushAndWait();
    uint64_t expectedFrame = 0;
    for (const auto& call : device.calls()) {
      if (call.kind == Kind::BeginFrame) {
        EXPECT_EQ(call.frame, expectedFrame);
      }
      if (call.kind == Kind::EndFrame) ++expectedFrame;
    }
    EXPECT_EQ(expectedFrame, drew.size());
    for (uint32_t f = 0; f < drew.size(); ++f) {
      const auto calls = commandsOfFrame(device, f);
      ASSERT_EQ(calls.size(), drew[f] ? 1u : 0u) << "frame " << f << " in flight " << inFlight;
      if (drew[f]) {
        EXPECT_EQ(calls[0]->as<cmd::Draw>().vertexCount, f);
      }
    }
  }
}

// A device whose frames can be held on the render thread, to observe backpressure.
class GatedDevice final : public Device {
 public:
  const char* name() const override { return "gated"; }
  DeviceInfo info() const override { return {"gated", "test", "0", "null"}; }
  Result<std::vector<std::byte>> readBuffer(BufferHandle) override { return fail("gated: no contents"); }
  Result<std::vector<std::byte>> readTexture(TextureHandle, uint32_t) override {
    return fail("gated: no contents");
  }
  void beginFrame(uint64_t frame) override {
    std::unique_lock lock(mutex);
    ++started;
    changed.notify_all();
    changed.wait(lock, [&] { return frame < released; });
  }
  void endFrame(uint64_t) override {
    std::lock_guard lock(mutex);
    ++finished;
    changed.notify_all();
  }
  void waitIdle() override {}
#define REEL_COMMAND(Name, Semantics, ...) \
  void execute(const cmd::Name&, const PacketContext&) override {}
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

  void release(uint64_t upTo) {
    std::lock_guard lock(mutex);
    released = upTo;
    changed.notify_all();
  }
  void waitStarted(uint64_t n) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return started >= n; });
  }

  std::mutex mutex;
  std::condition_variable changed;
  uint64_t released = 0, started = 0, finished = 0;
};

TEST(Renderer, KickBlocksOnlyWhenAWholeRingIsPending) {
  for (uint32_t inFlight = 1; inFlight <= kMaxFramesInFlight; ++inFlight) {
    GatedDevice device;
    {
      Renderer renderer(device, {.framesInFlight = inFlight});
      // Frame 0 is taken by the render thread and held in beginFrame; it still counts as in flight.
      for (uint32_t i = 0; i < inFlight; ++i) renderer.kick();
      device.waitStarted(1);
      EXPECT_EQ(renderer.stats().kickWaits, 0u) << "in flight " << inFlight;

      std::atomic<bool> returned{false};
      std::thread app([&] {
        renderer.kick();  // one more than the ring holds: must wait
        returned = true;
      });
      // Wait (up to 10 s, for slow sanitizer builds) until the kick is blocked, then check it stays so.
      for (int i = 0; i < 1000 && renderer.stats().kicksBlockedNow == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      EXPECT_EQ(renderer.stats().kicksBlockedNow, 1u)
          << "kick must block while " << inFlight << " frames are pending";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_FALSE(returned.load()) << "kick must block while " << inFlight << " frames are pending";
      device.release(1);  // let frame 0 finish: exactly one slot frees up
      app.join();
      EXPECT_TRUE(returned.load());
      EXPECT_EQ(renderer.stats().kickWaits, 1u);
      device.release(UINT64_MAX);
    }  // the destructor drains the pending frames
    EXPECT_EQ(device.finished, inFlight + 1u);
  }
}

TEST(Renderer, ShutdownWithFramesPendingProcessesThemAll) {
  NullDevice device;
  {
    Renderer renderer(device, {.framesInFlight = 4});
    auto& bucket = renderer.createBucket<uint32_t>("b");
    for (uint32_t f = 0; f < 10; ++f) {
      bucket.add<cmd::Draw>(0).vertexCount = f;
      renderer.kick();
    }
  }
  for (uint32_t f = 0; f < 10; ++f) ASSERT_EQ(commandsOfFrame(device, f).size(), 1u) << f;
}

TEST(Renderer, RetainedBucketIsSubmittedEveryFrameUntilReleased) {
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 3});
  auto& post = renderer.createBucket<uint32_t>("post");
  post.add<cmd::Draw>(0).vertexCount = 3;
  post.setRetained(true);
  for (int f = 0; f < 5; ++f) renderer.kick();
  post.setRetained(false);
  post.add<cmd::Draw>(0).vertexCount = 6;
  renderer.kick();
  renderer.kick();
  renderer.flushAndWait();
  for (uint64_t f = 0; f < 5; ++f) {
    const auto calls = commandsOfFrame(device, f);
    ASSERT_EQ(calls.size(), 1u) << f;
    EXPECT_EQ(calls[0]->as<cmd::Draw>().vertexCount, 3u);
  }
  ASSERT_EQ(commandsOfFrame(device, 5).size(), 1u);
  EXPECT_EQ(commandsOfFrame(device, 5)[0]->as<cmd::Draw>().vertexCount, 6u);
  EXPECT_EQ(commandsOfFrame(device, 6).size(), 0u);
}

class CountingObserver final : public FrameObserver {
 public:
  void onFrame(const FrameView& frame) override {
    frames.push_back(frame.frame);
    packets.push_back(frame.sorted.size());
    requests.push_back(frame.requests->requests.size());
    hashes.push_back(frame.sortedOrderHash);
  }
  std::vector<uint64_t> frames, packets, requests, hashes;
};

TEST(Renderer, ObserverSeesEveryFrameWithItsRequestsAndSortedOrder) {
  NullDevice device;
  Renderer renderer(device);
  CountingObserver observer;
  auto& bucket = renderer.createBucket<uint32_t>("b");
  bucket.add<cmd::Draw>(1);
  renderer.kick();  // before the observer is registered: not seen
  ObserverRegistration watching = renderer.addObserver(observer);
  for (int f = 0; f < 3; ++f) {
    renderer.resources().createSampler({});
    for (uint32_t k = 0; k < 3; ++k) bucket.add<cmd::Draw>(f == 2 ? 3 - k : k);
    renderer.kick();
  }
  watching.reset();
  renderer.kick();
  renderer.flushAndWait();
  EXPECT_EQ(observer.frames, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(observer.packets, (std::vector<uint64_t>{3, 3, 3}));
  EXPECT_EQ(observer.requests, (std::vector<uint64_t>{1, 1, 1}));
  EXPECT_EQ(observer.hashes[0], observer.hashes[1]) << "same recording order, same sorted order";
  EXPECT_NE(observer.hashes[1], observer.hashes[2]) << "reversed recording changes the sorted sequence";
}

// What a capture starting at some frame needs: the live resources before that frame's requests, with
// their contents as the device holds them.
class SnapshotObserver final : public FrameObserver {
 public:
  void onFrameStart(const FrameStart& start) override {
    if (start.frame != snapshotFrame) return;
    start.live->forEach([&](const LiveResources::Entry& entry) {
      types.push_back(entry.createType);
      if (entry.createType == CommandType::CreateBuffer) {
        auto bytes = start.device->readBuffer(BufferHandle{entry.handle});
        ASSERT_TRUE(bytes.ok()) << bytes.error().message;
        contents = bytes.value();
      }
      if (entry.createType == CommandType::CreateShader) shaderCode = entry.aux;
    });
  }
  void onFrame(const FrameView&) override {}
  uint64_t snapshotFrame = 2;
  std::vector<CommandType> types;
  std::vector<std::byte> contents, shaderCode;
};

TEST(Renderer, ObserverSeesLiveResourcesAndTheirContentsAtFrameStart) {
  NullDevice device;
  Renderer renderer(device);
  SnapshotObserver observer;
  const ObserverRegistration watching = renderer.addObserver(observer);
  auto& bucket = renderer.createBucket<uint32_t>("b");
  ResourceContext& resources = renderer.resources();
  const std::byte code[8] = {std::byte{3}, std::byte{2}, std::byte{0x23}, std::byte{7}};
  const ShaderHandle shader = resources.createShader({ShaderStage::Vertex}, code);
  const BufferHandle buffer = resources.createBuffer({.size = 8}, std::vector<std::byte>(8, std::byte{1}));
  const TextureHandle gone =
      resources.createTexture({.width = 2, .height = 2, .mipLevels = 1, .format = Format::RGBA8Unorm});
  renderer.kick();  // frame 0
  resources.destroy(gone);
  const std::byte update[2] = {std::byte{9}, std::byte{9}};
  auto& write = bucket.addWithData<cmd::UpdateBuffer>(0, update, sizeof update);  // written by a command
  write.buffer = buffer;
  write.offset = 6;
  renderer.kick();              // frame 1
  resources.createSampler({});  // created in frame 2 itself: not part of the state before it
  renderer.kick();              // frame 2
  renderer.flushAndWait();
  EXPECT_EQ(observer.types, (std::vector<CommandType>{CommandType::CreateBuffer, CommandType::CreateShader}));
  std::vector<std::byte> expected(8, std::byte{1});
  expected[6] = expected[7] = std::byte{9};
  EXPECT_EQ(observer.contents, expected);
  EXPECT_EQ(observer.shaderCode, std::vector<std::byte>(std::begin(code), std::end(code)));
  (void)shader;
}

TEST(Renderer, StopAfterTranslatesOnlyTheFirstSortedPackets) {
  NullDevice device;
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("b");
  for (uint32_t k = 0; k < 4; ++k) {
    auto& first = bucket.add<cmd::Draw>(10 - k);
    first.vertexCount = 100 + k;
    bucket.append<cmd::Draw>(&first).vertexCount = 200 + k;  // chains count packet by packet
  }
  renderer.kick({.stopAfterPackets = 5});
  renderer.kick();
  renderer.flushAndWait();
  std::vector<uint32_t> stopped, whole;
  for (const auto* call : commandsOfFrame(device, 0)) stopped.push_back(call->as<cmd::Draw>().vertexCount);
  for (const auto* call : commandsOfFrame(device, 1)) whole.push_back(call->as<cmd::Draw>().vertexCount);
  EXPECT_EQ(stopped, (std::vector<uint32_t>{103, 203, 102, 202, 101}));
  EXPECT_TRUE(whole.empty()) << "frame 1 recorded nothing";
}

// A replay's bucket as the runtime sees one: the byte entry points are protected in CommandBucketBase, for
// subclasses such as replay::RecordedBucket (which this test binary does not link).
class BytesBucket final : public CommandBucketBase {
 public:
  explicit BytesBucket(std::string name) : CommandBucketBase(std::move(name), "u64", BucketConfig{}) {}
  using CommandBucketBase::addBytes;
  using CommandBucketBase::addSharedBytes;
  using CommandBucketBase::appendBytes;
  using CommandBucketBase::appendSharedBytes;
  using CommandBucketBase::createSharedBytes;
  std::span<const KeyFieldLayout> keyLayout() const override { return KeyTraits<uint64_t>::layout(); }
  std::string formatKey(uint64_t bits) const override { return KeyTraits<uint64_t>::format(bits); }
  bool keyMaterial(uint64_t, MaterialId&) const override { return false; }
};

TEST(Renderer, ReplayedRequestsAndBytePacketsBehaveAsRecordedOnes) {
  // What a replay does: requests adopt the handles the trace names; packets arrive as bytes.
  NullDevice device;
  Renderer renderer(device);
  auto& bucket = static_cast<BytesBucket&>(renderer.adoptBucket(std::make_unique<BytesBucket>("replayed")));
  cmd::CreateBuffer create{};
  create.buffer = BufferHandle::make(42, 9);
  create.desc.size = 4;
  const std::byte initial[4] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
  auto asBytes = [](const auto& packet) {
    return std::span<const std::byte>(reinterpret_cast<const std::byte*>(&packet), sizeof packet);
  };
  ASSERT_TRUE(renderer.resources().replayRequest(CommandType::CreateBuffer, asBytes(create), initial).ok());
  EXPECT_FALSE(renderer.resources().replayRequest(CommandType::CreateBuffer, asBytes(create), initial).ok())
      << "the same handle cannot be created twice";
  EXPECT_FALSE(renderer.resources().replayRequest(CommandType::Draw, asBytes(cmd::Draw{}), {}).ok());

  cmd::SetViewport viewport{};
  viewport.width = 64;
  PacketHeader& shared = bucket.createSharedBytes(CommandType::SetViewport, asBytes(viewport), {});
  bucket.addSharedBytes(1, shared);
  cmd::BindVertexBuffer bind{};
  bind.buffer = create.buffer;
  PacketHeader& head = bucket.addBytes(5, CommandType::BindVertexBuffer, asBytes(bind), {});
  cmd::Draw draw{};
  draw.vertexCount = 3;
  PacketHeader& drawn = bucket.appendBytes(head, CommandType::Draw, asBytes(draw), {});
  bucket.appendSharedBytes(drawn, shared);  // a shared packet inside a chain, as material passes make them
  const std::byte label[3] = {std::byte{'a'}, std::byte{'b'}, std::byte{'c'}};
  bucket.addBytes(9, CommandType::DebugMarkerBegin, asBytes(cmd::DebugMarkerBegin{}), label);
  renderer.kick();
  renderer.flushAndWait();

  const auto calls = commandsOfFrame(device, 0);
  ASSERT_EQ(calls.size(), 6u);
  EXPECT_EQ(calls[0]->type, CommandType::CreateBuffer);
  EXPECT_EQ(calls[1]->as<cmd::SetViewport>().width, 64.f);
  EXPECT_EQ(calls[2]->as<cmd::BindVertexBuffer>().buffer, create.buffer);
  EXPECT_EQ(calls[3]->as<cmd::Draw>().vertexCount, 3u);
  EXPECT_EQ(calls[4]->as<cmd::SetViewport>().width, 64.f);
  EXPECT_EQ(calls[5]->aux, std::vector<std::byte>(std::begin(label), std::end(label)));
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{}) << "the adopted handle is live on the device";
  auto contents = renderer.withIdleDevice([&](Device& d) { return d.readBuffer(create.buffer); });
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(contents.value(), std::vector<std::byte>(std::begin(initial), std::end(initial)));
}

// Materials 1 and 2 have two passes, each pass a SetViewport whose x names material and pass; any other
// material is left alone (no packet, no second pass).
class TwoPassBinder final : public MaterialBinder {
 public:
  bool bind(MaterialId material, uint32_t pass, BinderPackets& out) override {
    bound.push_back(material.id * 10 + pass);
    if (material.id != 1 && material.id != 2) return false;
    out.add<cmd::SetViewport>().x = float(material.id * 10 + pass);
    return pass == 0;
  }
  std::vector<uint32_t> bound;
};

// What the device was asked in `frame`: "vN" for a SetViewport at x = N, "dN" for a Draw of N vertices.
std::vector<std::string> passCalls(const NullDevice& device, uint64_t frame) {
  std::vector<std::string> out;
  for (const auto* call : commandsOfFrame(device, frame)) {
    if (call->type == CommandType::SetViewport) {
      out.push_back(std::string("v").append(std::to_string(int(call->as<cmd::SetViewport>().x))));
    } else {
      out.push_back(std::string("d")
                        .append(std::to_string(call->as<cmd::Draw>().vertexCount))
                        .append(call->tag.empty() ? "" : "#")
                        .append(call->tag));
    }
  }
  return out;
}

// Sees each sorted chain as packets, the way a capture does: "vN" / "dN" as above, in sorted order.
class ChainObserver final : public FrameObserver {
 public:
  void onFrame(const FrameView& frame) override {
    for (const SortEntry& entry : frame.sorted) {
      const BucketStream& stream = *frame.buckets[frame.mergedBuckets[entry.sequence]].stream;
      // Every packet a key sorts hangs off its KeyEntry too: the capture reads the keys from there.
      EXPECT_EQ(frame.mergedPackets[entry.sequence], entry.value);
      FrameView::forEachInChain(stream, entry.value, [&](const PacketView& p) {
        if (p.type == CommandType::SetViewport) {
          cmd::SetViewport v;
          std::memcpy(&v, p.payload.data(), sizeof v);
          seen.push_back(std::string("v").append(std::to_string(int(v.x))));
        } else {
          cmd::Draw d;
          std::memcpy(&d, p.payload.data(), sizeof d);
          seen.push_back(std::string("d")
                             .append(std::to_string(d.vertexCount))
                             .append(p.tag ? "#" : "")
                             .append(p.tag ? p.tag->message() : ""));
        }
      });
    }
    for (const FrameBucketView& b : frame.buckets) {
      for (uint32_t block = 0; block < b.stream->keyBlockCount(); ++block) {
        for (uint32_t i = 0; i < b.stream->keyBlockFill(block); ++i) {
          FrameView::forEachInChain(*b.stream, b.stream->keyBlock(block)[i].packet,
                                    [&](const PacketView&) { ++keyEntryPackets; });
        }
      }
    }
  }
  std::vector<std::string> seen;
  size_t keyEntryPackets = 0;
};

TEST(Renderer, MaterialBinderPassesArePacketsInTheKeysChain) {
  NullDevice device;
  Renderer renderer(device);
  TwoPassBinder binder;
  ChainObserver observer;
  const ObserverRegistration registration = renderer.addObserver(observer);
  auto& bucket = renderer.createBucket<DrawKey>("materials");
  bucket.setMaterialBinder(&binder);
  auto& two = bucket.add<cmd::Draw>(DrawKey::draw(0, 0, Translucency::Opaque, {2, 0}, 0));
  two.vertexCount = 2;
  REEL_TAG(bucket, &two, "two");
  bucket.append<cmd::Draw>(&two).vertexCount = 22;
  bucket.add<cmd::Draw>(DrawKey::draw(0, 0, Translucency::Opaque, {1, 0}, 0)).vertexCount = 1;
  bucket.add<cmd::Draw>(DrawKey::draw(0, 0, Translucency::Opaque, {3, 0}, 0)).vertexCount = 3;  // unknown
  bucket.add<cmd::Draw>(DrawKey::command(0, 0, Translucency::Opaque, 0)).vertexCount = 9;       // no material
  renderer.kick();
  renderer.flushAndWait();
  EXPECT_EQ(binder.bound, (std::vector<uint32_t>{10, 11, 20, 21, 30})) << "in sorted order, passes 0 and 1";
  const std::vector<std::string> expected{"v10", "d1",  "v11",    "d1",  "v20", "d2#two",
                                          "d22", "v21", "d2#two", "d22", "d3",  "d9"};
  EXPECT_EQ(passCalls(device, 0), expected);
  EXPECT_EQ(observer.seen, expected) << "observers see the passes as packets";
  EXPECT_EQ(observer.keyEntryPackets, expected.size()) << "and so do the keys' entries in the stream";
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
}

TEST(Renderer, RetainedBucketKeepsTheBinderPassesOfItsRecording) {
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 3});
  TwoPassBinder binder;
  auto& bucket = renderer.createBucket<DrawKey>("hud");
  bucket.setMaterialBinder(&binder);
  bucket.add<cmd::Draw>(DrawKey::draw(0, 0, Translucency::Opaque, {1, 0}, 0)).vertexCount = 1;
  bucket.setRetained(true);
  for (int f = 0; f < 4; ++f) renderer.kick();
  renderer.flushAndWait();
  EXPECT_EQ(binder.bound, (std::vector<uint32_t>{10, 11})) << "expanded once, with the recording";
  for (uint64_t f = 0; f < 4; ++f) {
    EXPECT_EQ(passCalls(device, f), (std::vector<std::string>{"v10", "d1", "v11", "d1"})) << "frame " << f;
  }
  // A new recording is expanded again, with the binder set when it is handed over.
  bucket.setRetained(false);
  bucket.setMaterialBinder(nullptr);
  bucket.add<cmd::Draw>(DrawKey::draw(0, 0, Translucency::Opaque, {1, 0}, 0)).vertexCount = 5;
  renderer.kick();
  renderer.flushAndWait();
  EXPECT_EQ(passCalls(device, 4), (std::vector<std::string>{"d5"}));
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
}

TEST(Renderer, RecordingFromSeveralThreadsReachesTheDeviceWhole) {
  NullDevice device(/*recordCalls=*/true);
  Renderer renderer(device, {.framesInFlight = 2});
  auto& bucket = renderer.createBucket<DrawKey>("mt");
  constexpr uint32_t kThreads = 3, kPerThread = 2000, kFrames = 4;
  for (uint32_t f = 0; f < kFrames; ++f) {
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (uint32_t i = 0; i < kPerThread; ++i) {
          const uint32_t id = t * kPerThread + i;
          bucket.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {id % 64, 0}, id)).vertexCount = id;
        }
      });
    }
    for (auto& th : threads) th.join();
    renderer.kick();
  }
  renderer.flushAndWait();
  for (uint32_t f = 0; f < kFrames; ++f) {
    const auto calls = commandsOfFrame(device, f);
    ASSERT_EQ(calls.size(), kThreads * kPerThread);
    uint64_t previous = 0;
    for (const auto* call : calls) {
      const uint32_t id = call->as<cmd::Draw>().vertexCount;
      const uint64_t key = DrawKey::draw(0, 1, Translucency::Opaque, {id % 64, 0}, id).bits;
      ASSERT_GE(key, previous);
      previous = key;
    }
  }
}

}  // namespace
}  // namespace reel
