// reel bisect TRACE --frame N (--golden IMG | --against-device NAME): names the first sorted command of a
// frame after which the image goes wrong (replay/include/reel/replay/bisect.h says how).

#include "reel/replay/bisect.h"

#include <cinttypes>
#include <cstdio>

#include "../describe.h"
#include "../trace_input.h"

namespace reel::cli {
namespace {

class BisectCommand final : public Subcommand {
 public:
  const char* name() const override { return "bisect"; }
  const char* description() const override {
    return "Find the first command of a frame whose output differs from a golden image or another device";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_option("--frame", frame_, "Frame number")->required();
    auto* golden = app.add_option("--golden", golden_, "The expected image of the frame (PNG)");
    auto* against =
        app.add_option("--against-device", against_, "Compare with the same replay on this device");
    golden->excludes(against);
    app.add_option("--device", device_, "Device to bisect on (default: REEL_DEVICE, else automatic)");
    app.add_option("--target", target_, "Image to compare: last (default), rt:N[.A] or tex:N");
    app.add_option("--threshold", tolerance_.threshold, "Per-channel difference allowed, 0-255")
        ->check(CLI::Range(0, 255));
    app.add_option("--max-diff-fraction", tolerance_.maxDiffFraction,
                   "Share of pixels allowed to differ, 0-1")
        ->check(CLI::Range(0.0, 1.0));
    app.add_flag("--validate", validate_, "Turn on the Khronos validation layer");
    app.add_flag("--json", json_, "Print the result as JSON");
  }

  int run() override {
    if (golden_.empty() && against_.empty())
      throw BadInput("bisect needs --golden IMG or --against-device NAME");
    trace::TraceReader reader = openTrace(path_);
    const size_t index = frameRange(reader, std::to_string(frame_)).first;
    auto target = replay::parseTarget(target_);
    if (!target) throw BadInput(target.error().message);
    auto session = open(reader, device_);
    // The last pass moves as the search stops earlier: fix the target the whole frame ends with.
    auto full = session->replayFrame(index, UINT64_MAX, *target);
    if (!full) throw BadInput(full.error().message);
    const replay::TargetChoice fixed = replay::fixedTarget(*full, *target);

    Result<replay::BisectResult> result = Error{};
    std::optional<trace::TraceReader> otherReader;
    std::unique_ptr<replay::ReplaySession> other;
    if (!against_.empty()) {
      otherReader.emplace(openTrace(path_));
      other = open(*otherReader, against_);
      result = replay::bisectAgainstReplay(*session, *other, index, fixed, tolerance_);
    } else {
      auto golden = image::readPng(golden_);
      if (!golden) throw BadInput(golden.error().message);
      if (golden->width != full->image->width || golden->height != full->image->height) {
        throw BadInput(golden_ + ": " + std::to_string(golden->width) + "x" + std::to_string(golden->height) +
                       ", but the replayed image is " + std::to_string(full->image->width) + "x" +
                       std::to_string(full->image->height));
      }
      result = replay::bisectAgainstGolden(*session, index, fixed, *golden, tolerance_);
    }
    if (!result) throw BadInput(result.error().message);
    std::optional<PacketDescription> culprit;
    if (result->command) {
      auto frame = reader.readFrame(index);
      if (!frame) throw BadInput(frame.error().message);
      culprit = describeSortedPacket(reader.header(), *frame, *result->command);
    }
    if (json_) {
      JsonObject o;
      o.add("frame", frame_).add("differs", culprit.has_value()).add("summary", result->end.summary());
      o.add("probes", result->probes).add("target", full->target);
      if (culprit) o.raw("first_differing_command", culprit->json());
      std::printf("%s\n", o.str().c_str());
    } else {
      std::printf("frame %" PRIu64 " (%s): %s\n", frame_, full->target.c_str(),
                  result->end.summary().c_str());
      if (culprit) std::printf("first differing command: %s\n", culprit->text().c_str());
    }
    return culprit ? kCheckFailed : kSuccess;
  }

 private:
  std::unique_ptr<replay::ReplaySession> open(trace::TraceReader& reader, const std::string& device) {
    auto session = replay::ReplaySession::create(reader, {.device = device, .validate = validate_});
    if (!session) throw BadInput(session.error().message);
    return std::move(session.value());
  }

  std::string path_, golden_, against_, device_, target_ = "last";
  uint64_t frame_ = 0;
  image::Tolerance tolerance_;
  bool validate_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeBisectCommand() {
  return std::make_unique<BisectCommand>();
}

}  // namespace reel::cli
