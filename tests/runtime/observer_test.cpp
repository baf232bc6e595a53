// The renderer's seams: several frame observers at once (ObserverRegistration), frames held by observers
// through FrameLease, and the device's owner thread (debug builds assert a call from another thread).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"

namespace reel {
namespace {

using namespace std::chrono_literals;

// The frame numbers and sorted-order hashes an observer saw, and whether it was called after its owner
// said it must not be any more.
class Recorder final : public FrameObserver {
 public:
  void onFrameStart(const FrameStart& start) override {
    if (gone.load()) ++callsAfterGone;
    starts.push_back(start.frame);
  }
  void onFrame(const FrameView& frame) override {
    if (gone.load()) ++callsAfterGone;
    frames.push_back(frame.frame);
    hashes.push_back(frame.sortedOrderHash);
  }
  std::vector<uint64_t> starts, frames, hashes;  // render thread; read after flushAndWait
  std::atomic<bool> gone{false};
  std::atomic<int> callsAfterGone{0};
};

// Holds the render thread inside onFrame until open() (frames pile up in flight behind it).
class Gate final : public FrameObserver {
 public:
  void onFrame(const FrameView&) override {
    std::unique_lock lock(mutex_);
    opened_.wait(lock, [&] { return open_; });
  }
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

void recordDraws(CommandBucket<uint32_t>& bucket, uint32_t count, uint32_t vertexCount) {
  for (uint32_t k = 0; k < count; ++k) bucket.add<cmd::Draw>(count - k).vertexCount = vertexCount;
}

TEST(RendererObservers, TwoObserversBothSeeEveryFrameAndNeitherReplacesTheOther) {
  NullDevice device;
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("b");
  Recorder first, second;
  const ObserverRegistration firstRegistration = renderer.addObserver(first);
  recordDraws(bucket, 2, 1);
  renderer.kick();  // frame 0: the first observer only
  const ObserverRegistration secondRegistration = renderer.addObserver(second);
  EXPECT_EQ(renderer.observerCount(), 2u);
  for (uint32_t f = 1; f <= 3; ++f) {
    recordDraws(bucket, f, f);
    renderer.kick();
  }
  renderer.flushAndWait();
  EXPECT_EQ(first.frames, (std::vector<uint64_t>{0, 1, 2, 3})) << "adding a second observer kept the first";
  EXPECT_EQ(first.starts, first.frames);
  EXPECT_EQ(second.frames, (std::vector<uint64_t>{1, 2, 3})) << "from the first frame kicked after adding it";
  EXPECT_EQ(second.starts, second.frames);
  EXPECT_EQ(std::vector<uint64_t>(first.hashes.begin() + 1, first.hashes.end()), second.hashes)
      << "both see the same sorted frames";
}

TEST(RendererObservers, EndingARegistrationWaitsForTheFramesInFlightThatCallIt) {
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 4});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  Gate gate;
  Recorder recorder;
  const ObserverRegistration gateRegistration = renderer.addObserver(gate);
  ObserverRegistration registration = renderer.addObserver(recorder);
  for (uint32_t f = 0; f < 3; ++f) {
    recordDraws(bucket, 1, f);
    renderer.kick();  // all three wait behind the gate, in flight
  }
  std::thread opener([&] {
    std::this_thread::sleep_for(50ms);  // let reset() start waiting first
    gate.open();
  });
  registration.reset();
  // reset() returned: the three frames kicked before it called the recorder, and nothing will again.
  EXPECT_EQ(recorder.frames.size(), 3u) << "reset() returned before the frames in flight were done";
  recorder.gone = true;
  EXPECT_EQ(renderer.observerCount(), 1u);
  for (uint32_t f = 0; f < 3; ++f) renderer.kick();
  renderer.flushAndWait();
  opener.join();
  EXPECT_EQ(recorder.frames, (std::vector<uint64_t>{0, 1, 2})) << "the frames kicked while it was registered";
  EXPECT_EQ(recorder.callsAfterGone.load(), 0) << "a removed observer was called";
}

// Leases every frame's streams: records which bucket and request stream each frame used, and keeps the
// lease of chosen frames for the test to end.
class Leaser final : public FrameObserver {
 public:
  explicit Leaser(std::set<uint64_t> keep) : keep_(std::move(keep)) {}
  void onFrame(const FrameView& frame) override {
    std::lock_guard lock(mutex);
    bucketStreams.push_back(frame.buckets[0].stream);
    requestStreams.push_back(frame.requests);
    if (keep_.count(frame.frame)) kept.push_back(frame.lease());
    seen.notify_all();
  }
  std::mutex mutex;
  std::condition_variable seen;
  std::vector<const BucketStream*> bucketStreams;
  std::vector<const RequestStream*> requestStreams;
  std::vector<FrameLease> kept;

