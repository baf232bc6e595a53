// The capture's own threads (writer, encoders, compressors) run at CaptureOptions::threadPriority, and
// the threads of the app (here: the test's and the renderer's) keep theirs.

#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <chrono>
#include <string>
#include <thread>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

// Threads of this process under SCHED_IDLE, by /proc/self/task.
int idleThreads() {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return -1;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    if (sched_getscheduler(static_cast<pid_t>(std::stoi(entry->d_name))) == SCHED_IDLE) ++count;
  }
  closedir(tasks);
  return count;
}

TEST(CapturePriority, TheCaptureThreadsAndOnlyThoseRunAtTheGivenPriority) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  const int before = idleThreads();
  capture::CaptureOptions o;
  o.path = dir.path("idle.reel");
  o.handleSignals = false;
  o.encodeThreads = 2;
  o.compression.threads = 3;
  o.threadPriority = ThreadPriority::Idle;
  std::string summary;
  o.log = [&](std::string_view line) { summary = line; };
  auto capture = capture::Capture::start(renderer, o);
  ASSERT_TRUE(capture) << capture.error().message;
  for (int f = 0; f < 4; ++f) scene.frame();
  renderer.flushAndWait();
  // Each thread sets its own priority as it starts: wait for all six (writer, 2 encoders, 3 compressors).
  const int expected = before + 1 + 2 + 3;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (idleThreads() < expected && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(idleThreads(), expected);
  EXPECT_NE(sched_getscheduler(0), SCHED_IDLE);
  ASSERT_TRUE((*capture)->finish());
  EXPECT_NE(summary.find("at idle priority"), std::string::npos) << summary;
  capture->reset();
  EXPECT_EQ(idleThreads(), before) << "the capture's threads are gone, nobody else changed";
}

TEST(CapturePriority, NormalLeavesEveryThreadAsItWas) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  const int before = idleThreads();
  capture::CaptureOptions o;
  o.path = dir.path("normal.reel");
  o.handleSignals = false;
  o.threadPriority = ThreadPriority::Normal;
  std::string summary;
  o.log = [&](std::string_view line) { summary = line; };
  auto capture = capture::Capture::start(renderer, o);
  ASSERT_TRUE(capture) << capture.error().message;
  for (int f = 0; f < 4; ++f) scene.frame();
  renderer.flushAndWait();
  EXPECT_EQ(idleThreads(), before);
  ASSERT_TRUE((*capture)->finish());
  EXPECT_NE(summary.find("at normal priority"), std::string::npos) << summary;
}

}  // namespace
}  // namespace reel::testing
