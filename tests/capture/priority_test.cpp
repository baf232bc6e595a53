// The capture's own threads (writer, encoders, compressors) run at CaptureOptions::threadPriority, and
// the threads of the app (here: the test's and the renderer's) keep theirs; with normalWhenBehind they
// run at normal priority while the capture is behind.

#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

// Names of this process's threads under SCHED_IDLE, sorted, by /proc/self/task.
std::vector<std::string> idleThreadNames() {
  std::vector<std::string> names;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return {"/proc/self/task unreadable"};
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    if (sched_getscheduler(static_cast<pid_t>(std::stoi(entry->d_name))) != SCHED_IDLE) continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    names.push_back(name);
  }
  closedir(tasks);
  std::sort(names.begin(), names.end());
  return names;
}
int idleThreads() {
  return static_cast<int>(idleThreadNames().size());
}

// A capture of 2 encode and 3 compression threads (and its writer) at `priority`, four frames in: the
// SCHED_IDLE threads the process has then, after it, and its summary line. Each thread names itself and
// sets its priority as it starts (and starts with its maker's name and policy): the threads are waited
// for, up to 20 s, until those under SCHED_IDLE are the ones before and `expectIdle`.
struct Observed {
  int before = 0, during = 0, after = 0;
  std::vector<std::string> idleNames;  // during, less those before
  std::string summary;
};
Observed captureAt(ThreadPriority priority, std::vector<std::string> expectIdle) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  Observed seen;
  const std::vector<std::string> before = idleThreadNames();
  seen.before = static_cast<int>(before.size());
  capture::CaptureOptions o;
  o.path = dir.path("priority.reel");
  o.handleSignals = false;
  o.encodeThreads = 2;
  o.compression.threads = 3;
  o.threadPriority = priority;
  o.normalWhenBehind = false;  // the given priority throughout (the adaptive test is below)
  o.log = [&](std::string_view line) { seen.summary = line; };
  auto capture = capture::Capture::start(renderer, o);
  EXPECT_TRUE(capture) << capture.error().message;
  if (!capture) return seen;
  for (int f = 0; f < 4; ++f) scene.frame();
  renderer.flushAndWait();
  std::vector<std::string> expected = before;
  expected.insert(expected.end(), expectIdle.begin(), expectIdle.end());
  std::sort(expected.begin(), expected.end());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::vector<std::string> during = idleThreadNames();
  while (during != expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    during = idleThreadNames();
  }
  seen.during = static_cast<int>(during.size());
  for (const std::string& name : during) {
    if (std::find(before.begin(), before.end(), name) == before.end()) seen.idleNames.push_back(name);
  }
  EXPECT_NE(sched_getscheduler(0), SCHED_IDLE) << "the thread that started the capture keeps its policy";
  EXPECT_TRUE((*capture)->finish());
  capture->reset();
  seen.after = idleThreads();
  return seen;
}

TEST(CapturePriority, TheCaptureThreadsAndOnlyThoseRunAtTheGivenPriority) {
  // Named, so that a profile of the app tells them apart from its own threads.
  const std::vector<std::string> named = {"reel-cap-encode", "reel-cap-encode", "reel-cap-writer",
                                          "reel-compress",   "reel-compress",   "reel-compress"};
  const Observed seen = captureAt(ThreadPriority::Idle, named);
  EXPECT_EQ(seen.during, seen.before + 1 + 2 + 3) << "the writer, 2 encoders and 3 compressors";
  EXPECT_EQ(seen.idleNames, named);
  EXPECT_EQ(seen.after, seen.before) << "the capture's threads are gone, nobody else changed";
  EXPECT_NE(seen.summary.find("at idle priority"), std::string::npos) << seen.summary;
}

TEST(CapturePriority, NormalLeavesEveryThreadAsItWas) {
  const Observed seen = captureAt(ThreadPriority::Normal, {});
  EXPECT_EQ(seen.during, seen.before);
  EXPECT_NE(seen.summary.find("at normal priority"), std::string::npos) << seen.summary;
}

