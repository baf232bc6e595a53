// reel verify TRACE: reads every chunk and message, checks every frame's recorded sorted-order hash
// against the order of its keys, and says what is wrong and where.

#include <cinttypes>
#include <cstdio>

#include "../progress.h"
#include "../trace_input.h"
#include "reel/json/json.h"
#include "reel/schema/container.h"
#include "reel/trace/command_map.h"
#include "reel/trace/frame_order.h"

namespace reel::cli {
namespace {

std::string jsonStrings(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + jsonString(s);
  return "[" + out + "]";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

class VerifyCommand final : public Subcommand {
 public:
  const char* name() const override { return "verify"; }
  const char* description() const override {
    return "Check every chunk and message of a trace and every frame's recorded sort order; exit 1 if "
           "anything is wrong";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_flag("--json", json_, "Print the result as one JSON object (people's lines go to stderr)");
    app.add_flag("--progress", progress_, "Show progress on stderr even when it is not a terminal");
  }

  int run() override {
    trace::TraceReader reader = openTrace(path_);
    const trace::TraceHeader& h = reader.header();
    // A newer minor version is a valid trace this reader reads in part (what it does not know is
    // skipped): a warning, not a problem. Everything else the reader warned about lost data or the end.
    const bool newerMinor = h.formatMajor == schema::kFormatMajor && h.formatMinor > schema::kFormatMinor;
    std::vector<std::string> problems, warnings, notes;
    for (const std::string& w : reader.warnings()) {
      if (newerMinor && w.find("newer than this reader") != std::string::npos) {
        warnings.push_back(w);
      } else {
        problems.push_back(w);
      }
    }
    if (auto resources = reader.readResources(); !resources) problems.push_back(resources.error().message);
    if (auto markers = reader.readMarkers(); !markers) problems.push_back(markers.error().message);
    if (auto end = reader.readCaptureEnd(); !end) problems.push_back(end.error().message);
    Progress progress("verify", reader.frameCount(), progress_);
    uint64_t packets = 0, orderChecked = 0;
    trace::FrameRecord frame;
    for (size_t i = 0; i < reader.frameCount(); ++i) {
      progress.step(i);
      if (auto read = reader.readFrame(i, frame); !read) {
        problems.push_back(read.error().message);
        continue;
      }
      packets += frame.packetCount();
      // The capture stored the hash of the order its render thread sorted the frame into; sorting the
      // recorded keys again must give the same order, or a replay would run the commands differently.
      const uint64_t sorted = trace::orderFrame(frame).sortedOrderHash;
      ++orderChecked;
      if (sorted != frame.sortedOrderHash) {
        problems.push_back(path_ + ": frame " + std::to_string(frame.number) +
                           ": its keys sort to order hash " + hex(sorted) + ", but the capture recorded " +
                           hex(frame.sortedOrderHash) +
                           " (the sort changed since the capture, or the frame is damaged)");
      }
    }
    progress.step(reader.frameCount());
    progress.finish();
    // Commands this build does not replay (CommandMap: the replay's own answer) still print; the note
    // gives the reason a replay of them would fail with.
    const trace::CommandMap commands = trace::CommandMap::fromHeader(h);
    for (size_t id = 0; id < commands.size(); ++id) {
      if (auto type = commands.map(id); !type) notes.push_back(path_ + ": " + type.error().message);
    }

    if (json_) {
      JsonObject o;
      o.add("trace", path_).add("result", problems.empty() ? "ok" : "fail");
      o.add("format", std::to_string(h.formatMajor) + "." + std::to_string(h.formatMinor));
      o.add("frames", uint64_t{reader.frameCount()}).add("packets", packets);
      o.add("chunks", uint64_t{reader.chunks().size()})
          .add("index", reader.hasIndex() ? "intact" : "rebuilt");
      o.add("complete", reader.complete()).add("order_hashes_checked", orderChecked);
      o.raw("problems", jsonStrings(problems)).raw("warnings", jsonStrings(warnings));
      o.raw("notes", jsonStrings(notes));
      std::printf("%s\n", o.str().c_str());
      return problems.empty() ? kSuccess : kCheckFailed;
    }
    for (const std::string& n : notes) std::printf("note: %s\n", n.c_str());
    for (const std::string& p : problems) std::printf("%s\n", p.c_str());
    if (problems.empty()) {
      std::printf("%s: ok: %zu frames, %llu packets, %zu chunks, index intact%s\n", path_.c_str(),
                  reader.frameCount(), static_cast<unsigned long long>(packets), reader.chunks().size(),
                  warnings.empty() ? "" : " (newer minor format: read with a warning)");
      return kSuccess;
    }
    std::printf("%s: %zu problem%s\n", path_.c_str(), problems.size(), problems.size() == 1 ? "" : "s");
    return kCheckFailed;
  }

 private:
  std::string path_;
  bool json_ = false, progress_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeVerifyCommand() {
  return std::make_unique<VerifyCommand>();
}

}  // namespace reel::cli
