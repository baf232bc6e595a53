// reel info TRACE: what a trace holds and where it came from.

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

#include "../progress.h"
#include "../trace_input.h"
#include "reel/json/json.h"

namespace reel::cli {
namespace {

class InfoCommand final : public Subcommand {
 public:
  const char* name() const override { return "info"; }
  const char* description() const override {
    return "Version, app, capture device, frames, resources, packets per command type, sizes";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_flag("--json", json_, "Print one JSON object");
  }

  int run() override {
    trace::TraceReader reader = openTrace(path_);
    requireReadableFrames(reader);
    const trace::TraceHeader& h = reader.header();
    std::map<std::string, uint64_t> perType;
    uint64_t packets = 0, payloadBytes = 0, frameErrors = 0;
    std::string firstError;
    Progress progress("info", reader.frameCount());
    for (size_t i = 0; i < reader.frameCount(); ++i) {
      progress.step(i);
      auto frame = reader.readFrame(i);
      if (!frame) {
        if (frameErrors++ == 0) firstError = frame.error().message;
        continue;
      }
      for (const auto& request : frame->requests) {
        ++perType[commandNameOf(h, request.type)];
        payloadBytes += request.payload.size() + request.aux.size();
      }
      for (const auto& bucket : frame->buckets) {
        for (size_t k = 0; k < bucket.keyCount(); ++k) {
          bucket.forEachInChain(k, [&](const trace::PacketRecord& p) {
            ++perType[commandNameOf(h, p.type)];
            ++packets;
            payloadBytes += p.payload.size() + p.aux.size() + 8;
          });
        }
      }
    }
    progress.finish();
    // Unreadable resources are not "0 resources": the trace cannot be replayed as it stands.
    std::optional<uint64_t> resources;
    std::string resourcesError;
    if (auto records = reader.readResources()) {
      resources = 0;
      for (const auto& r : *records) *resources += r.resources.size();
    } else {
      resourcesError = records.error().message;
      std::fprintf(stderr, "warning: %s\n", resourcesError.c_str());
    }
    uint64_t raw = 0, compressed = 0;
    for (const trace::ChunkInfo& c : reader.chunks()) {
      raw += c.rawSize;
      compressed += c.compressedSize;
    }
    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size(path_, ec);
    const uint64_t firstNumber = reader.frameCount() ? reader.frameNumber(0) : 0;
    const uint64_t lastNumber = reader.frameCount() ? reader.frameNumber(reader.frameCount() - 1) : 0;

    if (json_) {
      JsonObject o;
      o.add("file", path_).add("format", std::to_string(h.formatMajor) + "." + std::to_string(h.formatMinor));
      o.add("reel_version", h.reelVersion).add("app", h.appName);
      std::string args;
      for (const auto& a : h.appArgs) args += (args.empty() ? "" : ",") + jsonString(a);
      o.raw("app_args", "[" + args + "]");
      o.add("device", h.device.name).add("driver", h.device.driver).add("vulkan", h.device.apiVersion);
      o.add("device_type", h.device.type).add("capture_time_ns", static_cast<int64_t>(h.captureTimeNs));
      o.add("frames", uint64_t{reader.frameCount()})
          .add("first_frame", firstNumber)
          .add("last_frame", lastNumber);
      if (resources) {
        o.add("resources_at_start", *resources);
      } else {
        o.raw("resources_at_start", "null").add("resources_error", resourcesError);
      }
      o.add("key_frames", uint64_t{reader.keyFrames().size()});
      o.add("packets", packets);
      JsonObject types;
      for (const auto& [type, count] : perType) types.add(type, count);
      o.raw("packets_per_type", types.str());
      o.add("packet_bytes", payloadBytes).add("raw_bytes", raw).add("compressed_bytes", compressed);
      o.add("file_bytes", fileBytes).add("chunks", uint64_t{reader.chunks().size()});
      o.add("index_intact", reader.hasIndex()).add("complete", reader.complete());
      o.add("unreadable_frames", frameErrors);
      std::printf("%s\n", o.str().c_str());
    } else {
      char when[64] = "unknown";
      const std::time_t seconds = static_cast<std::time_t>(h.captureTimeNs / 1000000000);
      if (std::tm tm{}; gmtime_r(&seconds, &tm))
        std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
      std::printf("trace      %s\n", path_.c_str());
      std::printf("format     %u.%u (written by reel %s)\n", h.formatMajor, h.formatMinor,
                  h.reelVersion.c_str());
      std::string args;
      for (const auto& a : h.appArgs) args += " " + a;
      std::printf("app        %s%s\n", h.appName.c_str(), args.c_str());
      std::printf("device     %s (%s, driver %s, Vulkan %s)\n", h.device.name.c_str(), h.device.type.c_str(),
                  h.device.driver.c_str(), h.device.apiVersion.c_str());
      std::printf("captured   %s\n", when);
      std::printf("frames     %zu (%" PRIu64 "-%" PRIu64 ")\n", reader.frameCount(), firstNumber, lastNumber);
      if (resources) {
        std::printf("resources  %" PRIu64 " alive at the first frame\n", *resources);
      } else {
        std::printf("resources  unreadable (%s)\n", resourcesError.c_str());
      }
      // Where a replay can start besides the capture start (format 1.4, CaptureOptions::keyFrames).
      std::printf("key frames %zu\n", reader.keyFrames().size());
      std::printf("packets    %" PRIu64 " (%" PRIu64 " bytes of keys, payloads and aux data)\n", packets,
                  payloadBytes);
      for (const auto& [type, count] : perType) std::printf("  %-22s %" PRIu64 "\n", type.c_str(), count);
      std::printf("size       %" PRIu64 " bytes raw, %" PRIu64
                  " compressed in %zu chunks (%.1fx), file %" PRIu64 " bytes\n",
                  raw, compressed, reader.chunks().size(),
                  compressed ? double(raw) / double(compressed) : 0.0, fileBytes);
      std::printf("index      %s\n", reader.hasIndex() ? "intact" : "missing (rebuilt by scanning)");
      std::printf("complete   %s\n", reader.complete() ? "yes" : "no (the writer did not finish)");
      if (frameErrors)
        std::printf("unreadable %" PRIu64 " frames (first: %s)\n", frameErrors, firstError.c_str());
    }
    // What info printed is all there is to a sound trace; anything it could not read is a trace with
    // errors, as `reel verify` would say (one warning line each went to stderr above).
    if (frameErrors) {
      std::fprintf(stderr, "warning: %s: %" PRIu64 " unreadable frames (first: %s)\n", path_.c_str(),
                   frameErrors, firstError.c_str());
    }
    return frameErrors || !resources ? kCheckFailed : kSuccess;
  }

 private:
  static std::string commandNameOf(const trace::TraceHeader& h, uint16_t type) {
    const trace::CommandDesc* d = h.command(type);
    return d ? std::string(d->name) : "command#" + std::to_string(type);
  }

  std::string path_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeInfoCommand() {
  return std::make_unique<InfoCommand>();
}

}  // namespace reel::cli
