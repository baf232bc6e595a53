#include "model/stepping_replay.h"

#include <chrono>

#include "model/packet_fields.h"

namespace reel::viewer {
namespace {

double msBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

Result<std::unique_ptr<SteppingReplay>> SteppingReplay::open(const std::string& tracePath,
                                                             const DeviceChoice& device) {
  replay::SessionOptions options;
  options.device = device.name;
  options.validate = device.validate;
  options.applicationName = "reel-viewer";
  auto engine = replay::ReplaySession::open(tracePath, options);
  std::string note;
  if (!engine && device.name.empty()) {
    // A trace that cannot be read fails the same way on any device; only a device that cannot start
    // falls back to the null device, which still shows requests and copies.
    if (auto reader = trace::TraceReader::open(tracePath); !reader) return reader.error();
    note = "Vulkan could not start (" + engine.error().message +
           "): replaying on the null device, which does not rasterize";
    options.device = "null";
    engine = replay::ReplaySession::open(tracePath, options);
  }
  if (!engine) {
    if (device.name.empty() || device.name == "null") return engine.error();
    return fail("device '", device.name, "': ", engine.error().message);
  }
  std::unique_ptr<SteppingReplay> session(new SteppingReplay(std::move(engine.value())));
  session->deviceNote_ = std::move(note);
  session->usingNull_ = options.device == "null";
  return session;
}

void SteppingReplay::readBack(const ReplayRequest& request, ReplayOutcome& outcome) {
  const replay::FrameFeeder& live = engine_->feeder();
  for (const ImageSource& source : request.images) {
    ImageReadback r;
    r.source = source;
    r.texture = source.handle;
    if (source.kind != ImageSource::Kind::Texture) {
      const std::optional<RenderTargetDesc> target = live.desc(RenderTargetHandle{source.handle});
      if (!target) {
        r.error = handleName(ResourceKind::RenderTarget, source.handle) + " is not alive in this frame";
        outcome.images.push_back(std::move(r));
        continue;
      }
      // A target without color attachments (a depth-only pass: a shadow map) shows its depth.
      r.depth = source.kind == ImageSource::Kind::TargetDepth ||
                (target->colorCount == 0 && !target->depth.isNull());
      if (r.depth) {
        r.texture = target->depth.value;
        if (target->depth.isNull())
          r.error = handleName(ResourceKind::RenderTarget, source.handle) + " has no depth attachment";
      } else if (source.attachment >= target->colorCount || source.attachment >= 4) {
        r.error = handleName(ResourceKind::RenderTarget, source.handle) + " has no color attachment " +
                  std::to_string(source.attachment);
      } else {
        r.texture = target->colors[source.attachment].value;
      }
    }
    if (r.error.empty() && !live.desc(TextureHandle{r.texture})) {
      r.error = handleName(ResourceKind::Texture, r.texture) + " is not alive in this frame";
    }
    if (r.error.empty()) {
      if (auto contents = engine_->readTexture(TextureHandle{r.texture})) {
        r.desc = contents->desc;
        r.texels = std::move(contents->texels);
      } else {
        r.error = contents.error().message;
      }
    }
    outcome.images.push_back(std::move(r));
  }
  for (const uint32_t buffer : request.buffers) {
    BufferReadback b;
    b.buffer = buffer;
    if (!live.live(ResourceKind::Buffer, buffer)) {
      b.error = handleName(ResourceKind::Buffer, buffer) + " is not alive in this frame";
    } else if (auto bytes = engine_->readBuffer(BufferHandle{buffer})) {
      b.bytes = std::move(bytes.value());
    } else {
      b.error = bytes.error().message;
    }
    outcome.buffers.push_back(std::move(b));
  }
}

Result<ReplayOutcome> SteppingReplay::run(const ReplayRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  auto position = engine_->seek(request.frameIndex, request.stopAfterPackets);
  if (!position) return position.error();
  ReplayOutcome outcome;
  outcome.path = position->path;
  outcome.framesReplayed = position->framesReplayed;
  outcome.packetsRun = position->packetsRun;
  outcome.prefixPackets = position->prefixPackets;
  outcome.checkpointBytes = position->checkpointBytes;
  outcome.restoreMs = position->restoreMs;
  outcome.earlierFramesMs = position->earlierFramesMs;
  outcome.checkpointMs = position->checkpointMs;
  outcome.feedMs = position->feedMs;
  outcome.executeMs = position->executeMs;
  const auto replayed = std::chrono::steady_clock::now();
  readBack(request, outcome);
  const auto done = std::chrono::steady_clock::now();
  outcome.readbackMs = msBetween(replayed, done);
  outcome.deviceErrors = engine_->takeDeviceErrors();
  const auto mismatches = engine_->feeder().sortMismatches();
  for (size_t i = mismatchesSeen_; i < mismatches.size(); ++i) {
    outcome.sortMismatches.push_back("frame " + std::to_string(mismatches[i].frame) +
                                     ": replayed sorted order " + std::to_string(mismatches[i].replayed) +
                                     ", recorded " + std::to_string(mismatches[i].recorded));
  }
  mismatchesSeen_ = mismatches.size();
  outcome.milliseconds = msBetween(started, done);
  return outcome;
}

}  // namespace reel::viewer
