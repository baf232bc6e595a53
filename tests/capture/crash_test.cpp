// A capturing process that ends badly still leaves a trace: killed (SIGKILL) it reads to its last whole
// chunk; ended by SIGTERM, SIGINT, abort() or exit() without destroying the capture, it is complete.

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "scene.h"
#include "witness.h"

extern char** environ;

namespace reel::testing {
namespace {

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;
};

Child spawnChild(const std::string& mode, const std::string& path) {
  int pipeFds[2];
  EXPECT_EQ(::pipe(pipeFds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
  std::string program = REEL_CAPTURE_CHILD;
  char* argv[] = {program.data(), const_cast<char*>(mode.c_str()), const_cast<char*>(path.c_str()), nullptr};
  Child child;
  EXPECT_EQ(posix_spawn(&child.pid, program.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipeFds[1]);
  child.out = ::fdopen(pipeFds[0], "r");
  return child;
}

// Reads the child's "chunks N" lines until N >= chunks.
bool waitForChunks(Child& child, uint64_t chunks) {
  char line[128];
  while (std::fgets(line, sizeof line, child.out)) {
    unsigned long long n = 0;
    if (std::sscanf(line, "chunks %llu", &n) == 1 && n >= chunks) return true;
  }
  return false;
}

int waitStatus(Child& child) {
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  std::fclose(child.out);
  return status;
}

// Every frame the reader can read equals the same frame of the scene run here under a witness.
void expectFramesMatchTheScene(trace::TraceReader& reader) {
  ASSERT_GT(reader.frameCount(), 0u);
  NullDevice device(false);
  Renderer renderer(device);
  Scene scene(renderer);
  Witness witness;
  const ObserverRegistration watching = renderer.addObserver(witness);
  const uint64_t last = reader.frameNumber(reader.frameCount() - 1);
  for (uint64_t f = 0; f <= last; ++f) scene.frame();
  renderer.flushAndWait();
  for (size_t i = 0; i < reader.frameCount(); ++i) {
    auto frame = reader.readFrame(i);
    ASSERT_TRUE(frame) << frame.error().message;
    EXPECT_EQ(frame->number, i);
    expectFrameEquals(witness.frames().at(frame->number), frame.value());
  }
}

TEST(CaptureCrash, SigkillLeavesATraceReadableToItsLastWholeChunk) {
  TempDir dir;
  const std::string path = dir.path("killed.reel");
  Child child = spawnChild("kill", path);
  ASSERT_TRUE(waitForChunks(child, 3));
  ::kill(child.pid, SIGKILL);
  const int status = waitStatus(child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(reader->hasIndex());
  EXPECT_FALSE(reader->complete());
  ASSERT_FALSE(reader->warnings().empty());
  EXPECT_NE(reader->warnings()[0].find("no index"), std::string::npos) << reader->warnings()[0];
  EXPECT_GE(reader->chunks().size(), 3u);
  EXPECT_GE(reader->frameCount(), 6u) << "two frames per chunk";
  expectFramesMatchTheScene(reader.value());
}

// The loss window: a chunk closes chunkMillis after it opened even when no frame follows, so a process
// killed then keeps every frame older than that. The child's chunks close by time alone (no size or
// frame-count limit); it says when its 10 frames are on disk, and is killed at once.
TEST(CaptureCrash, SigkillAfterTheTimeLimitKeepsEveryFrameOlderThanIt) {
  TempDir dir;
  const std::string path = dir.path("timed.reel");
  Child child = spawnChild("timed", path);
  char line[128] = {};
  ASSERT_TRUE(std::fgets(line, sizeof line, child.out));
  ::kill(child.pid, SIGKILL);
  const int status = waitStatus(child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ASSERT_EQ(std::string(line), "ondisk 10\n") << "the frames never reached the file by the time limit";

  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(reader->hasIndex());
  EXPECT_FALSE(reader->complete());
  EXPECT_EQ(reader->frameCount(), 10u);
  expectFramesMatchTheScene(reader.value());
}

void expectCompleteAfter(const std::string& mode, int signal, const std::string& reason) {
  TempDir dir;
  const std::string path = dir.path(mode + ".reel");
  Child child = spawnChild(mode, path);
  if (signal == SIGTERM || signal == SIGINT) {
    ASSERT_TRUE(waitForChunks(child, 2));
    ::kill(child.pid, signal);
  }
  const int status = waitStatus(child);
  if (signal != 0) {
    ASSERT_TRUE(WIFSIGNALED(status)) << mode << ": status " << status;
    EXPECT_EQ(WTERMSIG(status), signal) << "the process still dies of its signal";
  } else {
    ASSERT_TRUE(WIFEXITED(status)) << mode << ": status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->warnings(), std::vector<std::string>{});
  EXPECT_TRUE(reader->hasIndex());
  EXPECT_TRUE(reader->complete());
  auto end = reader->readCaptureEnd();
  ASSERT_TRUE(end && end->has_value());
  EXPECT_EQ(end->value().reason, reason);
  EXPECT_EQ(end->value().frames, reader->frameCount());
  expectFramesMatchTheScene(reader.value());
}

TEST(CaptureCrash, SigtermFinishesTheTraceAndTheProcessStillDiesOfIt) {
  expectCompleteAfter("term", SIGTERM, "signal " + std::to_string(SIGTERM));
}

TEST(CaptureCrash, SigintFinishesTheTraceAndTheProcessStillDiesOfIt) {
  expectCompleteAfter("int", SIGINT, "signal " + std::to_string(SIGINT));
}

TEST(CaptureCrash, AbortFinishesTheTrace) {
  expectCompleteAfter("abort", SIGABRT, "signal " + std::to_string(SIGABRT));
}

TEST(CaptureCrash, ExitWithoutDestroyingTheCaptureFinishesTheTrace) {
  expectCompleteAfter("exit", 0, "exit");
}

TEST(CaptureCrash, AnApplicationsOwnSignalHandlerStillRunsAfterTheTraceIsFinished) {
  TempDir dir;
  const std::string path = dir.path("handler.reel");
  Child child = spawnChild("handler", path);
  ASSERT_TRUE(waitForChunks(child, 2));
  ::kill(child.pid, SIGTERM);
  char line[128] = {};
  bool handled = false;
  while (std::fgets(line, sizeof line, child.out)) handled |= std::string(line) == "handled\n";
  const int status = waitStatus(child);
  EXPECT_TRUE(handled) << "the application's handler was called";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_TRUE(reader->complete());
  auto end = reader->readCaptureEnd();
  ASSERT_TRUE(end && end->has_value());
  EXPECT_EQ(end->value().reason, "signal " + std::to_string(SIGTERM));
}

}  // namespace
}  // namespace reel::testing
