#include "reel/replay/session.h"

#include <charconv>

#include "reel/image/texels.h"
#include "reel/runtime/cpu_time.h"
#include "reel/runtime/null_device.h"
#include "reel/vulkan/vulkan_device.h"

namespace reel::replay {
namespace {

bool parseNumber(std::string_view text, uint32_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// Adds the CPU and wall time of its scope to `times` (when there is one), the CPU time also to `part`.
class DecodeClock {
 public:
  DecodeClock(DecodeTimes* times, std::chrono::nanoseconds DecodeTimes::*part) : times_(times), part_(part) {
    if (times_) {
      cpu_ = threadCpuTime();
      wall_ = std::chrono::steady_clock::now();
    }
  }
  ~DecodeClock() {
    if (!times_) return;
    const std::chrono::nanoseconds cpu = threadCpuTime() - cpu_;
    times_->cpu += cpu;
    times_->*part_ += cpu;
    times_->wall += std::chrono::steady_clock::now() - wall_;
  }
  DecodeClock(const DecodeClock&) = delete;
  DecodeClock& operator=(const DecodeClock&) = delete;

 private:
  DecodeTimes* times_;
  std::chrono::nanoseconds DecodeTimes::*part_;
  std::chrono::nanoseconds cpu_{0};
  std::chrono::steady_clock::time_point wall_{};
};

}  // namespace

Result<TargetChoice> parseTarget(std::string_view text) {
  TargetChoice choice;
  if (text.empty() || text == "last") return choice;
  auto numbered = [&](std::string_view rest, TargetChoice::Kind kind) -> Result<TargetChoice> {
    choice.kind = kind;
    const size_t dot = rest.find('.');
    if (!parseNumber(rest.substr(0, dot), choice.index) ||
        (dot != std::string_view::npos && (kind != TargetChoice::Kind::RenderTarget ||
                                           !parseNumber(rest.substr(dot + 1), choice.attachment)))) {
      return fail("--target '", text, "': expected last, rt:N[.A], render_target#N, tex:N or texture#N");
    }
    return choice;
  };
  for (std::string_view prefix : {"rt:", "render_target#"}) {
    if (text.starts_with(prefix)) {
      return numbered(text.substr(prefix.size()), TargetChoice::Kind::RenderTarget);
    }
  }
  for (std::string_view prefix : {"tex:", "texture#"}) {
    if (text.starts_with(prefix)) return numbered(text.substr(prefix.size()), TargetChoice::Kind::Texture);
  }
  return fail("--target '", text, "': expected last, rt:N[.A], render_target#N, tex:N or texture#N");
}

Result<std::unique_ptr<ReplaySession>> ReplaySession::create(trace::TraceReader& reader,
                                                             const SessionOptions& options) {
  if (options.framesInFlight < 1 || options.framesInFlight > kMaxFramesInFlight) {
    return fail("frames in flight must be 1 to ", kMaxFramesInFlight, ", not ", options.framesInFlight);
  }
  std::unique_ptr<Device> device;
  VulkanDevice* vulkan = nullptr;
  if (options.device == "null") {
    device = std::make_unique<NullDevice>(/*recordCalls=*/false);
  } else {
    VulkanDeviceOptions vk;
    vk.applicationName = "reel replay";
    vk.deviceName = options.device;
    vk.validate = options.validate;
    vk.framesInFlight = options.framesInFlight;
    vk.collectTimings = options.collectTimings;
    if (options.configureDevice) options.configureDevice(vk);
    auto created = VulkanDevice::create(vk);
    if (!created) return created.error();
    vulkan = created.value().get();
    device = std::move(created.value());
  }
  auto session = std::unique_ptr<ReplaySession>(new ReplaySession(reader, std::move(device), options));
  session->vulkan_ = vulkan;
  if (auto ok = session->start(); !ok) return ok.error();
  return session;
}

ReplaySession::ReplaySession(trace::TraceReader& reader, std::unique_ptr<Device> device,
                             const SessionOptions& options)
    : reader_(reader), options_(options), device_(std::move(device)) {}

ReplaySession::~ReplaySession() {
  feeder_.reset();
  renderer_.reset();  // before the device it renders with
}

Result<void> ReplaySession::start() {
  if (reader_.frameCount() == 0) return fail(reader_.name(), ": the trace holds no frames");
  renderer_ = std::make_unique<Renderer>(
      *device_,
      RendererConfig{.framesInFlight = options_.framesInFlight, .firstFrameNumber = reader_.frameNumber(0)});
  auto feeder = FrameFeeder::create(*renderer_, reader_.header(), options_.edit, options_.keyEdit);
  if (!feeder) return fail(reader_.name(), ": ", feeder.error().message);
  feeder_ = std::move(feeder.value());
  return submitStartResources();
}

Result<void> ReplaySession::submitStartResources() {
  DecodeTimes* times = options_.collectTimings ? &decodeTimes_ : nullptr;
  Result<std::vector<trace::ResourcesRecord>> resources = Error{};
  {
    DecodeClock clock(times, &DecodeTimes::readCpu);
    resources = reader_.readResources();
    if (!resources) return resources.error();
  }
  {
    DecodeClock clock(times, &DecodeTimes::feedCpu);
    for (const auto& record : *resources) {
      if (auto ok = feeder_->submitResources(record); !ok) {
        return fail(reader_.name(), ": ", ok.error().message);
      }
    }
  }
  decodeTimes_.resources += resources->size();
  lastReplayed_.reset();
  return {};
}

Result<void> ReplaySession::restart() {
  // The renderer and the feeder stay: their buckets' memory is already faulted in (building them anew
  // for every --loop pass cost more page faults than decoding the frames), and nothing of a frame
  // outlives its kick but the resources, which are destroyed here and created again from the trace.
  feeder_->destroyAll();
  renderer_->kick();
  renderer_->flushAndWait();
  // The chunk the last frame came from, so that the reader can reuse its buffer.
  frame_.keepAlive.reset();
  return submitStartResources();
}

Result<TextureHandle> ReplaySession::chooseTexture(const trace::FrameRecord& frame, const FrameOrder& order,
                                                   uint64_t stopAfterPackets, const TargetChoice& choice,
                                                   std::string& name) {
  RenderTargetHandle target;
  uint32_t attachment = choice.attachment;
  if (choice.kind == TargetChoice::Kind::Texture) {
    // Any live texture with that slot (the generation is whichever the trace has alive now).
    for (uint32_t generation = 1; generation < 4096; ++generation) {
      const TextureHandle t = TextureHandle::make(choice.index, generation);
      if (feeder_->texture(t)) {
        name = "texture#" + std::to_string(choice.index);
        return t;
      }
    }
    return fail("frame ", frame.number, ": texture #", choice.index, " is not alive");
  }
  if (choice.kind == TargetChoice::Kind::RenderTarget) {
    for (uint32_t generation = 1; generation < 4096 && target.isNull(); ++generation) {
      if (feeder_->renderTarget(RenderTargetHandle::make(choice.index, generation))) {
        target = RenderTargetHandle::make(choice.index, generation);
      }
    }
    if (target.isNull()) {
      return fail("frame ", frame.number, ": render target #", choice.index, " is not alive");
    }
  } else {
    // The render pass that ran last: the last BeginRenderPass at or before the stop.
    for (const OrderedKey& k : order.sorted) {
      uint64_t position = k.firstPacket;
      frame.buckets[k.bucket].forEachInChain(k.key, [&](const trace::PacketRecord& p) {
        if (position++ >= stopAfterPackets) return;
        cmd::BeginRenderPass begin;
        if (p.type < reader_.header().commands.size() &&
            reader_.header().commands[p.type].name == "BeginRenderPass" && p.payload.size() == sizeof begin) {
          std::memcpy(&begin, p.payload.data(), sizeof begin);
          target = begin.target;
        }
      });
    }
    if (target.isNull()) {
      return fail("frame ", frame.number, ": no render pass ran, so there is no target to read");
    }
    attachment = 0;
  }
  const RenderTargetDesc* desc = feeder_->renderTarget(target);
  if (!desc) return fail("frame ", frame.number, ": render target #", target.index(), " is not alive");
  if (attachment >= desc->colorCount) {
    return fail("frame ", frame.number, ": render target #", target.index(), " has ", desc->colorCount,
                " color attachments, not ", attachment + 1);
  }
  const TextureHandle texture = desc->colors[attachment];
  name = "render_target#" + std::to_string(target.index()) + " color " + std::to_string(attachment) +
         " (texture#" + std::to_string(texture.index()) + ")";
  return texture;
}

bool ReplaySession::present(const trace::FrameRecord& frame, const FrameOrder& order,
                            uint64_t stopAfterPackets, const TargetChoice& choice) {
  if (!device_->presents()) return false;
  std::string name;
  auto texture = chooseTexture(frame, order, stopAfterPackets, choice, name);
  if (!texture) return false;
  // The frame about to be kicked; earlier frames may still be ending on the render thread.
  device_->setPresentSource(*texture, renderer_->recordingFrame());
  return true;
}

Result<FrameResult> ReplaySession::replayFrame(size_t index, uint64_t stopAfterPackets,
                                               std::optional<TargetChoice> readback) {
  if (index >= reader_.frameCount()) {
    return fail(reader_.name(), ": frame index ", index, " is past the trace's ", reader_.frameCount(),
                " frames");
  }
  if (lastReplayed_ && index <= *lastReplayed_) {
    if (auto ok = restart(); !ok) return ok.error();
  }
  const size_t from = lastReplayed_ ? *lastReplayed_ + 1 : 0;
  FrameResult result;
  for (size_t i = from; i <= index; ++i) {
    DecodeTimes* times = options_.collectTimings ? &decodeTimes_ : nullptr;
    // One record for every frame: its buffers keep their size, so decoding a frame allocates nothing.
    trace::FrameRecord* frame = &frame_;
    {
      DecodeClock clock(times, &DecodeTimes::readCpu);
      if (auto ok = reader_.readFrame(i, frame_); !ok) return ok.error();
    }
    {
      DecodeClock clock(times, &DecodeTimes::feedCpu);
      if (auto ok = feeder_->submitFrame(*frame); !ok) return fail(reader_.name(), ": ", ok.error().message);
    }
    ++decodeTimes_.frames;
    lastReplayed_ = i;
    if (i < index) {
      renderer_->kick();
      continue;
    }
    result.frame = frame->number;
    result.packets = frame->packetCount();
    result.executed = std::min<uint64_t>(result.packets, stopAfterPackets);
    // The frame's sorted order only when a target must be found in it: sorting 400k keys on this
    // thread cost as much as feeding them.
    std::optional<FrameOrder> order;
    if (readback || options_.present) order = orderFrame(*frame);
    std::optional<TextureHandle> texture;
    if (readback) {
      auto chosen = chooseTexture(*frame, *order, stopAfterPackets, *readback, result.target);
      if (!chosen) return chosen.error();
      texture = *chosen;
    }
    if (options_.present) result.presented = present(*frame, *order, stopAfterPackets, *options_.present);
    renderer_->kick({.stopAfterPackets = stopAfterPackets});
    if (texture) {
      const TextureDesc* desc = feeder_->texture(*texture);
      if (!desc) return fail("frame ", frame->number, ": texture #", texture->index(), " is not alive");
      auto texels = renderer_->withIdleDevice([&](Device& d) { return d.readTexture(*texture, 0); });
      if (!texels) {
        return fail("frame ", frame->number, ": reading back ", result.target, ": ", texels.error().message);
      }
      auto image = image::fromTexels(desc->width, desc->height, desc->format, *texels);
      if (!image) return fail("frame ", frame->number, ": ", result.target, ": ", image.error().message);
      result.image = std::move(image.value());
    }
  }
  return result;
}

}  // namespace reel::replay
