// The renderer times its own phases (frame_timing.h) and hands every observer each frame's timing.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "reel/runtime/cpu_time.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"

namespace reel {
namespace {

using std::chrono::milliseconds;

// Sleeps in onFrameStart (wall time, no CPU) and burns CPU in onFrame: both belong to the Observers phase.
class SlowObserver final : public FrameObserver {
 public:
  void onFrameStart(const FrameStart&) override { std::this_thread::sleep_for(milliseconds(30)); }
  void onFrame(const FrameView&) override {
    const auto until = threadCpuTime() + milliseconds(15);
    while (threadCpuTime() < until) {
    }
  }
  void onFrameEnd(const FrameTiming& timing) override { timings.push_back(timing); }
  std::vector<FrameTiming> timings;
};

TEST(FrameTiming, EveryObserverGetsEachFramesPhasesInOrder) {
  NullDevice device(/*recordCalls=*/false);
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("b");
  SlowObserver observer;
  const ObserverRegistration registration = renderer.addObserver(observer);
  for (uint32_t frame = 0; frame < 3; ++frame) {
    for (uint32_t i = 0; i <= frame; ++i) bucket.add<cmd::Draw>(i).vertexCount = 3;
    renderer.kick();
  }
  renderer.flushAndWait();

  ASSERT_EQ(observer.timings.size(), 3u);
  for (uint64_t frame = 0; frame < 3; ++frame) {
    const FrameTiming& t = observer.timings[frame];
    EXPECT_EQ(t.frame, frame);
    EXPECT_EQ(t.packets, frame + 1) << "the sorted packets translated";
    EXPECT_GE(t.wallOf(FramePhase::Observers), milliseconds(45)) << "onFrameStart's sleep and onFrame's work";
    EXPECT_GE(t.cpuOf(FramePhase::Observers), milliseconds(15)) << "onFrame's CPU work";
    EXPECT_LT(t.cpuOf(FramePhase::Observers), t.wallOf(FramePhase::Observers)) << "a sleep costs no CPU";
    EXPECT_LT(t.cpuOf(FramePhase::Translate), milliseconds(15)) << "the observers' time is not translation's";
    EXPECT_EQ(t.totalWall(), [&] {
      std::chrono::nanoseconds sum{0};
      for (size_t p = 0; p < kFramePhaseCount; ++p) sum += t.wall[p];
      return sum;
    }());
  }
  EXPECT_STREQ(framePhaseName(FramePhase::Translate), "translate");
}

}  // namespace
}  // namespace reel
