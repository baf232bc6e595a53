// reel golden: the golden-image regression suite of traces/manifest.ini (golden/manifest.h).
//   reel golden check NAME    replay one trace, compare its frames with the goldens of this device's class;
//                             on a mismatch write actual / expected / diff images and bisect the frame
//   reel golden run           every trace of the manifest, with a summary table
//   reel golden update        re-render the goldens of this device's class and say which changed

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "../describe.h"
#include "../golden/manifest.h"
#include "../progress.h"
#include "../trace_input.h"
#include "reel/replay/bisect.h"

namespace reel::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct CheckOutcome {
  std::string name;
  uint64_t frames = 0, failed = 0;
  uint32_t maxDifference = 0;
  double worstFraction = 0;
  double seconds = 0;
  std::string error;  // could not run at all
};

class GoldenCommand final : public Subcommand {
 public:
  const char* name() const override { return "golden"; }
  const char* description() const override {
    return "Golden-image regression tests of traces (check, run, update)";
  }
  void addOptions(CLI::App& app) override {
    app.require_subcommand(1);
    check_ = app.add_subcommand("check", "Check one trace of the manifest against its goldens");
    check_->add_option("NAME", only_, "Section name in the manifest")->required();
    run_ = app.add_subcommand("run", "Check every trace of the manifest; print a summary table");
    update_ = app.add_subcommand("update", "Re-render the goldens of this device's class for review");
    update_->add_option("--only", only_, "Only this section");
    for (CLI::App* sub : {check_, run_, update_}) {
      sub->add_option("--manifest", manifest_, "The manifest (default: traces/manifest.ini)");
      sub->add_option("--device", device_, "Device (default: REEL_DEVICE, else automatic)");
      sub->add_flag("--validate", validate_, "Turn on the Khronos validation layer");
      sub->add_flag("--json", json_, "Print the result as JSON (people's lines go to stderr)");
      sub->add_flag("--progress", progress_, "Show progress on stderr even when it is not a terminal");
    }
    for (CLI::App* sub : {check_, run_}) {
      sub->add_option("--output", output_, "Where failed checks leave their images (default: golden-output)");
    }
  }

  int run() override {
    auto manifest = readManifest(manifest_);
    if (!manifest) throw BadInput(manifest.error().message);
    if (update_->parsed()) return update(*manifest);
    std::vector<const GoldenEntry*> entries;
    for (const GoldenEntry& e : manifest->entries) {
      if (run_->parsed() || e.name == only_) entries.push_back(&e);
    }
    if (entries.empty()) throw BadInput(manifest_ + ": no section [" + only_ + "]");
    std::vector<CheckOutcome> outcomes;
    for (const GoldenEntry* e : entries) outcomes.push_back(check(*manifest, *e));
    return summarize(outcomes);
  }

 private:
  std::unique_ptr<replay::ReplaySession> open(trace::TraceReader& reader) {
    auto session = replay::ReplaySession::create(reader, {.device = device_, .validate = validate_});
    if (!session) throw BadInput(session.error().message);
    return std::move(session.value());
  }

  CheckOutcome check(const Manifest& manifest, const GoldenEntry& entry) {
    CheckOutcome outcome;
    outcome.name = entry.name;
    const auto start = Clock::now();
    trace::TraceReader reader = openTrace(entry.file.string());
    const auto [first, last] = frameRange(reader, entry.frames);
    auto target = replay::parseTarget(entry.target);
    if (!target) throw BadInput(manifest_ + ": [" + entry.name + "]: " + target.error().message);
    auto session = open(reader);
    const std::string cls = deviceClass(session->device().info().name);
    const auto tol = entry.tolerance.find(cls);
    const image::Tolerance tolerance = tol == entry.tolerance.end() ? image::Tolerance{} : tol->second;
    const fs::path goldens = manifest.goldenFolder(cls, entry.name);
    Progress progress("golden." + entry.name, last - first + 1, progress_);
    for (size_t i = first; i <= last; ++i) {
      progress.step(i - first);
      auto replayed = session->replayFrame(i, UINT64_MAX, *target);
      if (!replayed) {
        outcome.error = replayed.error().message;
        break;
      }
      ++outcome.frames;
      const std::string file = "frame_" + std::to_string(replayed->frame) + ".png";
      auto golden = image::readPng(goldens / file);
      if (!golden) {
        outcome.error = golden.error().message + " (no golden for device class '" + cls +
                        "': run scripts/update-goldens.sh on that device)";
        break;
      }
      const image::Comparison c = image::compare(*replayed->image, *golden, tolerance);
      outcome.maxDifference = std::max(outcome.maxDifference, c.maxDifference);
      outcome.worstFraction = std::max(outcome.worstFraction, c.differingFraction());
      if (c.matches) continue;
      ++outcome.failed;
      const fs::path out = fs::path(output_) / entry.name / ("frame_" + std::to_string(replayed->frame));
      std::error_code ec;
      fs::create_directories(out, ec);
      (void)image::writePng(out / "actual.png", *replayed->image);
      (void)image::writePng(out / "expected.png", *golden);
      if (c.sameSize) (void)image::writePng(out / "diff.png", c.diff);
      std::fprintf(stderr, "golden.%s frame %" PRIu64 ": %s; images in %s\n", entry.name.c_str(),
                   replayed->frame, c.summary().c_str(), out.c_str());
      if (!c.sameSize) continue;
      // Name the command on the same replay: its seeks take a checkpoint at the frame's start, and the
      // next frame's replayFrame puts it back before going on in order.
      auto found = replay::bisectAgainstGolden(*session, i, replay::fixedTarget(*replayed, *target), *golden,
                                               tolerance);
      if (!found) {
        std::fprintf(stderr, "  bisect failed: %s\n", found.error().message.c_str());
      } else if (found->command) {
        auto frame = reader.readFrame(i);
        if (frame) {
          if (auto d = describeSortedPacket(reader.header(), *frame, *found->command)) {
            std::fprintf(stderr, "  first differing command: %s\n", d->text().c_str());
            std::fprintf(stderr, "  (%s)\n", replay::bisectAnswerText(found->answer));
          }
        }
      }
    }
    progress.step(last - first + 1);
    progress.finish();
    for (const std::string& e : session->takeDeviceErrors()) {
      std::fprintf(stderr, "golden.%s: device: %s\n", entry.name.c_str(), e.c_str());
      if (outcome.error.empty()) outcome.error = "the device reported errors";
    }
    outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return outcome;
  }