// How many of the capture's threads (named reel-cap-* and reel-compress) are under SCHED_IDLE, and how
// many are not.
struct Policies {
  int idle = 0, other = 0;
  bool operator==(const Policies&) const = default;
};
Policies capturePolicies() {
  Policies p;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return p;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("reel-cap", 0) != 0 && name != "reel-compress") continue;
    (sched_getscheduler(static_cast<pid_t>(std::stoi(entry->d_name))) == SCHED_IDLE ? p.idle : p.other)++;
  }
  closedir(tasks);
  return p;
}

// A file that takes no byte while `stalled` is set: a disk that stops for a while.
class StallingSink final : public trace::FileSink {
 public:
  StallingSink(std::unique_ptr<trace::FileSink> file, const std::atomic<bool>& stalled)
      : file_(std::move(file)), stalled_(stalled) {}
  Written write(const void* data, size_t size) override {
    while (stalled_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return file_->write(data, size);
  }
  int sync() override { return file_->sync(); }
  int close() override { return file_->close(); }

 private:
  std::unique_ptr<trace::FileSink> file_;
  const std::atomic<bool>& stalled_;
};

// Kicks a frame every few milliseconds until the capture's threads show `want`, for up to 20 s.
bool kickUntil(Scene& scene, Renderer& renderer, Policies want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (capturePolicies() == want) return true;
    scene.frame();
    renderer.flushAndWait();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return capturePolicies() == want;
}

TEST(CapturePriority, AdaptiveRunsIdleUntilBehindAndIdleAgainOnceCaughtUp) {
  TempDir dir;
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer);
  std::atomic<bool> stalled{false};
  capture::CaptureOptions o;
  o.path = dir.path("adaptive.reel");
  o.handleSignals = false;
  o.encodeThreads = 2;
  o.compression.threads = 2;
  o.compression.maxFramesPerChunk = 1;
  o.compression.maxPendingBytes =
      1;  // a chunk waits while one is being written: a stalled file stalls the writer
  o.whenBehind = capture::WhenBehind::DropFrames;  // the render thread never waits: the test keeps kicking
  o.threadPriority = ThreadPriority::Idle;
  o.normalWhenBehind = true;
  std::string summary;
  o.log = [&](std::string_view line) { summary = line; };
  o.createFile = [&](const std::string& p) -> Result<std::unique_ptr<trace::FileSink>> {
    auto file = trace::createFileSink(p);
    if (!file) return file.error();
    return std::unique_ptr<trace::FileSink>(std::make_unique<StallingSink>(std::move(*file), stalled));
  };
  auto capture = capture::Capture::start(renderer, o);
  ASSERT_TRUE(capture) << capture.error().message;
  // Keeping up: the writer, 2 encoders and 2 compressors all idle.
  EXPECT_TRUE(kickUntil(scene, renderer, {.idle = 5, .other = 0})) << capturePolicies().idle;
  EXPECT_EQ((*capture)->stats().priorityRaises, 0u);
  // The file stalls: frames pile up between the renderer and the file, and the threads run at normal
  // priority (with the frames the encoders cannot keep dropped, not waited for).
  stalled = true;
  EXPECT_TRUE(kickUntil(scene, renderer, {.idle = 0, .other = 5})) << capturePolicies().other;
  EXPECT_GE((*capture)->stats().priorityRaises, 1u);
  // The file takes bytes again: once the capture has caught up, idle again.
  stalled = false;
  EXPECT_TRUE(kickUntil(scene, renderer, {.idle = 5, .other = 0})) << capturePolicies().idle;
  EXPECT_NE(sched_getscheduler(0), SCHED_IDLE) << "the thread that started the capture keeps its policy";
  // finish(): the app waits for the capture now, which gets normal priority for what is left.
  const uint64_t raises = (*capture)->stats().priorityRaises;
  ASSERT_TRUE((*capture)->finish());
  EXPECT_EQ((*capture)->stats().priorityRaises, raises + 1);
  EXPECT_NE(summary.find("idle priority, normal while behind"), std::string::npos) << summary;
}

}  // namespace
}  // namespace reel::testing
