#include "model/stepping_replay.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "model/packet_fields.h"
#include "reel/runtime/null_device.h"
#include "reel/vulkan/vulkan_device.h"

namespace reel::viewer {
namespace {

double msBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

uint32_t firstWord(std::span<const std::byte> payload) {
  uint32_t v = 0;
  std::memcpy(&v, payload.data(), std::min(payload.size(), sizeof v));
  return v;
}

template <Command T>
T packetAs(const std::vector<std::byte>& bytes) {
  T packet{};
  std::memcpy(static_cast<void*>(&packet), bytes.data(), std::min(bytes.size(), sizeof packet));
  return packet;
}

bool destroyHandle(ResourceContext& rc, ResourceKind kind, uint32_t value) {
  switch (kind) {
    case ResourceKind::Buffer:
      return rc.destroy(BufferHandle{value});
    case ResourceKind::Texture:
      return rc.destroy(TextureHandle{value});
    case ResourceKind::Sampler:
      return rc.destroy(SamplerHandle{value});
    case ResourceKind::Shader:
      return rc.destroy(ShaderHandle{value});
    case ResourceKind::Pipeline:
      return rc.destroy(PipelineHandle{value});
    case ResourceKind::RenderTarget:
      return rc.destroy(RenderTargetHandle{value});
    case ResourceKind::Count:
      break;
  }
  return false;
}

}  // namespace

const char* replayPathName(ReplayPath path) {
  switch (path) {
    case ReplayPath::Continued:
      return "continued";
    case ReplayPath::Restored:
      return "restored";
    case ReplayPath::Forward:
      return "forward";
    case ReplayPath::FromStart:
      return "from start";
  }
  return "?";
}

Result<std::unique_ptr<SteppingReplay>> SteppingReplay::open(const std::string& tracePath,
                                                             const DeviceChoice& device) {
  auto reader = trace::TraceReader::open(tracePath);
  if (!reader) return reader.error();
  std::unique_ptr<SteppingReplay> session(new SteppingReplay(std::move(reader.value()), device));
  auto resources = session->reader_.readResources();
  if (!resources) return resources.error();
  session->captureStart_ = std::move(resources.value());
  if (auto ok = session->start(); !ok) return ok.error();
  return session;
}

SteppingReplay::~SteppingReplay() {
  stop();
}

void SteppingReplay::stop() {
  feeder_.reset();  // flushes the renderer
  renderer_.reset();
  device_.reset();
}

std::optional<CommandType> SteppingReplay::mapType(uint16_t traceType) const {
  // The rule FrameFeeder applies: same name, size and layout hash as this build's command.
  const trace::CommandDesc* desc = reader_.header().command(traceType);
  if (!desc) return std::nullopt;
  const CommandInfo* ours = findCommand(desc->name);
  if (!ours || ours->layoutHash != desc->layoutHash || ours->size != desc->size) return std::nullopt;
  return ours->type;
}

Result<void> SteppingReplay::start() {
  stop();
  usingNull_ = false;
  deviceNote_.clear();
  if (choice_.name == "null") {
    device_ = std::make_unique<NullDevice>(false);
    usingNull_ = true;
  } else {
    VulkanDeviceOptions options;
    options.applicationName = "reel-viewer";
    options.deviceName = choice_.name;
    options.validate = choice_.validate;
    auto vulkan = VulkanDevice::create(options);
    if (vulkan) {
      device_ = std::move(vulkan.value());
    } else if (choice_.name.empty()) {
      deviceNote_ = "Vulkan could not start (" + vulkan.error().message +
                    "): replaying on the null device, which does not rasterize";
      device_ = std::make_unique<NullDevice>(false);
      usingNull_ = true;
    } else {
      return fail("device '", choice_.name, "': ", vulkan.error().message);
    }
  }
  renderer_ = std::make_unique<Renderer>(*device_);
  // Created before the feeder's buckets and empty in every frame but the continued ones: it changes
  // neither the merge order of the recorded buckets nor the sorted-order hash.
  // A replay's bucket: the packets go in as the trace's bytes.
  auto stepBucket = std::make_unique<replay::RecordedBucket>("viewer: continued step");
  stepBucket_ = stepBucket.get();
  renderer_->adoptBucket(std::move(stepBucket));
  auto feeder = replay::FrameFeeder::create(*renderer_, reader_.header());
  if (!feeder) return feeder.error();
  feeder_ = std::move(feeder.value());
  live_.clear();
  checkpoint_ = {};
  partialCreated_.clear();
  completed_ = 0;
  dirty_ = false;
  partialStop_ = 0;
  mismatchesSeen_ = 0;
  broken_ = true;  // until the capture-start resources are in

  // The capture-start resources get a frame of their own, so that the state at the start of the
  // first trace frame is a state the checkpoint can restore (and its pipelines are built once).
  for (const trace::ResourcesRecord& record : captureStart_) {
    if (auto ok = feeder_->submitResources(record); !ok) return ok.error();
    for (const trace::LiveResourceRecord& r : record.resources) {
      const auto type = mapType(r.createType);
      const auto request = type ? resourceRequestOf(*type) : std::nullopt;
      if (!request || !request->creates) continue;
      Live live{*type, {r.create.begin(), r.create.end()}, {r.code.begin(), r.code.end()}};
      live_[liveKey(request->kind, firstWord(r.create))] = std::move(live);
    }
  }
  renderer_->kick();
  renderer_->flushAndWait();
  broken_ = false;
  freshStart_ = true;
  return {};
}

void SteppingReplay::applyRequests(const trace::FrameRecord& frame, bool destroys,
                                   std::vector<uint64_t>* created) {
  for (const trace::RequestRecord& request : frame.requests) {
    const auto type = mapType(request.type);
    if (!type) continue;
    const auto resource = resourceRequestOf(*type);
    if (!resource) continue;
    const uint64_t key = liveKey(resource->kind, firstWord(request.payload));
    if (resource->creates) {
      live_[key] = Live{*type, {request.payload.begin(), request.payload.end()}, {}};
      if (created) created->push_back(key);
    } else if (destroys) {
      live_.erase(key);
    }
  }
}

Result<void> SteppingReplay::replayWhole(size_t frameIndex) {
  auto frame = reader_.readFrame(frameIndex);
  if (!frame) return frame.error();
  if (auto ok = feeder_->submitFrame(frame.value()); !ok) return ok;
  renderer_->kick();
  applyRequests(frame.value(), true, nullptr);
  return {};
}

Result<void> SteppingReplay::loadFrame(size_t frameIndex) {
  if (loadedIndex_ == frameIndex) return {};
  loadedIndex_.reset();
  auto frame = reader_.readFrame(frameIndex);
  if (!frame) return frame.error();
  loaded_ = std::move(frame.value());
  loadedTable_ = std::make_unique<FrameTable>(FrameTable::build(loaded_));
  loadedIndex_ = frameIndex;
  return {};
}

Result<void> SteppingReplay::replayPartial(size_t frameIndex, uint64_t stopAfterPackets,
                                           ReplayOutcome& outcome) {
  const auto started = std::chrono::steady_clock::now();
  if (auto ok = loadFrame(frameIndex); !ok) return ok;
  // Without the frame's destroys: what it used stays alive to be read back, and restoring is then only
  // destroying what it created and rewriting contents.
  // (The request list is swapped for the filtered one while the frame is fed: the buckets stay put.)
  std::vector<trace::RequestRecord> all = std::move(loaded_.requests);
  loaded_.requests.clear();
  for (const trace::RequestRecord& request : all) {
    const auto type = mapType(request.type);
    const auto resource = type ? resourceRequestOf(*type) : std::nullopt;
    if (resource && !resource->creates) continue;
    loaded_.requests.push_back(request);
  }
  dirty_ = true;  // from here on the state is not a frame start, even if the submit fails half way
  auto submitted = feeder_->submitFrame(loaded_);
  partialCreated_.clear();
  applyRequests(loaded_, false, &partialCreated_);
  loaded_.requests = std::move(all);
  if (!submitted) return submitted;
  const auto fed = std::chrono::steady_clock::now();
  FrameOptions options;
  options.stopAfterPackets = stopAfterPackets;
  renderer_->kick(options);
  renderer_->flushAndWait();
  outcome.feedMs = msBetween(started, fed);
  outcome.executeMs = msBetween(fed, std::chrono::steady_clock::now());
  outcome.packetsRun = std::min<uint64_t>(stopAfterPackets, loadedTable_->size());
  partialStop_ = outcome.packetsRun;
  return {};
}

Result<void> SteppingReplay::continueFrame(uint64_t stopAfterPackets, ReplayOutcome& outcome) {
  const auto started = std::chrono::steady_clock::now();
  const FrameTable& table = *loadedTable_;
  const uint64_t end = std::min<uint64_t>(stopAfterPackets, table.size());
  // The device's per-frame state at partialStop_: the open pass, and the last packet of each binding.
  int64_t openPass = -1;                   // sorted position of the open pass's BeginRenderPass
  std::map<uint64_t, uint32_t> lastState;  // (type, slot or bind point) -> sorted position
  std::vector<uint32_t> pushes;
  std::vector<uint32_t> markers;  // DebugMarkerBegin still open: their ends may come in this step
  for (uint32_t pos = 0; pos < partialStop_; ++pos) {
    const trace::PacketRecord p = packetOf(loaded_, table.row(table.sortedOrder()[pos]));
    const auto type = mapType(p.type);
    if (!type)
      return fail("frame ", loaded_.number, ": packet ", pos, " has a command this build cannot replay");
    auto slotAt = [&](size_t offset) {
      uint32_t slot = 0;
      if (offset + sizeof slot <= p.payload.size())
        std::memcpy(&slot, p.payload.data() + offset, sizeof slot);
      return uint64_t{slot};
    };
    const uint64_t t = uint64_t(*type) << 32;
    switch (*type) {
      case CommandType::BeginRenderPass:
        openPass = pos;
        break;
      case CommandType::EndRenderPass:
        openPass = -1;
        break;
      case CommandType::BindPipeline: {
        // Graphics and compute pipelines bind to different points.
        cmd::BindPipeline bind{};
        std::memcpy(&bind, p.payload.data(), std::min(p.payload.size(), sizeof bind));
        const auto it = live_.find(liveKey(ResourceKind::Pipeline, bind.pipeline.value));
        const bool compute = it != live_.end() &&
                             !packetAs<cmd::CreatePipeline>(it->second.create).desc.computeShader.isNull();
        lastState[t | (compute ? 1u : 0u)] = pos;
        break;
      }
      case CommandType::BindVertexBuffer:
        lastState[t | slotAt(offsetof(cmd::BindVertexBuffer, slot))] = pos;
        break;
      case CommandType::BindTexture:
        lastState[t | slotAt(offsetof(cmd::BindTexture, slot))] = pos;
        break;
      case CommandType::BindUniformBuffer:
        lastState[t | slotAt(offsetof(cmd::BindUniformBuffer, slot))] = pos;
        break;
      case CommandType::BindStorageBuffer:
        lastState[t | slotAt(offsetof(cmd::BindStorageBuffer, slot))] = pos;
        break;
      case CommandType::BindIndexBuffer:
      case CommandType::SetViewport:
      case CommandType::SetScissor:
        lastState[t] = pos;
        break;
      case CommandType::PushConstants:
        pushes.push_back(pos);
        break;
      case CommandType::DebugMarkerBegin:
        markers.push_back(pos);
        break;
      case CommandType::DebugMarkerEnd:
        if (!markers.empty()) markers.pop_back();
        break;
      default:
        break;
    }
  }
  std::vector<uint32_t> prefix = pushes;
  prefix.insert(prefix.end(), markers.begin(), markers.end());
  for (const auto& [key, pos] : lastState) prefix.push_back(pos);
  if (openPass >= 0) prefix.push_back(static_cast<uint32_t>(openPass));
  std::sort(prefix.begin(), prefix.end());  // in their sorted order, as the device first saw them

  uint64_t key = 0;
  auto add = [&](uint32_t pos, bool load) -> Result<void> {
    const trace::PacketRecord p = packetOf(loaded_, table.row(table.sortedOrder()[pos]));
    const auto type = mapType(p.type);
    if (!type)
      return fail("frame ", loaded_.number, ": packet ", pos, " has a command this build cannot replay");
    if (load && *type == CommandType::BeginRenderPass) {
      // The pass's clear ran when the last step ended it: begin it again on what it left.
      cmd::BeginRenderPass begin{};
      std::memcpy(static_cast<void*>(&begin), p.payload.data(), sizeof begin);
      begin.colorLoad = LoadOp::Load;
      begin.depthLoad = LoadOp::Load;
      stepBucket_->addBytes(key++, *type, {reinterpret_cast<const std::byte*>(&begin), sizeof begin}, p.aux);
    } else {
      stepBucket_->addBytes(key++, *type, p.payload, p.aux);
    }
    return {};
  };
  for (const uint32_t pos : prefix) {
    if (auto ok = add(pos, true); !ok) return ok;
  }
  for (uint64_t pos = partialStop_; pos < end; ++pos) {
    if (auto ok = add(static_cast<uint32_t>(pos), false); !ok) return ok;
  }
  const auto fed = std::chrono::steady_clock::now();
  renderer_->kick();
  renderer_->flushAndWait();
  outcome.feedMs = msBetween(started, fed);
  outcome.executeMs = msBetween(fed, std::chrono::steady_clock::now());
  outcome.prefixPackets = prefix.size();
  outcome.packetsRun = end - partialStop_;
  partialStop_ = end;
  return {};
}

Result<void> SteppingReplay::takeCheckpoint(size_t frameIndex) {
  checkpoint_ = {};
  checkpoint_.frameIndex = frameIndex;
  std::string error;
  renderer_->withIdleDevice([&](Device& device) {
    for (const auto& [key, live] : live_) {
      const uint32_t handle = static_cast<uint32_t>(key);
      std::vector<std::vector<std::byte>> contents;
      if (live.createType == CommandType::CreateBuffer) {
        auto bytes = device.readBuffer(BufferHandle{handle});
        if (!bytes) {
          error = bytes.error().message;
          return;
        }
        contents.push_back(std::move(bytes.value()));
      } else if (live.createType == CommandType::CreateTexture) {
        const auto create = packetAs<cmd::CreateTexture>(live.create);
        for (uint32_t mip = 0; mip < std::max(1u, create.desc.mipLevels); ++mip) {
          auto texels = device.readTexture(TextureHandle{handle}, mip);
          if (!texels) {
            error = texels.error().message;
            return;
          }
          contents.push_back(std::move(texels.value()));
        }
      } else {
        continue;
      }
      for (const auto& c : contents) checkpoint_.bytes += c.size();
      checkpoint_.contents[key] = std::move(contents);
    }
  });
  if (!error.empty()) {
    checkpoint_ = {};
    return fail("checkpoint at frame ", reader_.frameNumber(frameIndex), ": ", error);
  }
  checkpoint_.valid = true;
  return {};
}

Result<void> SteppingReplay::restoreCheckpoint() {
  ResourceContext& rc = renderer_->resources();
  for (const uint64_t key : partialCreated_) {
    const auto kind = static_cast<ResourceKind>(key >> 32);
    if (!destroyHandle(rc, kind, static_cast<uint32_t>(key))) {
      return fail("restoring frame ", reader_.frameNumber(checkpoint_.frameIndex), ": ",
                  handleName(kind, static_cast<uint32_t>(key)), " cannot be destroyed");
    }
    live_.erase(key);
  }
  partialCreated_.clear();
  for (const auto& [key, contents] : checkpoint_.contents) {
    const uint32_t handle = static_cast<uint32_t>(key);
    const auto it = live_.find(key);
    if (it == live_.end()) continue;
    bool ok = true;
    if (it->second.createType == CommandType::CreateBuffer) {
      ok = contents[0].empty() || rc.writeBuffer(BufferHandle{handle}, 0, contents[0]);
    } else {
      const auto create = packetAs<cmd::CreateTexture>(it->second.create);
      for (uint32_t mip = 0; mip < contents.size() && ok; ++mip) {
        const uint32_t w = std::max(1u, create.desc.width >> mip),
                       h = std::max(1u, create.desc.height >> mip);
        ok = rc.writeTexture(TextureHandle{handle}, mip, 0, 0, w, h, contents[mip]);
      }
    }
    if (!ok) {
      return fail("restoring frame ", reader_.frameNumber(checkpoint_.frameIndex), ": ",
                  handleName(static_cast<ResourceKind>(key >> 32), handle), " cannot be written");
    }
  }
  renderer_->kick();
  renderer_->flushAndWait();  // before the next submitFrame: the feeder pairs kicks with recorded frames
  dirty_ = false;
  partialStop_ = 0;
  return {};
}

void SteppingReplay::readBack(const ReplayRequest& request, ReplayOutcome& outcome) {
  auto textureDesc = [&](uint32_t handle, TextureDesc& desc) {
    const auto it = live_.find(liveKey(ResourceKind::Texture, handle));
    if (it == live_.end()) return false;
    desc = packetAs<cmd::CreateTexture>(it->second.create).desc;
    return true;
  };
  renderer_->withIdleDevice([&](Device& device) {
    for (const ImageSource& source : request.images) {
      ImageReadback r;
      r.source = source;
      r.texture = source.handle;
      if (source.kind != ImageSource::Kind::Texture) {
        const auto it = live_.find(liveKey(ResourceKind::RenderTarget, source.handle));
        if (it == live_.end()) {
          r.error = handleName(ResourceKind::RenderTarget, source.handle) + " is not alive in this frame";
          outcome.images.push_back(std::move(r));
          continue;
        }
        const RenderTargetDesc target = packetAs<cmd::CreateRenderTarget>(it->second.create).desc;
        if (source.kind == ImageSource::Kind::TargetDepth) {
          r.texture = target.depth.value;
          if (target.depth.isNull())
            r.error = handleName(ResourceKind::RenderTarget, source.handle) + " has no depth attachment";
        } else if (source.attachment >= target.colorCount || source.attachment >= 4) {
          r.error = handleName(ResourceKind::RenderTarget, source.handle) + " has no color attachment " +
                    std::to_string(source.attachment);
        } else {
          r.texture = target.colors[source.attachment].value;
        }
      }
      if (r.error.empty() && !textureDesc(r.texture, r.desc)) {
        r.error = handleName(ResourceKind::Texture, r.texture) + " is not alive in this frame";
      }
      if (r.error.empty()) {
        auto texels = device.readTexture(TextureHandle{r.texture}, 0);
        if (texels) {
          r.texels = std::move(texels.value());
        } else {
          r.error = texels.error().message;
        }
      }
      outcome.images.push_back(std::move(r));
    }
    for (const uint32_t buffer : request.buffers) {
      BufferReadback b;
      b.buffer = buffer;
      if (!live_.count(liveKey(ResourceKind::Buffer, buffer))) {
        b.error = handleName(ResourceKind::Buffer, buffer) + " is not alive in this frame";
      } else if (auto bytes = device.readBuffer(BufferHandle{buffer})) {
        b.bytes = std::move(bytes.value());
      } else {
        b.error = bytes.error().message;
      }
      outcome.buffers.push_back(std::move(b));
    }
  });
}

Result<ReplayOutcome> SteppingReplay::run(const ReplayRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  if (request.frameIndex >= reader_.frameCount()) {
    return fail(reader_.name(), ": no frame index ", request.frameIndex, " (", reader_.frameCount(),
                " frames)");
  }
  ReplayOutcome outcome;
  auto mark = std::chrono::steady_clock::now();
  auto lap = [&mark] {
    const auto now = std::chrono::steady_clock::now();
    const double ms = msBetween(mark, now);
    mark = now;
    return ms;
  };
  const bool canContinue = !broken_ && dirty_ && request.frameIndex == completed_ &&
                           loadedIndex_ == completed_ && request.stopAfterPackets >= partialStop_;
  const bool canRestore = checkpoint_.valid && checkpoint_.frameIndex == completed_;
  const bool restart =
      !canContinue && (broken_ || request.frameIndex < completed_ || (dirty_ && !canRestore));
  if (restart) {
    if (auto ok = start(); !ok) return ok.error();
  }
  outcome.path = freshStart_ ? ReplayPath::FromStart : ReplayPath::Restored;
  freshStart_ = false;
  // Whatever fails below leaves a state that only a new start can trust.
  broken_ = true;
  if (canContinue) {
    // Forward within the frame (or the same step again): only the packets after the last step's end.
    outcome.path = ReplayPath::Continued;
    if (request.stopAfterPackets > partialStop_ && partialStop_ < loadedTable_->size()) {
      if (auto ok = continueFrame(request.stopAfterPackets, outcome); !ok) return ok.error();
    }
    lap();
    readBack(request, outcome);
    outcome.readbackMs = lap();
    broken_ = false;
    return finish(outcome, started);
  }
  if (dirty_) {
    if (auto ok = restoreCheckpoint(); !ok) return ok.error();
  }
  outcome.restoreMs = lap();
  while (completed_ < request.frameIndex) {
    if (auto ok = replayWhole(completed_); !ok) return ok.error();
    ++completed_;
    ++outcome.framesReplayed;
    if (outcome.path == ReplayPath::Restored) outcome.path = ReplayPath::Forward;
  }
  outcome.earlierFramesMs = lap();
  if (!checkpoint_.valid || checkpoint_.frameIndex != request.frameIndex) {
    // A checkpoint that cannot be taken only costs speed: the next step starts over.
    if (auto ok = takeCheckpoint(request.frameIndex); ok) outcome.checkpointBytes = checkpoint_.bytes;
  }
  outcome.checkpointMs = lap();
  if (auto ok = replayPartial(request.frameIndex, request.stopAfterPackets, outcome); !ok) return ok.error();
  ++outcome.framesReplayed;
  lap();
  readBack(request, outcome);
  outcome.readbackMs = lap();
  broken_ = false;
  return finish(outcome, started);
}

ReplayOutcome SteppingReplay::finish(ReplayOutcome& outcome, std::chrono::steady_clock::time_point started) {
  outcome.deviceErrors = device_->takeErrors();
  const auto mismatches = feeder_->sortMismatches();
  for (size_t i = mismatchesSeen_; i < mismatches.size(); ++i) {
    outcome.sortMismatches.push_back("frame " + std::to_string(mismatches[i].frame) +
                                     ": replayed sorted order " + std::to_string(mismatches[i].replayed) +
                                     ", recorded " + std::to_string(mismatches[i].recorded));
  }
  mismatchesSeen_ = mismatches.size();
  outcome.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return std::move(outcome);
}

}  // namespace reel::viewer