  int summarize(const std::vector<CheckOutcome>& outcomes) {
    bool ok = true;
    std::string rows;
    if (!json_)
      std::printf("%-24s %7s  %-6s %9s %10s %8s\n", "trace", "frames", "result", "max diff", "differing",
                  "time");
    for (const CheckOutcome& o : outcomes) {
      const bool pass = o.error.empty() && o.failed == 0;
      ok &= pass;
      const char* result = !o.error.empty() ? "error" : pass ? "pass" : "FAIL";
      if (json_) {
        JsonObject j;
        j.add("trace", o.name).add("frames", o.frames).add("failed_frames", o.failed).add("result", result);
        j.add("max_difference", o.maxDifference)
            .add("worst_differing_fraction", o.worstFraction)
            .add("seconds", o.seconds);
        if (!o.error.empty()) j.add("error", o.error);
        rows += (rows.empty() ? "" : ",") + j.str();
      } else {
        std::printf("%-24s %7" PRIu64 "  %-6s %9u %9.4f%% %7.2fs\n", o.name.c_str(), o.frames, result,
                    o.maxDifference, o.worstFraction * 100, o.seconds);
        if (!o.error.empty()) std::printf("  %s\n", o.error.c_str());
      }
    }
    if (json_) std::printf("{\"result\":\"%s\",\"traces\":[%s]}\n", ok ? "pass" : "fail", rows.c_str());
    return ok ? kSuccess : kCheckFailed;
  }

  int update(const Manifest& manifest) {
    bool any = false, deviceErrors = false;
    std::string rows;
    for (const GoldenEntry& entry : manifest.entries) {
      if (!only_.empty() && entry.name != only_) continue;
      any = true;
      trace::TraceReader reader = openTrace(entry.file.string());
      const auto [first, last] = frameRange(reader, entry.frames);
      auto target = replay::parseTarget(entry.target);
      if (!target) throw BadInput(manifest_ + ": [" + entry.name + "]: " + target.error().message);
      auto session = open(reader);
      const std::string cls = deviceClass(session->device().info().name);
      const fs::path goldens = manifest.goldenFolder(cls, entry.name);
      std::error_code ec;
      fs::create_directories(goldens, ec);
      Progress progress("golden update " + entry.name, last - first + 1, progress_);
      for (size_t i = first; i <= last; ++i) {
        progress.step(i - first);
        auto replayed = session->replayFrame(i, UINT64_MAX, *target);
        if (!replayed) throw BadInput(replayed.error().message);
        const fs::path file = goldens / ("frame_" + std::to_string(replayed->frame) + ".png");
        const char* status = "new";
        std::string summary;
        if (auto old = image::readPng(file)) {
          const image::Comparison c = image::compare(*replayed->image, *old);
          status = c.matches ? "unchanged" : "changed";
          if (!c.matches) summary = c.summary();
        }
        if (auto written = image::writePng(file, *replayed->image); !written)
          throw BadInput(written.error().message);
        if (json_) {
          JsonObject j;
          j.add("trace", entry.name).add("frame", replayed->frame).add("file", file.string());
          j.add("status", status).add("device_class", cls);
          if (!summary.empty()) j.add("summary", summary);
          rows += (rows.empty() ? "" : ",") + j.str();
        } else {
          std::printf("%s  %s%s%s\n", file.c_str(), status, summary.empty() ? "" : ": ", summary.c_str());
        }
      }
      progress.step(last - first + 1);
      progress.finish();
      for (const std::string& e : session->takeDeviceErrors()) {
        std::fprintf(stderr, "device: %s\n", e.c_str());
        deviceErrors = true;
      }
    }
    if (!any) throw BadInput(manifest_ + ": no section [" + only_ + "]");
    if (json_) {
      std::printf("{\"result\":\"%s\",\"goldens\":[%s]}\n", deviceErrors ? "device_errors" : "updated",
                  rows.c_str());
    }
    return kSuccess;
  }

  CLI::App* check_ = nullptr;
  CLI::App* run_ = nullptr;
  CLI::App* update_ = nullptr;
  std::string manifest_ = "traces/manifest.ini", device_, only_, output_ = "golden-output";
  bool validate_ = false, json_ = false, progress_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeGoldenCommand() {
  return std::make_unique<GoldenCommand>();
}

}  // namespace reel::cli
