// reel dump TRACE: every packet with its key decoded, its fields by name and its tag.

#include <cinttypes>
#include <cstdio>

#include "../progress.h"
#include "../trace_input.h"
#include "reel/json/json.h"
#include "reel/trace/declared_passes.h"
#include "reel/trace/frame_order.h"

namespace reel::cli {
namespace {

class DumpCommand final : public Subcommand {
 public:
  const char* name() const override { return "dump"; }
  const char* description() const override {
    return "Print packets: decoded key, type, fields by name, tag; in submission or sorted order";
  }
  void addOptions(CLI::App& app) override {
    app.add_option("TRACE", path_, "Trace file (.reel)")->required();
    app.add_option("--frame", frame_, "Only this frame number");
    app.add_flag("--sorted", sorted_,
                 "In the order the render thread dispatched (default: submission order)");
    app.add_option("--type", type_, "Only packets of this command type (e.g. DrawIndexed)");
    app.add_option("--tag", tag_, "Only packets whose tag message or source file contains this text");
    app.add_flag("--json", json_, "JSON Lines: one object per packet");
    app.add_flag("--progress", progress_, "Show progress on stderr even when it is not a terminal");
  }

  int run() override {
    trace::TraceReader reader = openTrace(path_);
    requireReadableFrames(reader);
    const trace::TraceHeader& h = reader.header();
    if (!type_.empty()) {
      bool known = false;
      for (const auto& c : h.commands) known |= c.name == type_;
      if (!known) throw BadInput("--type " + type_ + ": no such command in " + path_ + "'s command table");
    }
    size_t first = 0, last = reader.frameCount() ? reader.frameCount() - 1 : 0;
    if (frame_) std::tie(first, last) = frameRange(reader, std::to_string(*frame_));
    bool anyError = false;
    // On stderr: a dump's stdout is the packets, often piped on.
    Progress progress("dump", last - first + 1, progress_);
    for (size_t i = first; i <= last && i < reader.frameCount(); ++i) {
      progress.step(i - first);
      auto frame = reader.readFrame(i);
      if (!frame) {
        std::fprintf(stderr, "%s\n", frame.error().message.c_str());
        anyError = true;
        continue;
      }
      dumpFrame(h, *frame);
    }
    progress.step(last - first + 1);
    progress.finish();
    return anyError ? kCheckFailed : kSuccess;
  }

 private:
  void dumpFrame(const trace::TraceHeader& h, const trace::FrameRecord& frame) {
    for (size_t r = 0; r < frame.requests.size(); ++r) {
      const trace::RequestRecord& request = frame.requests[r];
      const trace::CommandDesc* desc = h.command(request.type);
      const std::string typeName = desc ? std::string(desc->name) : "command#" + std::to_string(request.type);
      if (!type_.empty() && typeName != type_) continue;
      if (!tag_.empty()) continue;  // requests carry no tags
      const std::string fields = h.formatPacket(request.type, request.payload);
      // A declared pass's aux data is its name (commands.inc).
      const bool named = typeName == commandName(CommandType::DeclarePass);
      const std::string_view text(reinterpret_cast<const char*>(request.aux.data()), request.aux.size());
      if (json_) {
        JsonObject o;
        o.add("frame", frame.number)
            .add("kind", "request")
            .add("position", uint64_t{r})
            .add("type", typeName);
        o.add("fields", fieldsOnly(fields, typeName)).add("aux_bytes", uint64_t{request.aux.size()});
        if (named) o.add("name", text);
        std::printf("%s\n", o.str().c_str());
      } else if (named) {
        std::printf("frame %" PRIu64 "  request %-4zu %s  \"%.*s\"\n", frame.number, r, fields.c_str(),
                    static_cast<int>(text.size()), text.data());
      } else {
        std::printf("frame %" PRIu64 "  request %-4zu %s  (%zu aux bytes)\n", frame.number, r, fields.c_str(),
                    request.aux.size());
      }
    }
    const trace::FrameOrder order = trace::orderFrame(frame);
    const auto& keys = sorted_ ? order.sorted : order.submission;
    for (const trace::OrderedKey& k : keys) {
      const trace::BucketRecord& bucket = frame.buckets[k.bucket];
      const uint64_t key = bucket.key(k.key);
      const std::string keyFields = trace::formatRecordedKey(h, bucket, k.key);
      uint64_t position = k.firstPacket;
      size_t link = 0;
      bucket.forEachInChain(k.key, [&](const trace::PacketRecord& p) {
        const trace::CommandDesc* desc = h.command(p.type);
        const std::string typeName = desc ? std::string(desc->name) : "command#" + std::to_string(p.type);
        const bool typeOk = type_.empty() || typeName == type_;
        const bool tagOk = tag_.empty() || (p.tag && (p.tag->message.find(tag_) != std::string_view::npos ||
                                                      p.tag->file.find(tag_) != std::string_view::npos));
        if (typeOk && tagOk) print(h, frame.number, bucket, key, keyFields, position, link, typeName, p);
        ++position;
        ++link;
      });
    }
  }

  // formatPacket prints "Type field=value ..."; the fields alone are the part after the type name.
  static std::string fieldsOnly(const std::string& formatted, const std::string& typeName) {
    if (formatted.rfind(typeName, 0) == 0)
      return formatted.size() > typeName.size() ? formatted.substr(typeName.size() + 1) : "";
    return formatted;
  }

  void print(const trace::TraceHeader& h, uint64_t frame, const trace::BucketRecord& bucket, uint64_t key,
             const std::string& keyFields, uint64_t position, size_t link, const std::string& typeName,
             const trace::PacketRecord& p) {
    const std::string fields = fieldsOnly(h.formatPacket(p.type, p.payload), typeName);
    char keyHex[24];
    std::snprintf(keyHex, sizeof keyHex, "0x%016" PRIx64, key);
    if (json_) {
      JsonObject o;
      o.add("frame", frame).add("kind", "packet").add(sorted_ ? "sorted_position" : "position", position);
      o.add("bucket", bucket.name)
          .add("key", keyHex)
          .add("key_fields", keyFields)
          .add("link", uint64_t{link});
      o.add("type", typeName).add("fields", fields).add("aux_bytes", uint64_t{p.aux.size()});
      if (p.shared) o.add("shared", true);
      if (p.tag) {
        JsonObject tag;
        tag.add("message", p.tag->message).add("file", p.tag->file).add("line", p.tag->line);
        tag.add("function", p.tag->function);
        o.raw("tag", tag.str());
      }
      std::printf("%s\n", o.str().c_str());
      return;
    }
    std::string tag;
    if (p.tag)
      tag = "  \"" + std::string(p.tag->message) + "\" (" + std::string(p.tag->file) + ":" +
            std::to_string(p.tag->line) + ")";
    const std::string aux = p.aux.empty() ? "" : "  aux " + std::to_string(p.aux.size()) + " bytes";
    const std::string bucketName(bucket.name);
    // A chained packet ("+") runs under the key of the packet before it.
    std::printf("frame %" PRIu64 "  %s %-6" PRIu64 " %s  %s %s[%s]  %s %s%s%s\n", frame,
                sorted_ ? "sorted" : "#", position, bucketName.c_str(), keyHex, link ? "+" : "",
                keyFields.c_str(), typeName.c_str(), fields.c_str(), aux.c_str(), tag.c_str());
  }

  std::string path_, type_, tag_;
  std::optional<uint64_t> frame_;
  bool sorted_ = false, json_ = false, progress_ = false;
};

}  // namespace

std::unique_ptr<Subcommand> makeDumpCommand() {
  return std::make_unique<DumpCommand>();
}

}  // namespace reel::cli
