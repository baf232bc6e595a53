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

// A capture of 2 encode and 3 compression threads (and its writer) at `priority`, four frames in: the
// number of SCHED_IDLE threads the process has then (waited for up to `expectIdle`, since each thread
// sets its own priority as it starts), after it, and its summary line.
struct Observed {
  int before = 0, during = 0, after = 0;
  std::string summary;
};
Observed captureAt(ThreadPriority priority, int expectIdle) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  Observed seen;
  seen.before = idleThreads();
  capture::CaptureOptions o;
  o.path = dir.path("priority.reel");
  o.handleSignals = false;
  o.encodeThreads = 2;
  o.compression.threads = 3;
  o.threadPriority = priority;
  o.log = [&](std::string_view line) { seen.summary = line; };
  auto capture = capture::Capture::start(renderer, o);
  EXPECT_TRUE(capture) << capture.error().message;
  if (!capture) return seen;
  for (int f = 0; f < 4; ++f) scene.frame();
  renderer.flushAndWait();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (idleThreads() < seen.before + expectIdle && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  seen.during = idleThreads();
  EXPECT_NE(sched_getscheduler(0), SCHED_IDLE) << "the thread that started the capture keeps its policy";
  EXPECT_TRUE((*capture)->finish());
  capture->reset();
  seen.after = idleThreads();
  return seen;
}

TEST(CapturePriority, TheCaptureThreadsAndOnlyThoseRunAtTheGivenPriority) {
  const Observed seen = captureAt(ThreadPriority::Idle, 1 + 2 + 3);
  EXPECT_EQ(seen.during, seen.before + 1 + 2 + 3) << "the writer, 2 encoders and 3 compressors";
  EXPECT_EQ(seen.after, seen.before) << "the capture's threads are gone, nobody else changed";
  EXPECT_NE(seen.summary.find("at idle priority"), std::string::npos) << seen.summary;
}

TEST(CapturePriority, NormalLeavesEveryThreadAsItWas) {
  const Observed seen = captureAt(ThreadPriority::Normal, 0);
  EXPECT_EQ(seen.during, seen.before);
  EXPECT_NE(seen.summary.find("at normal priority"), std::string::npos) << seen.summary;
}

}  // namespace
}  // namespace reel::testing
