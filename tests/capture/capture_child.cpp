// A process that captures the test scene until something ends it, for crash_test.cpp:
//   reel_capture_child MODE PATH
// MODE: kill / term / int  capture until the parent sends the signal; prints "chunks N" as chunks land
//       abort              abort() after 10 frames
//       exit               std::exit(0) after 10 frames, the capture never destroyed
//       handler            an own SIGTERM handler installed first; runs until it is called, exits 0
//       timed              chunks close only by time (chunkMillis 20; no size or frame-count limit):
//                          10 frames, then waits until they are on disk, prints "ondisk N" and idles
//                          until killed ("timeout" after 10 s instead)

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "scene.h"

// The child leaks its renderer and capture on purpose (the exit and signal modes test what happens to a
// trace when an app never destroys them): under ThreadSanitizer their threads' leak is expected.
extern "C" const char* __tsan_default_options() {
  return "report_thread_leaks=0";
}

namespace {
volatile sig_atomic_t gTerminated = 0;
void onTerminate(int) {
  gTerminated = 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s kill|term|int|abort|exit|handler|timed PATH\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "handler") ::signal(SIGTERM, onTerminate);

  // Never destroyed in the modes that end the process from inside: what the trace gets then is the
  // work of the exit and signal handling alone.
  auto* device = new reel::NullDevice(false);
  auto* renderer = new reel::Renderer(*device);
  auto* scene = new reel::testing::Scene(*renderer);
  reel::capture::CaptureOptions options;
  options.path = argv[2];
  // Chunks of two frames, closed by their frame count alone: the default time limit would close one
  // after a single frame wherever frames come slowly (ThreadSanitizer), and crash_test.cpp counts on
  // two frames a chunk.
  options.compression.maxFramesPerChunk = 2;
  options.compression.chunkMillis = 0;
  if (mode == "timed") {
    options.compression.maxFramesPerChunk = 1u << 30;
    options.compression.chunkBytes = 1ull << 40;
    options.compression.chunkMillis = 20;
  }
  auto capture = reel::capture::Capture::start(*renderer, options);
  if (!capture) {
    std::fprintf(stderr, "%s\n", capture.error().message.c_str());
    return 3;
  }
  if (mode == "timed") {
    for (int f = 0; f < 10; ++f) {
      scene->frame();
      ::usleep(1000);
    }
    renderer->flushAndWait();
    // No frame comes any more: only the time limit can close the chunk that holds them.
    for (int waited = 0; waited < 10000; ++waited) {
      const uint64_t onDisk = capture.value()->stats().framesOnDisk;
      if (onDisk >= 10) {
        std::printf("ondisk %llu\n", static_cast<unsigned long long>(onDisk));
        std::fflush(stdout);
        for (;;) ::pause();
      }
      ::usleep(1000);
    }
    std::printf("timeout\n");
    std::fflush(stdout);
    for (;;) ::pause();
  }
  uint64_t chunks = 0;
  for (uint64_t f = 0;; ++f) {
    scene->frame();
    if (mode == "abort" && f == 9) {
      renderer->flushAndWait();
      std::abort();
    }
    if (mode == "exit" && f == 9) {
      renderer->flushAndWait();
      std::exit(0);
    }
    if (mode == "handler" && gTerminated) {
      std::printf("handled\n");
      std::fflush(stdout);
      capture.value().reset();
      delete scene;
      delete renderer;
      delete device;
      return 0;
    }
    const uint64_t now = capture.value()->stats().chunks;
    if (now != chunks) {
      chunks = now;
      std::printf("chunks %llu\n", static_cast<unsigned long long>(chunks));
      std::fflush(stdout);
    }
    ::usleep(1000);
  }
}
