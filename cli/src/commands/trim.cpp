// reel trim TRACE --frames A-B -o OUT: a new self-contained trace of frames A..B.
//
// The trace is replayed through the replay engine on a device (a GPU, else lavapipe; --device picks
// one) up to frame A, then a capture of A..B runs beside it, which starts the new trace with every
// resource alive at A and its contents read back from the device, exactly as a capture started at A in
// the app would: mips the GPU generated, render targets kept across frames, compute outputs included.
// `--device null` trims without a GPU, but the null device rasterizes nothing, so what the GPU wrote
// before A is missing from the new trace; reel trim says so.

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "../progress.h"
#include "../trace_input.h"
#include "reel/capture/capture.h"
#include "reel/json/json.h"
#include "reel/replay/session.h"

namespace reel::cli {
namespace {

class TrimCommand final : public Subcommand {
 public:
  const char* name() const override { return "trim"; }
  const char* description() const override {
    return "Write a new self-contained trace of frames A-B, replayed to A on a device";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_option("--frames", frames_, "Frames to keep: A-B, A or A-")->required();
    app.add_option("-o,--output", output_, "The new trace")->required();
    app.add_option("--device", device_,
                   "Device to replay on: substring of its name (default: REEL_DEVICE, else automatic); "
                   "'null' for no GPU (what the GPU wrote before A is then missing)");
    app.add_flag("--validate", validate_, "Turn on the Khronos validation layer");
    app.add_flag("--json", json_, "Print the result as one JSON object (people's lines go to stderr)");
    app.add_flag("--progress", progress_, "Show progress on stderr even when it is not a terminal");
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

    replay::SessionOptions sessionOptions;
    sessionOptions.device = device_;
    sessionOptions.validate = validate_;
    sessionOptions.applicationName = "reel trim";
    auto session = replay::ReplaySession::create(reader, sessionOptions);
    if (!session) throw BadInput(session.error().message);
    replay::ReplaySession& s = **session;
    if (device_ == "null") {
      std::fprintf(stderr,
                   "reel trim: warning: the null device rasterizes nothing: what the GPU wrote before frame "
                   "%llu (render targets, compute outputs, generated mips) is not in %s\n",
                   static_cast<unsigned long long>(reader.frameNumber(first)), output_.c_str());
    }

    // Frames before A build A's state; the capture then sees A..B as the app's capture would have.
    Progress progress("trim", last + 1, progress_);
    auto replay = [&](size_t index) {
      auto replayed = s.replayFrame(index);
      if (!replayed) throw BadInput(path_ + ": " + replayed.error().message);
      progress.step(index + 1);
    };
    for (size_t i = 0; i < first; ++i) replay(i);

    capture::CaptureOptions options;
    options.path = temporary.string();
    options.firstFrame = s.renderer().recordingFrame();  // the next frame kicked: A
    options.lastFrame = options.firstFrame + (last - first);
    options.appName = h.appName;
    options.appArgs = h.appArgs;
    options.handleSignals = false;
    auto capture = capture::Capture::start(s.renderer(), options);
    if (!capture) throw BadInput(output_ + ": " + capture.error().message);
    auto cleanup = [&] {
      capture->reset();
      fs::remove(temporary, ec);
    };
    try {
      for (size_t i = first; i <= last; ++i) replay(i);
    } catch (...) {
      cleanup();
      throw;
    }
    s.renderer().flushAndWait();
    if (auto finished = (*capture)->finish(); !finished) {
      cleanup();
      throw BadInput(output_ + ": " + finished.error().message);
    }
    const capture::CaptureStats stats = (*capture)->stats();
    capture->reset();
    progress.finish();
    const std::vector<std::string> deviceErrors = s.takeDeviceErrors();
    for (const std::string& e : deviceErrors) std::fprintf(stderr, "reel trim: device: %s\n", e.c_str());
    // As `reel replay` does: a frame whose replayed sorted order differs from the recorded one means the
    // sort changed since the trace was made (frames before A count too: they build A's state).
    const auto mismatches = s.feeder().sortMismatches();
    for (const auto& m : mismatches) {
      std::fprintf(stderr, "frame %llu: the sorted order differs from the recorded one (sort changed)\n",
                   static_cast<unsigned long long>(m.frame));
    }
    fs::rename(temporary, out, ec);
    if (ec) {
      fs::remove(temporary, ec);
      throw BadInput(output_ + ": cannot rename into place: " + ec.message());
    }
    if (json_) {
      JsonObject o;
      o.add("output", output_).add("trace", path_);
      o.add("first_frame", reader.frameNumber(first)).add("last_frame", reader.frameNumber(last));
      o.add("frames_written", stats.framesWritten).add("resources", stats.resources);
      o.add("bytes", stats.fileBytes).add("device", s.device().info().name);
      o.add("device_errors", uint64_t{deviceErrors.size()})
          .add("sort_mismatches", uint64_t{mismatches.size()});
      std::printf("%s\n", o.str().c_str());
    } else {
      std::printf("%s: frames %llu-%llu of %s, %llu resources at the start, %llu bytes\n", output_.c_str(),
                  static_cast<unsigned long long>(reader.frameNumber(first)),
                  static_cast<unsigned long long>(reader.frameNumber(last)), path_.c_str(),
                  static_cast<unsigned long long>(stats.resources),
                  static_cast<unsigned long long>(stats.fileBytes));
    }
    return kSuccess;
  }

 private:
  std::string path_, frames_, output_, device_;
  bool validate_ = false, json_ = false, progress_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeTrimCommand() {
  return std::make_unique<TrimCommand>();
}

}  // namespace reel::cli
