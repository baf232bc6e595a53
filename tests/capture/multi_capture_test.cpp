// Several captures on one renderer: each is an observer of its own, gets every frame of its range and
// writes its own trace; finish() on any of them returns, and a finished or destroyed capture is off the
// renderer's observers.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <thread>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

using namespace std::chrono_literals;
using capture::Capture;
using capture::CaptureOptions;
using trace::TraceReader;

CaptureOptions options(const std::string& path, uint64_t first = capture::kNextFrame,
                       uint64_t last = capture::kNoLastFrame) {
  CaptureOptions o;
  o.path = path;
  o.firstFrame = first;
  o.lastFrame = last;
  o.appName = "multi_capture_test";
  o.compression.maxFramesPerChunk = 2;
  o.handleSignals = false;
  return o;
}

std::unique_ptr<Capture> start(Renderer& renderer, CaptureOptions o) {
  auto capture = Capture::start(renderer, std::move(o));
  EXPECT_TRUE(capture) << capture.error().message;
  return capture ? std::move(capture.value()) : nullptr;
}

// finish() must return. One that hangs cannot be taken back (a thread is stuck in it), so the test
// process ends here with a message instead of hanging until ctest's timeout.
Result<void> finishWithin(Capture& capture, std::chrono::seconds limit = 30s) {
  auto done = std::async(std::launch::async, [&] { return capture.finish(); });
  if (done.wait_for(limit) == std::future_status::timeout) {
    std::fprintf(stderr, "Capture::finish() of %s did not return within %lld s\n", capture.path().c_str(),
                 static_cast<long long>(limit.count()));
    std::abort();
  }
  return done.get();
}

TraceReader open(const std::string& path) {
  auto reader = TraceReader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  return std::move(reader.value());
}

std::vector<uint64_t> frameNumbers(const TraceReader& reader) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < reader.frameCount(); ++i) out.push_back(reader.frameNumber(i));
  return out;
}

std::string endReason(TraceReader& reader) {
  auto end = reader.readCaptureEnd();
  return end && end->has_value() ? end->value().reason : "(no CaptureEnd)";
}

// Once closed, holds the render thread inside onFrame until open(): frames stay in flight behind it.
class Gate final : public FrameObserver {
 public:
  void onFrame(const FrameView&) override {
    std::unique_lock lock(mutex_);
    opened_.wait(lock, [&] { return open_; });
  }
  void close() {
    std::lock_guard lock(mutex_);
    open_ = false;
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
  bool open_ = true;
};

TEST(MultiCapture, TwoCapturesAtOnceEachGetEveryFrameOfTheirRange) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  auto whole = start(renderer, options(dir.path("whole.reel")));
  auto middle = start(renderer, options(dir.path("middle.reel"), 2, 4));
  ASSERT_TRUE(whole && middle);
  Witness witness;
  witness.snapshotAt(2);
  const ObserverRegistration watching = renderer.addObserver(witness);
  EXPECT_EQ(renderer.observerCount(), 3u);
  for (int f = 0; f < 7; ++f) scene.frame();
  ASSERT_TRUE(finishWithin(*whole));
  ASSERT_TRUE(finishWithin(*middle));
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  EXPECT_EQ(whole->stats().framesWritten, 7u);
  EXPECT_EQ(middle->stats().framesWritten, 3u);

