// reel bisect TRACE --frame N (--golden IMG | --reference-device NAME | --reference-trace FILE): names the
// sorted command of a frame where its image goes wrong. Against a golden image that is the last command
// that brought the differing pixels to their final values; against a reference replay (another device, or
// another trace of the same frame) the first command whose output differs
// (replay/include/reel/replay/bisect.h says why and how).

#include "reel/replay/bisect.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "../describe.h"
#include "../progress.h"
#include "../trace_input.h"

namespace reel::cli {
namespace {

class BisectCommand final : public Subcommand {
 public:
  const char* name() const override { return "bisect"; }
  const char* description() const override {
    return "Find the command of a frame where its image goes wrong, against a golden image or a reference "
           "replay";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_option("--frame", frame_, "Frame number")->required();
    auto* golden = app.add_option("--golden", golden_,
                                  "The expected image of the frame's end (PNG): names the last command that "
                                  "brought the differing pixels to their final values");
    auto* reference = app.add_option("--reference-device", referenceDevice_,
                                     "Compare with the same replay on this device: names the first command "
                                     "whose output differs");
    auto* against = app.add_option("--against-device", referenceDevice_, "The same as --reference-device");
    auto* referenceTrace = app.add_option(
        "--reference-trace", referenceTrace_,
        "Compare with this trace's frame of the same number, replayed on --reference-device (default: "
        "--device): names the first command whose output differs");
    golden->excludes(reference)->excludes(against)->excludes(referenceTrace);
    reference->excludes(against);
    app.add_option("--device", device_, "Device to bisect on (default: REEL_DEVICE, else automatic)");
    app.add_option("--target", target_, "Image to compare: last (default), rt:N[.A] or tex:N");
    app.add_option("--threshold", tolerance_.threshold, "Per-channel difference allowed, 0-255")
        ->check(CLI::Range(0, 255));
    app.add_option("--max-diff-fraction", tolerance_.maxDiffFraction,
                   "Share of pixels allowed to differ, 0-1")
        ->check(CLI::Range(0.0, 1.0));
    app.add_flag("--from-capture-start", fromCaptureStart_,
                 "Replay every probe from the capture start instead of resuming from a checkpoint at the "
                 "frame's start (slower; to measure the checkpoints against)");
    app.add_flag("--validate", validate_, "Turn on the Khronos validation layer");
    app.add_flag("--json", json_, "Print the result as JSON");
    app.add_flag("--progress", progress_, "Show progress on stderr even when it is not a terminal");
  }

  int run() override {
    if (golden_.empty() && referenceDevice_.empty() && referenceTrace_.empty())
      throw BadInput("bisect needs --golden IMG, --reference-device NAME or --reference-trace FILE");
    trace::TraceReader reader = openTrace(path_);
    const size_t index = frameRange(reader, std::to_string(frame_)).first;
    auto target = replay::parseTarget(target_);
    if (!target) throw BadInput(target.error().message);
    auto session = open(reader, device_);
    std::optional<trace::TraceReader> otherReader;
    std::unique_ptr<replay::ReplaySession> other;
    if (golden_.empty()) {
      otherReader.emplace(openTrace(referenceTrace_.empty() ? path_ : referenceTrace_));
      other = open(*otherReader, referenceDevice_.empty() ? device_ : referenceDevice_);
    }
    // The bisect's own time, from open devices to the answer (what --json reports as seconds).
    const auto started = std::chrono::steady_clock::now();
    // The last pass moves as the search stops earlier: fix the target the whole frame ends with.
    std::string targetName;
    replay::TargetChoice fixed;
    uint32_t width = 0, height = 0;
    if (fromCaptureStart_) {
      auto full = session->replayFrame(index, UINT64_MAX, *target);
      if (!full) throw BadInput(full.error().message);
      targetName = full->target;
      fixed = replay::fixedTarget(*full, *target);
      width = full->image->width;
      height = full->image->height;
    } else {
      // The frame's end through seek: the checkpoint every probe resumes from is taken on the way.
      auto end = session->seek(index);
      if (!end) throw BadInput(end.error().message);
      auto read = session->readTarget(*target);
      if (!read) throw BadInput(read.error().message);
      targetName = read->name;
      fixed = replay::fixedTarget(*read, *target);
      width = read->image.width;
      height = read->image.height;
    }

    std::unique_ptr<Progress> progress;
    replay::BisectOptions options;
    options.fromCaptureStart = fromCaptureStart_;
    options.progress = [&](uint64_t probes, uint64_t expected) {
      if (!progress) progress = std::make_unique<Progress>("bisect", expected, progress_);
      progress->setTotal(expected);
      progress->step(probes);
    };
    Result<replay::BisectResult> result = Error{};
    if (other) {
      result = replay::bisectAgainstReplay(*session, *other, index, fixed, tolerance_, options);
    } else {
      auto golden = image::readPng(golden_);
      if (!golden) throw BadInput(golden.error().message);
      if (golden->width != width || golden->height != height) {
        throw BadInput(golden_ + ": " + std::to_string(golden->width) + "x" + std::to_string(golden->height) +
                       ", but the replayed image is " + std::to_string(width) + "x" + std::to_string(height));
      }
      result = replay::bisectAgainstGolden(*session, index, fixed, *golden, tolerance_, options);
    }
    if (progress) {
      progress->step(UINT64_MAX);  // done: the search may end before the probes it expected
      progress->finish();
    }
    if (!result) throw BadInput(result.error().message);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::optional<PacketDescription> culprit;
    if (result->command) {
      auto frame = reader.readFrame(index);
      if (!frame) throw BadInput(frame.error().message);
      culprit = describeSortedPacket(reader.header(), *frame, *result->command);
    }
    const char* answer = replay::bisectAnswerText(result->answer);
    if (json_) {
      JsonObject o;
      o.add("frame", frame_).add("differs", culprit.has_value()).add("summary", result->end.summary());
      o.add("probes", result->probes).add("target", targetName);
      if (culprit) o.raw("first_differing_command", culprit->json());
      o.add("against", golden_.empty() ? "reference" : "golden").add("answer", answer);
      o.add("resume", fromCaptureStart_ ? "capture start" : "checkpoint");
      o.add("packets", result->packets)
          .add("frames_replayed", result->framesReplayed)
          .add("seconds", seconds);
      o.add("search_seconds", result->searchSeconds);
      std::printf("%s\n", o.str().c_str());
    } else {
      std::printf("frame %" PRIu64 " (%s): %s\n", frame_, targetName.c_str(), result->end.summary().c_str());
      if (culprit) {
        std::printf("first differing command: %s\n", culprit->text().c_str());
        std::printf("  (%s, found in %" PRIu64 " probes)\n", answer, result->probes);
      }
    }
    return culprit ? kCheckFailed : kSuccess;
  }

 private:
  std::unique_ptr<replay::ReplaySession> open(trace::TraceReader& reader, const std::string& device) {
    auto session = replay::ReplaySession::create(reader, {.device = device, .validate = validate_});
    if (!session) throw BadInput(session.error().message);
    return std::move(session.value());
  }

  std::string path_, golden_, referenceDevice_, referenceTrace_, device_, target_ = "last";
  uint64_t frame_ = 0;
  image::Tolerance tolerance_;
  bool validate_ = false, json_ = false, fromCaptureStart_ = false, progress_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeBisectCommand() {
  return std::make_unique<BisectCommand>();
}

}  // namespace reel::cli