 private:
  std::set<uint64_t> keep_;
};

std::vector<uint32_t> vertexCounts(const BucketStream& stream) {
  std::vector<uint32_t> out;
  for (uint32_t block = 0; block < stream.keyBlockCount(); ++block) {
    for (uint32_t i = 0; i < stream.keyBlockFill(block); ++i) {
      FrameView::forEachInChain(stream, stream.keyBlock(block)[i].packet, [&](const PacketView& p) {
        cmd::Draw draw;
        std::memcpy(&draw, p.payload.data(), sizeof draw);
        out.push_back(draw.vertexCount);
      });
    }
  }
  return out;
}

TEST(RendererObservers, ALeasedFramesStreamsAreNotRecordedIntoUntilTheLeaseEnds) {
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 2});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  Leaser leaser({0});
  const ObserverRegistration registration = renderer.addObserver(leaser);
  recordDraws(bucket, 3, 111);
  renderer.resources().createSampler({});
  renderer.kick();  // frame 0: leased
  for (uint32_t f = 1; f <= 8; ++f) {
    recordDraws(bucket, 2, f);
    renderer.resources().createSampler({});
    renderer.kick();
  }
  renderer.flushAndWait();

  ASSERT_EQ(leaser.kept.size(), 1u);
  FrameLease lease = std::move(leaser.kept[0]);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease.frame(), 0u);
  const BucketStream* leasedStream = lease.buckets()[0].stream;
  const RequestStream* leasedRequests = &lease.requests();
  EXPECT_EQ(leasedStream, leaser.bucketStreams[0]);
  for (uint64_t f = 1; f <= 8; ++f) {
    EXPECT_NE(leaser.bucketStreams[f], leasedStream) << "frame " << f << " recorded into the leased stream";
    EXPECT_NE(leaser.requestStreams[f], leasedRequests) << "frame " << f << " reused the leased requests";
  }
  EXPECT_EQ(vertexCounts(*leasedStream), (std::vector<uint32_t>{111, 111, 111})) << "frame 0 as recorded";
  EXPECT_EQ(lease.requests().requests.size(), 1u);

  lease.reset();  // the streams go back to the pools
  EXPECT_FALSE(lease);
  for (uint32_t f = 9; f <= 16; ++f) {
    recordDraws(bucket, 1, f);
    renderer.kick();
  }
  renderer.flushAndWait();
  const auto later =
      std::vector<const BucketStream*>(leaser.bucketStreams.begin() + 9, leaser.bucketStreams.end());
  EXPECT_NE(std::find(later.begin(), later.end(), leasedStream), later.end())
      << "the stream is recorded into again once the lease ended";
  EXPECT_EQ(renderer.stats().leaseWaits, 0u) << "one leased frame is within the bound";
}

TEST(RendererObservers, ObserversTogetherHoldAtMostTheBoundAndTheRenderThreadWaitsForThem) {
  constexpr uint64_t kBound = kMaxObserverRetainedFrames;
  constexpr uint64_t kFrames = kBound + 6;
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 2});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  // Two observers, each within the bound on its own, one frame over it together: the first keeps frames
  // 0 .. kBound-1, the second frame kBound.
  std::set<uint64_t> firstKeeps;
  for (uint64_t f = 0; f < kBound; ++f) firstKeeps.insert(f);
  Leaser first(firstKeeps), second({kBound});
  const ObserverRegistration firstRegistration = renderer.addObserver(first);
  const ObserverRegistration secondRegistration = renderer.addObserver(second);
  std::atomic<uint64_t> processedWhileHeld{UINT64_MAX};
  std::thread releaser([&] {
    // The render thread waits at the end of frame kBound until the first observer gives frames back.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (renderer.stats().leaseWaits == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    processedWhileHeld = renderer.stats().framesProcessed;
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(renderer.stats().framesProcessed, processedWhileHeld.load())
        << "frame kBound ended over the bound";
    std::lock_guard lock(first.mutex);
    first.kept.clear();
  });
  for (uint32_t f = 0; f < kFrames; ++f) {
    recordDraws(bucket, 2, f);
    renderer.kick();  // blocks while frame kBound waits: the ring is full
  }
  renderer.flushAndWait();
  releaser.join();
  EXPECT_EQ(processedWhileHeld.load(), kBound) << "frames before kBound done, frame kBound held at its end";
  EXPECT_EQ(renderer.stats().leaseWaits, 1u);
  EXPECT_EQ(renderer.stats().framesProcessed, kFrames);
  EXPECT_EQ(first.bucketStreams.size(), kFrames);
  // The second observer still holds frame kBound's lease: its streams stayed out of the frames after it.
  ASSERT_EQ(second.kept.size(), 1u);
  for (uint64_t f = kBound + 1; f < kFrames; ++f)
    EXPECT_NE(second.bucketStreams[f], second.bucketStreams[kBound]) << f;
  second.kept.clear();
}

