// Built by tests/package/run.sh with nothing but `pkg-config --cflags --static --libs reel` against the
// installed prefix: it calls into every installed archive (core, vulkan, capture, trace, replay, image
// and the schema code behind capture and trace), so that a missing library, a wrong link order or a
// missing dependency (libzstd, libstb, dl, threads) fails the link. No GPU work: a NullDevice renders.
//   pkgconfig_app OUT_DIR   writes OUT_DIR/null.reel and OUT_DIR/pixel.png; exit 0 when all worked
#include <cstdio>
#include <string>

#include "reel/image/compare.h"
#include "reel/image/image.h"
#include "reel/reel.h"
#include "reel/replay/session.h"
#include "reel/trace/reader.h"

namespace {
int failed(const std::string& what) {
  std::fprintf(stderr, "pkgconfig_app: %s\n", what.c_str());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return failed("usage: pkgconfig_app OUT_DIR");
  const std::string dir = argv[1];

  reel::NullDevice device;
  {
    reel::Renderer renderer(device);
    reel::capture::CaptureOptions options;
    options.path = dir + "/null.reel";
    auto capture = reel::capture::Capture::start(renderer, options);
    if (!capture) return failed(capture.error().message);
    reel::BufferDesc buffer{};
    buffer.size = 64;
    buffer.usage = reel::buffer_usage::kStorage;
    (void)renderer.resources().createBuffer(buffer);
    renderer.kick();
    renderer.kick();
    if (auto finished = (*capture)->finish(); !finished) return failed(finished.error().message);
  }

  auto reader = reel::trace::TraceReader::open(dir + "/null.reel");
  if (!reader) return failed(reader.error().message);
  if (reader->frameCount() != 2)
    return failed("the trace has " + std::to_string(reader->frameCount()) + " frames, not 2");
  if (!reel::replay::parseTarget("last")) return failed("parseTarget(\"last\") failed");

  reel::image::Image pixel(1, 1);
  pixel.rgba = {10, 20, 30, 255};
  if (auto written = reel::image::writePng(dir + "/pixel.png", pixel); !written)
    return failed(written.error().message);
  auto read = reel::image::readPng(dir + "/pixel.png");
  if (!read || !reel::image::compare(*read, pixel).matches)
    return failed("pixel.png did not read back the same");

  // Linked, not necessarily usable here: a machine without Vulkan answers with an error, not a crash.
  auto devices = reel::listVulkanDevices();
  std::printf("pkgconfig_app: ok (%zu Vulkan devices)\n", devices ? devices->size() : size_t{0});
  return 0;
}
