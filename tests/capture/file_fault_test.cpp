// A trace's file failing the ways a disk does, made to happen through the writer's file sink
// (trace/file_sink.h, CaptureOptions::createFile), without root: a full disk part-way through, short and
// interrupted writes, a failed sync, a failed close, a sink that takes nothing. Each fault the app must be
// told of (Capture::error(), onError, finish(), one message naming the file), nothing may hang, and what
// reached the file must read up to its last whole chunk.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/file_sink.h"
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
      fs::temp_directory_path() / ("reel_file_fault_" + std::to_string(::getpid())) / info->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The faults a sink can be told to show; every byte it takes goes to the real file underneath.
struct Faults {
  uint64_t fullAfter = UINT64_MAX;  // ENOSPC once this many bytes are in the file
  size_t maxWrite = SIZE_MAX;       // takes at most this many bytes a call (short writes)
  uint32_t interruptEvery = 0;      // every N-th write call fails with EINTR, taking nothing
  int syncError = 0, closeError = 0;
  bool takesNothing = false;  // every write takes 0 bytes without an error
};

class FaultySink final : public trace::FileSink {
 public:
  FaultySink(std::unique_ptr<trace::FileSink> file, Faults faults, std::atomic<uint64_t>& calls)
      : file_(std::move(file)), faults_(faults), calls_(calls) {}
  Written write(const void* data, size_t size) override {
    const uint64_t call = ++calls_;
    if (faults_.takesNothing) return {0, 0};
    if (faults_.interruptEvery && call % faults_.interruptEvery == 0) return {0, EINTR};
    if (written_ >= faults_.fullAfter) return {0, ENOSPC};
    size = std::min({size, faults_.maxWrite, static_cast<size_t>(faults_.fullAfter - written_)});
    const Written w = file_->write(data, size);
    written_ += w.bytes;
    return w;
  }
  int sync() override {
    const int real = file_->sync();
    return faults_.syncError ? faults_.syncError : real;
  }
  int close() override {
    const int real = file_->close();
    return faults_.closeError ? faults_.closeError : real;
  }

 private:
  std::unique_ptr<trace::FileSink> file_;
  Faults faults_;
  std::atomic<uint64_t>& calls_;
  uint64_t written_ = 0;
};

struct Outcome {
  std::string error;   // Capture::error() once the writer ended by itself
  std::string finish;  // finish()'s error, "" when it succeeded
  int onErrorCalls = 0;
  std::string onError;
  uint64_t writeCalls = 0;
};

// Captures kFrames frames of the scene, one frame a chunk, into `path` through a sink with `faults`.
Outcome captureWith(const fs::path& path, const Faults& faults) {
  NullDevice device;
  Renderer renderer(device);
  Scene scene(renderer, {.draws = 64, .auxBytes = 256, .randomAux = true});
  std::atomic<uint64_t> writeCalls{0};
  Outcome out;
  std::atomic<int> calls{0};
  CaptureOptions o;
  o.path = path.string();
  o.handleSignals = false;
  o.lastFrame = kFrames - 1;
  o.compression.maxFramesPerChunk = 1;
  o.onError = [&](std::string_view e) {
    ++calls;
    out.onError = std::string(e);
  };
  o.createFile = [&](const std::string& p) -> Result<std::unique_ptr<trace::FileSink>> {
    auto file = trace::createFileSink(p);
    if (!file) return file.error();
    return std::unique_ptr<trace::FileSink>(
        std::make_unique<FaultySink>(std::move(*file), faults, writeCalls));
  };
  auto capture = Capture::start(renderer, o);
  EXPECT_TRUE(capture) << capture.error().message;
  if (!capture) return out;
  for (uint64_t f = 0; f < kFrames; ++f) scene.frame();
  renderer.flushAndWait();
  // The range ends by itself after the last frame: the writer finishes (or fails) without finish().
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(*capture)->finished() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE((*capture)->finished()) << "the writer still runs after 20 s: a hang";
  out.error = (*capture)->error().value_or("");
  auto finished = (*capture)->finish();
  out.finish = finished ? "" : finished.error().message;
  out.onErrorCalls = calls.load();
  out.writeCalls = writeCalls.load();
  return out;
}

