// reel trim TRACE --frames A-B -o OUT: a new self-contained trace of frames A..B, made without a GPU.
//
// The frames before A are replayed on the null device, so that at frame A the renderer holds exactly
// the resources the app had, then a capture of A..B writes them first, as a capture started at A does.
// The null device keeps every byte that requests, buffer updates and copies write, but does not
// rasterize: a resource that the GPU itself wrote before A (a render target kept across frames, a
// compute output) starts the trimmed trace with what requests and copies left in it.

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "../trace_input.h"
#include "reel/capture/capture.h"
#include "reel/replay/frame_feeder.h"
#include "reel/runtime/null_device.h"

namespace reel::cli {
namespace {

class TrimCommand final : public Subcommand {
 public:
  const char* name() const override { return "trim"; }
  const char* description() const override {
    return "Write a new self-contained trace of frames A-B (no GPU needed)";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_option("--frames", frames_, "Frames to keep: A-B, A or A-")->required();
    app.add_option("-o,--output", output_, "The new trace")->required();
  }

  int run() override {
    trace::TraceReader reader = openTrace(path_);
    const auto [first, last] = frameRange(reader, frames_);
    const trace::TraceHeader& h = reader.header();
    namespace fs = std::filesystem;
    const fs::path out(output_);
    std::error_code ec;
    if (fs::is_directory(out, ec)) throw BadInput(output_ + ": is a directory");
    const fs::path folder = out.parent_path().empty() ? fs::path(".") : out.parent_path();
    if (!fs::is_directory(folder, ec))
      throw BadInput(output_ + ": folder " + folder.string() + " does not exist");
    const fs::path temporary = fs::path(output_ + ".tmp" + std::to_string(::getpid()));

    NullDevice device(/*recordCalls=*/false, h.device);
    Renderer renderer(device, {.framesInFlight = 2, .firstFrameNumber = reader.frameNumber(0)});
    auto feeder = replay::FrameFeeder::create(renderer, h);
    if (!feeder) throw BadInput(path_ + ": " + feeder.error().message);
    auto resources = reader.readResources();
    if (!resources) throw BadInput(resources.error().message);

    capture::CaptureOptions options;
    options.path = temporary.string();
    options.firstFrame = reader.frameNumber(first);
    options.lastFrame = reader.frameNumber(last);
    options.appName = h.appName;
    options.appArgs = h.appArgs;
    options.handleSignals = false;
    // Observes the frames beside the feeder, which goes on checking each frame's sorted order.
    auto capture = capture::Capture::start(renderer, options);
    if (!capture) throw BadInput(output_ + ": " + capture.error().message);

    auto cleanup = [&] {
      capture->reset();
      fs::remove(temporary, ec);
    };
    for (const auto& record : *resources) {
      if (auto ok = (*feeder)->submitResources(record); !ok) {
        cleanup();
        throw BadInput(path_ + ": " + ok.error().message);
      }
    }
    for (size_t i = 0; i <= last; ++i) {
      auto frame = reader.readFrame(i);
      if (!frame) {
        cleanup();
        throw BadInput(frame.error().message);
      }
      if (auto ok = (*feeder)->submitFrame(*frame); !ok) {
        cleanup();
        throw BadInput(path_ + ": " + ok.error().message);
      }
      renderer.kick();
    }
    if (auto finished = (*capture)->finish(); !finished) {
      cleanup();
      throw BadInput(output_ + ": " + finished.error().message);
    }
    const capture::CaptureStats stats = (*capture)->stats();
    capture->reset();
    // As `reel replay` does: a frame whose replayed sorted order differs from the recorded one means the
    // sort changed since the trace was made (frames before A count too: they build A's state).
    renderer.flushAndWait();
    for (const auto& m : (*feeder)->sortMismatches()) {
      std::fprintf(stderr, "frame %llu: the sorted order differs from the recorded one (sort changed)\n",
                   static_cast<unsigned long long>(m.frame));
    }
    fs::rename(temporary, out, ec);
    if (ec) {
      fs::remove(temporary, ec);
      throw BadInput(output_ + ": cannot rename into place: " + ec.message());
    }
    std::printf("%s: frames %llu-%llu of %s, %llu resources at the start, %llu bytes\n", output_.c_str(),
                static_cast<unsigned long long>(reader.frameNumber(first)),
                static_cast<unsigned long long>(reader.frameNumber(last)), path_.c_str(),
                static_cast<unsigned long long>(stats.resources),
                static_cast<unsigned long long>(stats.fileBytes));
    return kSuccess;
  }

 private:
  std::string path_, frames_, output_;
};

}  // namespace

std::unique_ptr<Subcommand> makeTrimCommand() {
  return std::make_unique<TrimCommand>();
}

}  // namespace reel::cli
