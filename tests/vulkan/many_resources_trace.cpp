// Writes a trace whose replay holds thousands of live resources (scripts/suballoc-benchmark.sh replays it
// and reads the device's memory statistics from `reel replay --json`):
//
//   reel_many_resources_trace OUT.reel [BUFFERS [TEXTURES [FRAMES [MAX_SIDE]]]]  (defaults 6000 4000 8 16)
//
// Frame 0 creates BUFFERS storage buffers (16..112 bytes, with contents) and TEXTURES sampled textures
// (RGBA8 squares of 2, 4, 8, ... up to MAX_SIDE texels a side, with contents); every later frame destroys a
// tenth of each and creates as many new ones of other sizes, so that the replay frees ranges and fills them
// again. Recorded on the null device: no GPU is needed to write it.

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"

namespace {

uint32_t parse(const char* text, const char* what) {
  uint32_t value = 0;
  const char* end = text + std::char_traits<char>::length(text);
  if (auto [ptr, ec] = std::from_chars(text, end, value); ec != std::errc() || ptr != end) {
    std::fprintf(stderr, "reel_many_resources_trace: %s '%s' is not a number\n", what, text);
    std::exit(2);
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace reel;
  if (argc < 2 || argc > 6) {
    std::fprintf(stderr,
                 "usage: reel_many_resources_trace OUT.reel [BUFFERS [TEXTURES [FRAMES [MAX_SIDE]]]]\n");
    return 2;
  }
  const uint32_t buffers = argc > 2 ? parse(argv[2], "BUFFERS") : 6000;
  const uint32_t textures = argc > 3 ? parse(argv[3], "TEXTURES") : 4000;
  const uint32_t frames = argc > 4 ? parse(argv[4], "FRAMES") : 8;
  const uint32_t maxSide = argc > 5 ? parse(argv[5], "MAX_SIDE") : 16;
  if (maxSide < 2 || maxSide > 4096) {
    std::fprintf(stderr, "reel_many_resources_trace: MAX_SIDE %u is outside 2..4096\n", maxSide);
    return 2;
  }
  uint32_t sides = 0;  // how many sizes: 2, 4, ... <= maxSide
  while ((2u << sides) <= maxSide) ++sides;

  NullDevice device;
  Renderer renderer(device);
  capture::CaptureOptions options;
  options.path = argv[1];
  options.handleSignals = false;
  options.keyFrames = {.everyMillis = 0};  // one snapshot at the start: the replay sees every create request
  auto capture = capture::Capture::start(renderer, options);
  if (!capture) {
    std::fprintf(stderr, "reel_many_resources_trace: %s\n", capture.error().message.c_str());
    return 1;
  }

  ResourceContext& resources = renderer.resources();
  uint32_t serial = 0;
  auto newBuffer = [&] {
    const uint32_t words[4] = {serial, serial * 3, ~serial, 0x5eed};
    ++serial;
    return resources.createBuffer({.size = 16 + (serial % 7) * 16, .usage = buffer_usage::kStorage},
                                  std::as_bytes(std::span(words)));
  };
  auto newTexture = [&] {
    const uint32_t side = 2u << (serial % sides);
    std::vector<uint32_t> texels(size_t{side} * side, serial);
    ++serial;
    return resources.createTexture({.width = side,
                                    .height = side,
                                    .mipLevels = 1,
                                    .format = Format::RGBA8Unorm,
                                    .usage = texture_usage::kSampled},
                                   std::as_bytes(std::span(texels)));
  };
  std::vector<BufferHandle> liveBuffers;
  std::vector<TextureHandle> liveTextures;
  for (uint32_t i = 0; i < buffers; ++i) liveBuffers.push_back(newBuffer());
  for (uint32_t i = 0; i < textures; ++i) liveTextures.push_back(newTexture());
  renderer.kick();
  for (uint32_t f = 1; f < frames; ++f) {
    // A tenth of each, spread over the whole set, replaced by new ones.
    for (size_t i = f % 10; i < liveBuffers.size(); i += 10) {
      resources.destroy(liveBuffers[i]);
      liveBuffers[i] = newBuffer();
    }
    for (size_t i = f % 10; i < liveTextures.size(); i += 10) {
      resources.destroy(liveTextures[i]);
      liveTextures[i] = newTexture();
    }
    renderer.kick();
  }
  renderer.flushAndWait();
  if (auto finished = (*capture)->finish(); !finished) {
    std::fprintf(stderr, "reel_many_resources_trace: %s\n", finished.error().message.c_str());
    return 1;
  }
  std::printf("%s: %u frames, %u buffers and %u textures live, %u created\n", argv[1], frames, buffers,
              textures, serial);
  return 0;
}
