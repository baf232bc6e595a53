// reel verify TRACE: reads every chunk and message and says what is wrong and where.

#include <cstdio>

#include "../progress.h"
#include "../trace_input.h"
#include "reel/trace/command_map.h"

namespace reel::cli {
namespace {

class VerifyCommand final : public Subcommand {
 public:
  const char* name() const override { return "verify"; }
  const char* description() const override {
    return "Check every chunk and message of a trace; exit 1 if anything is wrong";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
  }

  int run() override {
    trace::TraceReader reader = openTrace(path_);
    std::vector<std::string> problems(reader.warnings().begin(), reader.warnings().end());
    if (auto resources = reader.readResources(); !resources) problems.push_back(resources.error().message);
    if (auto markers = reader.readMarkers(); !markers) problems.push_back(markers.error().message);
    if (auto end = reader.readCaptureEnd(); !end) problems.push_back(end.error().message);
    Progress progress("verify", reader.frameCount());
    uint64_t packets = 0;
    for (size_t i = 0; i < reader.frameCount(); ++i) {
      progress.step(i);
      auto frame = reader.readFrame(i);
      if (!frame) {
        problems.push_back(frame.error().message);
        continue;
      }
      packets += frame->packetCount();
    }
    progress.finish();
    // Commands this build does not replay (CommandMap: the replay's own answer) still print; the note
    // gives the reason a replay of them would fail with.
    const trace::CommandMap commands = trace::CommandMap::fromHeader(reader.header());
    for (size_t id = 0; id < commands.size(); ++id) {
      if (auto type = commands.map(id); !type)
        std::printf("note: %s: %s\n", path_.c_str(), type.error().message.c_str());
    }
    for (const std::string& p : problems) std::printf("%s\n", p.c_str());
    if (problems.empty()) {
      std::printf("%s: ok: %zu frames, %llu packets, %zu chunks, index intact\n", path_.c_str(),
                  reader.frameCount(), static_cast<unsigned long long>(packets), reader.chunks().size());
      return kSuccess;
    }
    std::printf("%s: %zu problem%s\n", path_.c_str(), problems.size(), problems.size() == 1 ? "" : "s");
    return kCheckFailed;
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Subcommand> makeVerifyCommand() {
  return std::make_unique<VerifyCommand>();
}

}  // namespace reel::cli