  TraceReader wholeReader = open(dir.path("whole.reel"));
  TraceReader middleReader = open(dir.path("middle.reel"));
  ASSERT_EQ(frameNumbers(wholeReader), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(frameNumbers(middleReader), (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_TRUE(wholeReader.complete() && middleReader.complete());
  EXPECT_EQ(endReason(middleReader), "frame range complete");
  for (size_t i = 0; i < 7; ++i) {
    auto frame = wholeReader.readFrame(i);
    ASSERT_TRUE(frame) << frame.error().message;
    expectFrameEquals(witness.frames().at(i), frame.value());
  }
  for (size_t i = 0; i < 3; ++i) {
    auto frame = middleReader.readFrame(i);
    auto same = wholeReader.readFrame(2 + i);
    ASSERT_TRUE(frame && same);
    expectFrameEquals(witness.frames().at(2 + i), frame.value());
    expectFrameEquals(same.value(), frame.value());
  }
  // The capture that starts at frame 2 carries what was alive then, as a capture started alone does.
  auto resources = middleReader.readResources();
  ASSERT_TRUE(resources) << resources.error().message;
  size_t count = 0;
  for (const auto& r : resources.value()) count += r.resources.size();
  EXPECT_EQ(count, witness.snapshot().size());
  EXPECT_GT(count, 0u);
}

TEST(MultiCapture, FinishingTheFirstCaptureAfterASecondStartedReturns) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  auto first = start(renderer, options(dir.path("first.reel")));
  ASSERT_TRUE(first);
  for (int f = 0; f < 2; ++f) scene.frame();
  auto second = start(renderer, options(dir.path("second.reel")));
  ASSERT_TRUE(second);
  for (int f = 0; f < 2; ++f) scene.frame();
  ASSERT_TRUE(finishWithin(*first)) << "the second capture did not take the first one's place";
  EXPECT_EQ(renderer.observerCount(), 1u) << "the finished capture left the renderer";
  for (int f = 0; f < 2; ++f) scene.frame();
  ASSERT_TRUE(finishWithin(*second));
  EXPECT_EQ(renderer.observerCount(), 0u);

  TraceReader firstReader = open(dir.path("first.reel"));
  TraceReader secondReader = open(dir.path("second.reel"));
  EXPECT_EQ(frameNumbers(firstReader), (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(frameNumbers(secondReader), (std::vector<uint64_t>{2, 3, 4, 5}));
  EXPECT_EQ(endReason(firstReader), "stopped");
  EXPECT_TRUE(firstReader.complete() && secondReader.complete());
}

// Under ASan this also shows that the destroyed capture is not called: frames were in flight when it
// went, and a call would read freed memory.
TEST(MultiCapture, AFinishedOrDestroyedCaptureIsNeverCalledAgain) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 4});
  Scene scene(renderer);
  Gate gate;
  const ObserverRegistration gateRegistration = renderer.addObserver(gate);
  auto kept = start(renderer, options(dir.path("kept.reel")));
  auto destroyed = start(renderer, options(dir.path("destroyed.reel")));
  ASSERT_TRUE(kept && destroyed);
  for (int f = 0; f < 2; ++f) scene.frame();
  // Frames 2-4 wait behind the gate, in flight (the scene flushes only in frames 4k + 1).
  gate.close();
  for (int f = 2; f < 5; ++f) scene.frame();
  std::thread opener([&] {
    std::this_thread::sleep_for(50ms);  // the destructor below starts waiting for them first
    gate.open();
  });
  destroyed.reset();  // returns once frames 2-4 reached it; the trace is finished with them
  opener.join();
  EXPECT_EQ(renderer.observerCount(), 2u) << "the gate and the kept capture";
  for (int f = 5; f < 7; ++f) scene.frame();
  ASSERT_TRUE(finishWithin(*kept));
  EXPECT_EQ(renderer.observerCount(), 1u) << "the finished capture left the renderer";
  const uint64_t captured = kept->stats().framesCaptured;
  for (int f = 7; f < 10; ++f) scene.frame();
  renderer.flushAndWait();
  EXPECT_EQ(kept->stats().framesCaptured, captured);
  EXPECT_EQ(captured, 7u);

  TraceReader destroyedReader = open(dir.path("destroyed.reel"));
  EXPECT_EQ(frameNumbers(destroyedReader), (std::vector<uint64_t>{0, 1, 2, 3, 4}))
      << "every frame kicked before it was destroyed";
  EXPECT_EQ(endReason(destroyedReader), "capture destroyed");
  TraceReader keptReader = open(dir.path("kept.reel"));
  EXPECT_EQ(frameNumbers(keptReader), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace reel::testing