// The app learned `error` the three ways, once, naming the file.
void expectTold(const Outcome& o, const fs::path& path, const std::string& what) {
  EXPECT_NE(o.error.find(path.string()), std::string::npos) << "names the file: " << o.error;
  EXPECT_NE(o.error.find(what), std::string::npos) << o.error;
  EXPECT_EQ(o.finish, o.error) << "finish() returns the same error";
  EXPECT_EQ(o.onErrorCalls, 1);
  EXPECT_EQ(o.onError, o.error);
}

// Every frame of the trace reads, and there are `frames` of them.
void expectFramesRead(const fs::path& path, size_t frames, bool complete) {
  auto reader = trace::TraceReader::open(path.string());
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->complete(), complete);
  ASSERT_EQ(reader->frameCount(), frames);
  for (size_t i = 0; i < reader->frameCount(); ++i) {
    auto frame = reader->readFrame(i);
    EXPECT_TRUE(frame) << frame.error().message;
  }
}

TEST(FileFaults, ShortAndInterruptedWritesLoseNothing) {
  const fs::path dir = folder();
  const Outcome o = captureWith(dir / "short.reel", {.maxWrite = 7, .interruptEvery = 3});
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.finish, "");
  EXPECT_EQ(o.onErrorCalls, 0);
  EXPECT_GT(o.writeCalls, 1000u) << "the writes were cut short: seven bytes each";
  // Every chunk's zstd checksum and the index's CRC hold: no byte was lost or written twice.
  expectFramesRead(dir / "short.reel", kFrames, /*complete=*/true);
}

TEST(FileFaults, AFullDiskStopsTheCaptureTellsTheAppAndKeepsTheWholeChunks) {
  const fs::path dir = folder();
  const Outcome whole = captureWith(dir / "whole.reel", {});
  ASSERT_EQ(whole.error, "");
  auto full = trace::TraceReader::open((dir / "whole.reel").string());
  ASSERT_TRUE(full) << full.error().message;
  ASSERT_GE(full->chunks().size(), 4u);
  const trace::ChunkInfo& third = full->chunks()[2];
  std::set<uint64_t> wholeFrames;  // frames whose messages lie in the first two chunks
  for (const trace::MessageInfo& m : full->messages()) {
    if (m.kind == static_cast<uint8_t>(trace::MessageKind::Frame) && m.chunk < 2) wholeFrames.insert(m.frame);
  }

  const fs::path path = dir / "full.reel";
  const Outcome o = captureWith(path, {.fullAfter = third.offset + third.compressedSize / 2});
  expectTold(o, path, "write failed");
  EXPECT_NE(o.error.find(std::strerror(ENOSPC)), std::string::npos) << o.error;
  expectFramesRead(path, wholeFrames.size(), /*complete=*/false);
}

TEST(FileFaults, AFailedSyncIsReportedAndTheTraceStillReadsWhole) {
  const fs::path dir = folder();
  const fs::path path = dir / "sync.reel";
  const Outcome o = captureWith(path, {.syncError = EIO});
  expectTold(o, path,
             std::string("fdatasync failed at byte ") + std::to_string(fs::file_size(path)) + ": " +
                 std::strerror(EIO));
  // The index and footer were written before the sync: nothing is lost that the disk kept.
  expectFramesRead(path, kFrames, /*complete=*/true);
}

TEST(FileFaults, AFailedCloseIsReported) {
  const fs::path dir = folder();
  const fs::path path = dir / "close.reel";
  const Outcome o = captureWith(path, {.closeError = EIO});
  expectTold(o, path, std::string("close failed at byte ") + std::to_string(fs::file_size(path)));
  expectFramesRead(path, kFrames, /*complete=*/true);
}

TEST(FileFaults, ASinkThatTakesNothingIsAnErrorNotAHang) {
  const fs::path dir = folder();
  const fs::path path = dir / "nothing.reel";
  const Outcome o = captureWith(path, {.takesNothing = true});
  expectTold(o, path, "write failed");
  EXPECT_LE(o.writeCalls, 2u) << "one call with no progress is enough to stop";
}

}  // namespace
}  // namespace reel::testing
