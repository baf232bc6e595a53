// A capture that cannot write tells the app (Capture::error(), CaptureOptions::onError, finish()) and
// leaves a trace that reads up to its last whole chunk. The faults are real, without root: a file size
// limit (RLIMIT_FSIZE, set in a forked child with SIGXFSZ ignored, so that write() fails with EFBIG as on a
// full disk) and a path that cannot be created.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "scene.h"

namespace reel::testing {
namespace {

namespace fs = std::filesystem;
using capture::Capture;
using capture::CaptureOptions;

constexpr uint64_t kFrames = 8;

fs::path folder() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::temp_directory_path() / ("reel_capture_failure_" + std::to_string(::getpid())) / info->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// One frame per chunk, incompressible aux data: every frame is a write of its own.
CaptureOptions options(const fs::path& path) {
  CaptureOptions o;
  o.path = path.string();
  o.handleSignals = false;
  o.lastFrame = kFrames - 1;  // the capture finishes by itself after the last frame
  o.compression.maxFramesPerChunk = 1;
  return o;
}

// Captures kFrames frames of the scene; what the app learned goes to `report`, one fact a line.
void captureScene(const fs::path& path, const fs::path& report) {
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer, {.draws = 64, .auxBytes = 256, .randomAux = true});
  std::atomic<int> calls{0};
  std::string called;
  CaptureOptions o = options(path);
  o.onError = [&](std::string_view e) {
    ++calls;
    called = std::string(e);
  };
  std::ofstream out(report);
  auto capture = Capture::start(renderer, o);
  if (!capture) {
    out << "start failed: " << capture.error().message << "\n";
    return;
  }
  for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
  renderer.flushAndWait();
  // The writer ends on its own (the range is over, or a write failed); the app asks, without finish().
  for (int i = 0; i < 1000 && !(*capture)->finished(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  out << "error: " << (*capture)->error().value_or("") << "\n";
  auto finished = (*capture)->finish();
  out << "finish: " << (finished ? std::string("ok") : finished.error().message) << "\n";
  out << "onError calls: " << calls.load() << "\n";
  out << "onError: " << called << "\n";
}

std::string line(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(key + ": ", 0) == 0) return l.substr(key.size() + 2);
  }
  return "(no " + key + " line in:\n" + text + ")";
}

TEST(CaptureFailure, AFileSizeLimitStopsTheCaptureAndTellsTheApp) {
  const fs::path dir = folder();
  // The whole trace first, to put the limit inside its third chunk.
  const fs::path whole = dir / "whole.reel";
  captureScene(whole, dir / "whole.txt");
  auto full = trace::TraceReader::open(whole.string());
  ASSERT_TRUE(full) << full.error().message;
  ASSERT_GE(full->chunks().size(), 4u);
  const trace::ChunkInfo& third = full->chunks()[2];
  const uint64_t limit = third.offset + third.compressedSize / 2;
  std::set<uint64_t> wholeFrames;  // frames whose messages all lie in the first two chunks
  for (const trace::MessageInfo& m : full->messages()) {
    if (m.kind == static_cast<uint8_t>(trace::MessageKind::Frame) && m.chunk < 2) wholeFrames.insert(m.frame);
  }

  const fs::path cut = dir / "cut.reel";
  const fs::path report = dir / "cut.txt";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // As a full disk does: write() fails (EFBIG) instead of the process being killed by SIGXFSZ.
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit r{limit, limit};
    if (::setrlimit(RLIMIT_FSIZE, &r) != 0) ::_exit(3);
    captureScene(cut, report);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  std::ifstream in(report);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  const std::string error = line(text, "error");
  EXPECT_NE(error.find(cut.string()), std::string::npos) << "names the file: " << text;
  EXPECT_NE(error.find("File too large"), std::string::npos) << text;
  EXPECT_EQ(line(text, "finish"), error) << "finish() returns the same error";
  EXPECT_EQ(line(text, "onError calls"), "1") << text;
  EXPECT_EQ(line(text, "onError"), error) << text;

  // What reached the disk reads up to the last whole chunk.
  EXPECT_LE(fs::file_size(cut), limit);
  auto reader = trace::TraceReader::open(cut.string());
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE(reader->complete());
  ASSERT_EQ(reader->frameCount(), wholeFrames.size());
  for (size_t i = 0; i < reader->frameCount(); ++i) {
    EXPECT_TRUE(wholeFrames.count(reader->frameNumber(i))) << reader->frameNumber(i);
    auto frame = reader->readFrame(i);
    EXPECT_TRUE(frame) << frame.error().message;
  }
}

TEST(CaptureFailure, APathThatCannotBeCreatedFailsAtTheStartNamingIt) {
  NullDevice device;
  Renderer renderer(device);
  const std::string path = "/proc/reel_no_such_folder/t.reel";
  auto capture = Capture::start(renderer, options(path));
  ASSERT_FALSE(capture);
  EXPECT_NE(capture.error().message.find(path), std::string::npos) << capture.error().message;
}

TEST(CaptureFailure, AWholeCaptureHasNoError) {
  const fs::path dir = folder();
  captureScene(dir / "ok.reel", dir / "ok.txt");
  std::ifstream in(dir / "ok.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(line(text, "error"), "");
  EXPECT_EQ(line(text, "finish"), "ok");
  EXPECT_EQ(line(text, "onError calls"), "0");
}

}  // namespace
}  // namespace reel::testing