TEST(RendererObservers, AFrameLeasedByTwoObserversIsGivenBackByTheLastLease) {
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 1});
  auto& bucket = renderer.createBucket<uint32_t>("b");
  Leaser first({0}), second({0});
  const ObserverRegistration firstRegistration = renderer.addObserver(first);
  const ObserverRegistration secondRegistration = renderer.addObserver(second);
  recordDraws(bucket, 1, 7);
  renderer.kick();
  renderer.flushAndWait();
  const BucketStream* leased = first.bucketStreams[0];
  ASSERT_EQ(first.kept.size(), 1u);
  ASSERT_EQ(second.kept.size(), 1u);
  first.kept.clear();  // the second lease still holds the frame
  for (uint32_t f = 1; f <= 6; ++f) {
    recordDraws(bucket, 1, f);
    renderer.kick();
  }
  renderer.flushAndWait();
  for (uint64_t f = 1; f <= 6; ++f) EXPECT_NE(first.bucketStreams[f], leased) << f;
  EXPECT_EQ(vertexCounts(*second.kept[0].buckets()[0].stream), std::vector<uint32_t>{7});
  second.kept.clear();
}

// ---- the device's owner thread ----

TEST(DeviceOwnerThread, TheRendererOwnsTheDeviceAndLendsItInsideWithIdleDevice) {
  NullDevice device;
  EXPECT_EQ(device.ownerThread(), std::thread::id()) << "no renderer: any thread may call";
  cmd::Draw draw{};
  dispatchPacket(device, CommandType::Draw, &draw, {});  // the main thread, no renderer: accepted
  {
    Renderer renderer(device);
    EXPECT_NE(device.ownerThread(), std::thread::id());
    EXPECT_NE(device.ownerThread(), std::this_thread::get_id()) << "the render thread owns it";
    const std::thread::id renderThread = device.ownerThread();
    const std::thread::id during = renderer.withIdleDevice([&](Device& d) {
      dispatchPacket(d, CommandType::Draw, &draw, {});  // lent to this thread: accepted
      return d.ownerThread();
    });
    EXPECT_EQ(during, std::this_thread::get_id());
    EXPECT_EQ(device.ownerThread(), renderThread) << "given back to the render thread";
    renderer.kick();
  }
  EXPECT_EQ(device.ownerThread(), std::thread::id()) << "a destroyed renderer leaves the device to anyone";
  dispatchPacket(device, CommandType::Draw, &draw, {});
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
}

TEST(DeviceOwnerThreadDeathTest, CallingIntoTheDeviceFromAnotherThreadThanTheRenderThreadAsserts) {
#ifdef NDEBUG
  GTEST_SKIP() << "the device's thread check is compiled into debug builds only (NDEBUG is defined here)";
#else
  // The child re-runs this test alone: no render thread of the parent is forked along.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto fromTheKickThread = [] {
    NullDevice device;
    Renderer renderer(device);
    cmd::Draw draw{};
    dispatchPacket(device, CommandType::Draw, &draw, {});
  };
  EXPECT_DEATH(fromTheKickThread(), "dispatchPacket on device 'null' from a thread that does not own it");
  const auto afterWithIdleDevice = [] {
    NullDevice device;
    Renderer renderer(device);
    renderer.withIdleDevice([](Device&) {});
    cmd::Draw draw{};
    dispatchPacket(device, CommandType::Draw, &draw, {});
  };
  EXPECT_DEATH(afterWithIdleDevice(), "from a thread that does not own it");
  const auto twoRenderersOnOneDevice = [] {
    NullDevice device;
    Renderer first(device);
    Renderer second(device);  // takes the device: the first one's render thread no longer owns it
    first.kick();
    first.flushAndWait();
  };
  EXPECT_DEATH(twoRenderersOnOneDevice(),
               "Device::beginFrame on device 'null' from a thread that does not own it");
#endif
}

}  // namespace
}  // namespace reel
