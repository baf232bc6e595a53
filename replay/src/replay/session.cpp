#include "reel/replay/session.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "bound_state.h"
#include "frame_prefetcher.h"
#include "reel/image/texels.h"
#include "reel/replay/recorded_bucket.h"
#include "reel/runtime/cpu_time.h"
#include "reel/runtime/live_resources.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/declared_passes.h"
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

double msSince(std::chrono::steady_clock::time_point& mark) {
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - mark).count();
  mark = now;
  return ms;
}

}  // namespace

const char* seekPathName(SeekPath path) {
  switch (path) {
    case SeekPath::Continued:
      return "continued";
    case SeekPath::Restored:
      return "restored";
    case SeekPath::Forward:
      return "forward";
    case SeekPath::FromStart:
      return "from start";
    case SeekPath::KeyFrame:
      return "from key frame";
  }
  return "?";
}

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

Result<std::unique_ptr<Device>> ReplaySession::makeDevice(const SessionOptions& options,
                                                          VulkanDevice*& vulkan) {
  vulkan = nullptr;
  if (options.device == "null")
    return std::unique_ptr<Device>(std::make_unique<NullDevice>(/*recordCalls=*/false));
  VulkanDeviceOptions vk;
  vk.applicationName = options.applicationName;
  vk.deviceName = options.device;
  vk.validate = options.validate;
  vk.framesInFlight = options.framesInFlight;
  vk.collectTimings = options.collectTimings;
  if (options.configureDevice) options.configureDevice(vk);
  auto created = VulkanDevice::create(vk);
  if (!created) return created.error();
  vulkan = created.value().get();
  return std::unique_ptr<Device>(std::move(created.value()));
}

Result<std::unique_ptr<ReplaySession>> ReplaySession::create(trace::TraceReader& reader,
                                                             const SessionOptions& options) {
  if (options.framesInFlight < 1 || options.framesInFlight > kMaxFramesInFlight) {
    return fail("frames in flight must be 1 to ", kMaxFramesInFlight, ", not ", options.framesInFlight);
  }
  VulkanDevice* vulkan = nullptr;
  auto device = makeDevice(options, vulkan);
  if (!device) return device.error();
  auto session = std::unique_ptr<ReplaySession>(new ReplaySession(reader, *device.value(), options));
  session->ownedDevice_ = std::move(device.value());
  session->vulkan_ = vulkan;
  if (auto ok = session->start(); !ok) return ok.error();
  return session;
}

Result<std::unique_ptr<ReplaySession>> ReplaySession::create(trace::TraceReader& reader, Device& device,
                                                             const SessionOptions& options) {
  if (options.framesInFlight < 1 || options.framesInFlight > kMaxFramesInFlight) {
    return fail("frames in flight must be 1 to ", kMaxFramesInFlight, ", not ", options.framesInFlight);
  }
  auto session = std::unique_ptr<ReplaySession>(new ReplaySession(reader, device, options));
  session->vulkan_ = dynamic_cast<VulkanDevice*>(&device);
  if (auto ok = session->start(); !ok) return ok.error();
  return session;
}

Result<std::unique_ptr<ReplaySession>> ReplaySession::open(const std::string& path,
                                                           const SessionOptions& options) {
  auto reader = trace::TraceReader::open(path);
  if (!reader) return reader.error();
  auto owned = std::make_unique<trace::TraceReader>(std::move(reader.value()));
  auto session = create(*owned, options);
  if (!session) return session.error();
  session.value()->ownedReader_ = std::move(owned);
  return session;
}

ReplaySession::ReplaySession(trace::TraceReader& reader, Device& device, const SessionOptions& options)
    : reader_(reader), options_(options), device_(device) {}

ReplaySession::~ReplaySession() {
  prefetch_.reset();
  idleWatch_.reset();
  feeder_.reset();
  renderer_.reset();  // before the device it renders with
}

Result<void> ReplaySession::start() {
  if (reader_.frameCount() == 0) return fail(reader_.name(), ": the trace holds no frames");
  renderer_ = std::make_unique<Renderer>(device_, RendererConfig{.framesInFlight = options_.framesInFlight,
                                                                 .firstFrameNumber = reader_.frameNumber(0)});
  auto feeder = FrameFeeder::create(*renderer_, reader_.header(), options_.edit, options_.keyEdit);
  if (!feeder) return fail(reader_.name(), ": ", feeder.error().message);
  feeder_ = std::move(feeder.value());
  prefetch_ = FramePrefetcher::create(reader_, PrefetchOptions{.lookahead = options_.lookahead,
                                                               .budgetBytes = options_.lookaheadBytes,
                                                               .workers = options_.readWorkers});
  if (options_.collectTimings) {
    idleClock_ = std::make_unique<RenderIdleClock>();
    idleWatch_ = renderer_->addObserver(*idleClock_);
  }
  return submitStartResources();
}

const DecodeTimes& ReplaySession::decodeTimes() const {
  timesWithAhead_ = decodeTimes_;
  if (!options_.collectTimings) return timesWithAhead_;
  if (prefetch_) {
    const FramePrefetcher::Stats ahead = prefetch_->stats();
    timesWithAhead_.readCpu += ahead.readCpu;
    timesWithAhead_.cpu += ahead.readCpu;
    timesWithAhead_.aheadCpu = ahead.readCpu;
    timesWithAhead_.aheadDecompressCpu = ahead.decompressCpu;
  }
  if (idleClock_) {
    const RenderIdleClock::Totals t = idleClock_->totals();
    timesWithAhead_.renderIdle = t.idle;
    timesWithAhead_.renderSpan = t.span;
  }
  return timesWithAhead_;
}

Result<void> ReplaySession::submitStartResources() {
  DecodeTimes* times = options_.collectTimings ? &decodeTimes_ : nullptr;
  Result<std::vector<trace::ResourcesRecord>> resources = Error{};
  {
    DecodeClock clock(times, &DecodeTimes::readCpu);
    resources = reader_.readResources();
    if (!resources) return resources.error();
  }
  next_ = 0;
  clean_ = true;
  pending_ = true;
  playedStop_.reset();
  {
    DecodeClock clock(times, &DecodeTimes::feedCpu);
    for (const auto& record : *resources) {
      if (auto ok = feeder_->submitResources(record); !ok) {
        return fail(reader_.name(), ": ", ok.error().message);
      }
    }
  }
  decodeTimes_.resources += resources->size();
  return {};
}

void ReplaySession::kickPending() {
  if (!pending_) return;
  renderer_->kick();
  pending_ = false;
}

Result<void> ReplaySession::restart() {
  // The renderer and the feeder stay: their buckets' memory is already faulted in (building them anew
  // for every --loop pass cost more page faults than decoding the frames), and nothing of a frame
  // outlives its kick but the resources, which are destroyed here and created again from the trace.
  open_.reset();
  bound_.reset();
  broken_ = false;
  feeder_->destroyAll();
  renderer_->kick();
  renderer_->flushAndWait();
  // The chunk the last frame came from, so that the reader can reuse its buffer.
  frame_.keepAlive.reset();
  return submitStartResources();
}

std::optional<size_t> ReplaySession::checkpointFrame() const {
  if (!checkpoint_) return std::nullopt;
  return checkpoint_->frameIndex;
}

Result<void> ReplaySession::takeCheckpoint(size_t index) {
  // The capture-start resources in a frame of their own: frame 0's start is then a state on the device.
  kickPending();
  Checkpoint checkpoint;
  checkpoint.frameIndex = index;
  checkpoint.live = feeder_->liveResources();
  std::string error;
  renderer_->withIdleDevice([&](Device& device) {
    for (const auto& [key, live] : checkpoint.live) {
      auto contents = readContents(device, live.createType, live.create);
      if (!contents) {
        error = contents.error().message;
        return;
      }
      if (contents->empty()) continue;  // what the other kinds are lies in their create requests
      for (const auto& c : *contents) checkpoint.bytes += c.size();
      checkpoint.contents[key] = std::move(contents.value());
    }
  });
  // A checkpoint that cannot be read keeps the one before (still a state the replay went through).
  if (!error.empty()) return fail("checkpoint at frame ", reader_.frameNumber(index), ": ", error);
  checkpoint_ = std::move(checkpoint);
  return {};
}

Result<void> ReplaySession::restoreCheckpoint(const Checkpoint* from) {
  // Until it is done the device holds a mix of both states.
  broken_ = true;
  const Checkpoint& checkpoint = from ? *from : *checkpoint_;
  const FrameFeeder::LiveMap& now = feeder_->liveResources();
  auto differs = [](const FrameFeeder::LiveMap& in, uint64_t key, const FrameFeeder::LiveResource& r) {
    const auto it = in.find(key);
    return it == in.end() || !(it->second == r);
  };
  // What was created since, users first; what was destroyed since, in creation order.
  std::vector<std::pair<ResourceKind, uint32_t>> extra;
  for (auto it = now.rbegin(); it != now.rend(); ++it) {
    if (differs(checkpoint.live, it->first, it->second))
      extra.emplace_back(it->second.kind, it->second.handle);
  }
  std::vector<const FrameFeeder::LiveResource*> missing;
  for (const auto& [key, live] : checkpoint.live) {
    if (differs(now, key, live)) missing.push_back(&live);
  }
  const std::string where =
      "restoring the checkpoint at frame " + std::to_string(reader_.frameNumber(checkpoint.frameIndex));
  if (!extra.empty()) {
    for (const auto& [kind, handle] : extra) {
      if (auto ok = feeder_->destroy(kind, handle); !ok) return fail(where, ": ", ok.error().message);
    }
    // Destroyed on the device before a slot is adopted again by what the checkpoint had there.
    renderer_->kick();
    renderer_->flushAndWait();
  }
  ResourceContext& rc = renderer_->resources();
  std::vector<uint64_t> recreated;
  for (const FrameFeeder::LiveResource* live : missing) {
    const uint64_t key = FrameFeeder::liveKey(live->kind, live->handle);
    const auto contents = checkpoint.contents.find(key);
    std::span<const std::byte> initial = live->code;
    if (contents != checkpoint.contents.end() && !contents->second.empty()) initial = contents->second[0];
    if (auto ok = feeder_->create(*live, initial); !ok) return fail(where, ": ", ok.error().message);
    recreated.push_back(key);
  }
  for (const auto& [key, contents] : checkpoint.contents) {
    const FrameFeeder::LiveResource& live = checkpoint.live.at(key);
    const bool created = std::find(recreated.begin(), recreated.end(), key) != recreated.end();
    // A resource created again got its first contents (mip 0) as its initial data.
    const bool ok = writeContents(rc, live.createType, live.create, contents, created ? 1 : 0);
    if (!ok) {
      return fail(where, ": ", formatHandle(live.kind, live.handle), " cannot be written");
    }
  }
  renderer_->kick();
  renderer_->flushAndWait();
  pending_ = false;
  open_.reset();
  bound_.reset();
  playedStop_.reset();
  next_ = checkpoint.frameIndex;
  clean_ = true;
  broken_ = false;
  return {};
}

size_t ReplaySession::startWithoutKeyFrames(size_t index, bool needClean) const {
  if (!broken_ && !open_ && next_ <= index && (clean_ || !needClean)) return next_;
  if (!broken_ && checkpoint_ && checkpoint_->frameIndex <= index) return checkpoint_->frameIndex;
  return 0;
}

bool ReplaySession::startAtNearestKeyFrame(size_t index, size_t position) {
  if (!options_.keyFrames) return false;
  const std::vector<size_t> keys = reader_.keyFrames();
  for (auto it = std::upper_bound(keys.begin(), keys.end(), index); it != keys.begin();) {
    const size_t key = *--it;
    if (key <= position) break;
    // One that cannot be read (its chunk damaged) or put back: the one before it serves.
    if (startAtKeyFrame(key)) return true;
  }
  return false;
}

Result<bool> ReplaySession::startNearKeyFrame(size_t index, bool needClean) {
  const size_t position = startWithoutKeyFrames(index, needClean);
  if (startAtNearestKeyFrame(index, position)) return true;
  // Frames from the one before `position` (replayed, or the capture start) to `index` follow each other.
  for (size_t k = std::max<size_t>(position, 1); k <= index; ++k) {
    const uint64_t before = reader_.frameNumber(k - 1), number = reader_.frameNumber(k);
    if (number != before + 1) {
      return fail(reader_.name(), ": frame ", reader_.frameNumber(index), " cannot be replayed: frames ",
                  before + 1, "-", number - 1,
                  " before it are missing (an unreadable chunk) and no key frame ", "after them can be read");
    }
  }
  return false;
}

Result<void> ReplaySession::startAtKeyFrame(size_t index) {
  auto records = reader_.readKeyFrame(index);
  if (!records) return records.error();
  const uint64_t number = reader_.frameNumber(index);
  const std::string where = reader_.name() + ": key frame at frame " + std::to_string(number);
  // The key frame as a checkpoint: resources as the feeder tracks them (created as recorded, edited),
  // contents by mip.
  Checkpoint key;
  key.frameIndex = index;
  for (const trace::ResourcesRecord& record : *records) {
    for (const trace::LiveResourceRecord& r : record.resources) {
      const std::optional<CommandType> type = feeder_->commandType(r.createType);
      const CommandSemantics& semantics = semanticsOf(type.value_or(CommandType::Count));
      if (!type || semantics.category != CommandCategory::Create || r.create.size() < sizeof(uint32_t)) {
        return fail(where, ": a resource whose create request (command ", r.createType,
                    ") this build cannot replay");
      }
      FrameFeeder::LiveResource live;
      live.kind = semantics.resource;
      live.createType = *type;
      live.create.assign(r.create.begin(), r.create.end());
      if (options_.edit) options_.edit(number, UINT64_MAX, *type, live.create);
      std::memcpy(&live.handle, live.create.data(), sizeof live.handle);
      if (!r.readbackError.empty()) {
        return fail(where, ": ", formatHandle(live.kind, live.handle),
                    " was not read back: ", r.readbackError);
      }
      if (resourceContentsOf(live.kind) == ResourceContents::CreateData)
        live.code.assign(r.code.begin(), r.code.end());
      const uint64_t liveKey = FrameFeeder::liveKey(live.kind, live.handle);
      if (!r.contents.empty()) {
        std::vector<std::vector<std::byte>>& mips = key.contents[liveKey];
        for (const auto& c : r.contents) {
          if (c.mip >= mips.size()) mips.resize(c.mip + 1);
          mips[c.mip].assign(c.bytes.begin(), c.bytes.end());
          key.bytes += c.bytes.size();
        }
      }
      key.live[liveKey] = std::move(live);
    }
  }
  if (broken_) {
    // Nothing known of the device's state: everything goes, then the key frame's resources come.
    feeder_->destroyAll();
    renderer_->kick();
    renderer_->flushAndWait();
    broken_ = false;
  }
  frame_.keepAlive.reset();
  if (auto ok = restoreCheckpoint(&key); !ok) return fail(where, ": ", ok.error().message);
  return {};
}

Result<void> ReplaySession::load(size_t index) {
  if (loaded_ && loaded_->index == index) return {};
  loaded_.reset();
  auto loaded = std::make_unique<Loaded>();
  loaded->index = index;
  if (auto ok = reader_.readFrame(index, loaded->record); !ok) return ok.error();
  const trace::FrameRecord& frame = loaded->record;
  loaded->order = orderFrame(frame);
  loaded->declaresPasses = !trace::declaredPasses(frame, feeder_->commands()).empty();
  loaded->sorted = packetsInOrder(frame, loaded->order.sorted);
  if (options_.edit) {
    // submitFrame edits a shared packet once, for its first link in submission order (bucket by bucket,
    // each bucket's keys as recorded): the same edit for every link of it sent again.
    std::vector<std::vector<uint64_t>> keyStart(frame.buckets.size());
    for (size_t b = 0; b < frame.buckets.size(); ++b) keyStart[b].resize(frame.buckets[b].keyCount());
    for (const OrderedKey& k : loaded->order.sorted) keyStart[k.bucket][k.key] = k.firstPacket;
    loaded->editPosition.resize(loaded->sorted.size());
    for (size_t p = 0; p < loaded->editPosition.size(); ++p) loaded->editPosition[p] = p;
    std::vector<uint64_t> firstOfBody;
    uint16_t bucket = UINT16_MAX;
    for (const OrderedKey& k : loaded->order.submission) {
      const trace::BucketRecord& b = frame.buckets[k.bucket];
      if (k.bucket != bucket) firstOfBody.assign(b.bodyCount(), UINT64_MAX);
      bucket = k.bucket;
      uint64_t position = keyStart[k.bucket][k.key];
      b.forEachInChain(k.key, [&](const trace::PacketRecord& p) {
        if (p.shared) {
          if (firstOfBody[p.body] == UINT64_MAX) firstOfBody[p.body] = position;
          loaded->editPosition[position] = firstOfBody[p.body];
        }
        ++position;
      });
    }
  }
  loaded_ = std::move(loaded);
  return {};
}

Result<FrameFeeder::Prepared> ReplaySession::preparedAt(uint64_t position) {
  const PacketRef& ref = loaded_->sorted[position];
  const trace::PacketRecord packet = loaded_->record.buckets[ref.bucket].packet(ref.key, ref.link);
  const uint64_t editPosition = loaded_->editPosition.empty() ? position : loaded_->editPosition[position];
  return feeder_->prepare(loaded_->record.number, editPosition, packet);
}

Result<void> ReplaySession::replayPartial(uint64_t stopAfterPackets, SeekResult& result) {
  auto mark = std::chrono::steady_clock::now();
  const uint64_t packets = loaded_->sorted.size();
  // From here the device is inside the frame, even if the submit fails half way: closeOpen() undoes it.
  open_ = Open{loaded_->index, 0};
  auto submitted = feeder_->submitFrame(loaded_->record, FrameFeeder::Requests::HoldDestroys);
  const uint64_t stop = submitted ? std::min(stopAfterPackets, packets) : 0;
  result.feedMs = msSince(mark);
  // A failed submit is kicked too, running none of its packets: nothing half recorded waits in the buckets.
  renderer_->kick({.stopAfterPackets = stop});
  renderer_->flushAndWait();
  pending_ = false;
  result.executeMs = msSince(mark);
  if (!submitted) return submitted;
  open_->stop = stop;
  result.packetsRun = stop;
  ++result.framesReplayed;
  bound_ = std::make_unique<BoundState>([this](PipelineHandle pipeline) {
    const std::optional<PipelineDesc> desc = feeder_->desc(pipeline);
    return desc && !desc->computeShader.isNull();
  });
  return {};
}

Result<void> ReplaySession::continueOpen(uint64_t stopAfterPackets, SeekResult& result) {
  auto mark = std::chrono::steady_clock::now();
  const uint64_t from = open_->stop;
  const uint64_t end = std::min<uint64_t>(stopAfterPackets, loaded_->sorted.size());
  if (end <= from) return {};  // the same stop again: nothing to run, the caller only reads back
  // The bound state where the last step stopped, then the packets that bring it back.
  while (bound_->position() < from) {
    auto p = preparedAt(bound_->position());
    if (!p) return p.error();
    bound_->apply(p->type, p->payload, p->aux);
  }
  const std::vector<uint64_t> prefix = bound_->prefix();
  // Prepared in full before anything is recorded: a packet this build cannot replay leaves the buckets
  // as they were.
  struct Step {
    CommandType type;
    std::vector<std::byte> payload;
    std::span<const std::byte> aux;
  };
  std::vector<Step> steps;
  steps.reserve(prefix.size() + (end - from));
  auto add = [&](uint64_t position, bool reopen) -> Result<void> {
    auto p = preparedAt(position);
    if (!p) return p.error();
    steps.push_back(Step{p->type, {p->payload.begin(), p->payload.end()}, p->aux});
    if (reopen) BoundState::reopenPass(steps.back().payload);
    return {};
  };
  for (const uint64_t position : prefix) {
    if (auto ok = add(position, position == bound_->openPass()); !ok) return ok;
  }
  for (uint64_t position = from; position < end; ++position) {
    if (auto ok = add(position, false); !ok) return ok;
  }
  if (!stepBucket_) {
    // Made when first needed, after the trace's buckets: empty in every other frame, so it changes
    // neither their merge order nor a frame's sorted-order hash.
    auto bucket = std::make_unique<RecordedBucket>("replay: continued step");
    stepBucket_ = bucket.get();
    renderer_->adoptBucket(std::move(bucket));
  }
  uint64_t key = 0;
  for (const Step& step : steps) stepBucket_->addBytes(key++, step.type, step.payload, step.aux);
  result.feedMs += msSince(mark);
  renderer_->kick();
  renderer_->flushAndWait();
  result.executeMs += msSince(mark);
  result.prefixPackets = prefix.size();
  result.packetsRun = end - from;
  open_->stop = end;
  return {};
}

Result<SeekResult> ReplaySession::seek(size_t index, uint64_t stopAfterPackets) {
  if (index >= reader_.frameCount()) {
    return fail(reader_.name(), ": frame index ", index, " is past the trace's ", reader_.frameCount(),
                " frames");
  }
  SeekResult result;
  auto mark = std::chrono::steady_clock::now();
  auto finish = [&]() -> SeekResult {
    result.frame = loaded_->record.number;
    result.packets = loaded_->sorted.size();
    result.executed = open_->stop;
    return result;
  };
  if (!broken_ && open_ && open_->index == index && stopAfterPackets >= open_->stop &&
      !loaded_->declaresPasses) {
    // Forward within the frame (or the same stop again): only the packets after the last stop.
    result.path = SeekPath::Continued;
    broken_ = true;
    if (auto ok = continueOpen(stopAfterPackets, result); !ok) return ok.error();
    broken_ = false;
    return finish();
  }
  bool restored = false;
  Result<bool> keyed = startNearKeyFrame(index, /*needClean=*/true);
  if (!keyed) return keyed.error();
  if (!*keyed && (broken_ || open_ || next_ > index || !clean_)) {
    if (!broken_ && checkpoint_ && checkpoint_->frameIndex <= index) {
      if (auto ok = restoreCheckpoint(); !ok) return ok.error();
      restored = true;
    } else if (auto ok = restart(); !ok) {
      return ok.error();
    }
  }
  // Whatever fails below leaves a state only a start from the capture start can be sure of.
  broken_ = true;
  result.path = *keyed       ? SeekPath::KeyFrame
                : restored   ? SeekPath::Restored
                : next_ == 0 ? SeekPath::FromStart
                             : SeekPath::Forward;
  result.restoreMs = msSince(mark);
  for (; next_ < index; ++next_) {
    if (auto ok = reader_.readFrame(next_, frame_); !ok) return ok.error();
    if (auto ok = feeder_->submitFrame(frame_); !ok) return fail(reader_.name(), ": ", ok.error().message);
    renderer_->kick();
    pending_ = false;
    ++result.framesReplayed;
    if (result.path == SeekPath::Restored) result.path = SeekPath::Forward;
  }
  playedStop_.reset();
  result.earlierFramesMs = msSince(mark);
  if (!checkpoint_ || checkpoint_->frameIndex != index) {
    // A checkpoint that cannot be taken only costs speed: a step back then starts over.
    if (takeCheckpoint(index)) result.checkpointBytes = checkpoint_->bytes;
  }
  result.checkpointMs = msSince(mark);
  if (auto ok = load(index); !ok) return ok.error();
  if (auto ok = replayPartial(stopAfterPackets, result); !ok) return ok.error();
  broken_ = false;
  return finish();
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
      if (feeder_->desc(t)) {
        name = "texture#" + std::to_string(choice.index);
        return t;
      }
    }
    return fail("frame ", frame.number, ": texture #", choice.index, " is not alive");
  }
  if (choice.kind == TargetChoice::Kind::RenderTarget) {
    for (uint32_t generation = 1; generation < 4096 && target.isNull(); ++generation) {
      if (feeder_->desc(RenderTargetHandle::make(choice.index, generation))) {
        target = RenderTargetHandle::make(choice.index, generation);
      }
    }
    if (target.isNull()) {
      return fail("frame ", frame.number, ": render target #", choice.index, " is not alive");
    }
  } else {
    // The render pass that ran last: the last pass begun at or before the stop. Declared passes run
    // first, in id order, each begun before its first key (one no key names, where the next pass's keys
    // start); a pass packet a key records comes after all of them.
    const std::vector<trace::DeclaredPass> declared = trace::declaredPasses(frame, feeder_->commands());
    size_t passesBegun = 0;  // declared passes begun: those up to the last key that ran, or every one
    bool everyKeyRan = true;
    for (const OrderedKey& k : order.sorted) {
      const trace::BucketRecord& bucket = frame.buckets[k.bucket];
      if (k.firstPacket >= stopAfterPackets || bucket.chainLength(k.key) == 0) {
        everyKeyRan = false;
        break;
      }
      if (bucket.pass(k.key) < declared.size()) passesBegun = bucket.pass(k.key) + 1;
    }
    if (everyKeyRan) passesBegun = declared.size();
    for (size_t p = passesBegun; p-- > 0 && target.isNull();) target = declared[p].desc.target;
    for (const OrderedKey& k : order.sorted) {
      uint64_t position = k.firstPacket;
      frame.buckets[k.bucket].forEachInChain(k.key, [&](const trace::PacketRecord& p) {
        if (position++ >= stopAfterPackets) return;
        if (const auto passTarget =
                passTargetOf(feeder_->commandType(p.type).value_or(CommandType::Count), p.payload))
          target = *passTarget;
      });
    }
    if (target.isNull()) {
      return fail("frame ", frame.number, ": no render pass ran, so there is no target to read");
    }
    attachment = 0;
  }
  const std::optional<RenderTargetDesc> desc = feeder_->desc(target);
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
  if (!device_.presents()) return false;
  std::string name;
  auto texture = chooseTexture(frame, order, stopAfterPackets, choice, name);
  if (!texture) return false;
  // The frame about to be kicked; earlier frames may still be ending on the render thread.
  device_.setPresentSource(*texture, renderer_->recordingFrame());
  return true;
}

Result<TextureContents> ReplaySession::readTexture(TextureHandle texture, uint32_t mip) {
  const std::optional<TextureDesc> desc = feeder_->desc(texture);
  if (!desc) return fail("texture #", texture.index(), " is not alive");
  if (mip >= std::max(1u, desc->mipLevels)) {
    return fail("texture #", texture.index(), " has ", std::max(1u, desc->mipLevels), " mip levels, not ",
                mip + 1);
  }
  TextureContents contents{*desc, mip, {}};
  auto texels = renderer_->withIdleDevice([&](Device& d) { return d.readTexture(texture, mip); });
  if (!texels) return texels.error();
  contents.texels = std::move(texels.value());
  return contents;
}

Result<std::vector<std::byte>> ReplaySession::readBuffer(BufferHandle buffer) {
  if (!feeder_->live(ResourceKind::Buffer, buffer.value))
    return fail("buffer #", buffer.index(), " is not alive");
  return renderer_->withIdleDevice([&](Device& d) { return d.readBuffer(buffer); });
}

Result<TargetImage> ReplaySession::readTarget(const TargetChoice& choice) {
  TargetImage out;
  Result<TextureHandle> texture = Error{};
  if (open_ && loaded_) {
    texture = chooseTexture(loaded_->record, loaded_->order, open_->stop, choice, out.name);
  } else if (playedStop_) {
    const FrameOrder order = choice.kind == TargetChoice::Kind::LastPass ? orderFrame(frame_) : FrameOrder{};
    texture = chooseTexture(frame_, order, *playedStop_, choice, out.name);
  } else {
    return fail(reader_.name(), ": no frame replayed yet, so there is no target to read");
  }
  if (!texture) return texture.error();
  out.texture = *texture;
  auto contents = readTexture(*texture);
  if (!contents) return fail("reading back ", out.name, ": ", contents.error().message);
  auto image =
      image::fromTexels(contents->desc.width, contents->desc.height, contents->desc.format, contents->texels);
  if (!image) return fail(out.name, ": ", image.error().message);
  out.image = std::move(image.value());
  return out;
}

Result<FrameResult> ReplaySession::replayFrame(size_t index, uint64_t stopAfterPackets,
                                               std::optional<TargetChoice> readback) {
  if (index >= reader_.frameCount()) {
    return fail(reader_.name(), ": frame index ", index, " is past the trace's ", reader_.frameCount(),
                " frames");
  }
  Result<bool> keyed = startNearKeyFrame(index, /*needClean=*/false);
  if (!keyed) return keyed.error();
  if (*keyed) {
    // At the key frame: nearer than where the device was.
  } else if (open_ || broken_) {
    // After a seek: the state at the start of the frame it stopped in, through the checkpoint if it
    // serves the frame asked for.
    const bool restore = !broken_ && checkpoint_ && checkpoint_->frameIndex <= index;
    if (auto ok = restore ? restoreCheckpoint() : restart(); !ok) return ok.error();
  }
  if (next_ > index) {
    if (auto ok = restart(); !ok) return ok.error();
  }
  FrameResult result;
  for (; next_ <= index; ++next_) {
    const size_t i = next_;
    DecodeTimes* times = options_.collectTimings ? &decodeTimes_ : nullptr;
    // One record for every frame: its buffers keep their size, so decoding a frame allocates nothing.
    trace::FrameRecord* frame = &frame_;
    if (prefetch_) {
      // Read ahead on the prefetcher's thread: here only the wait for it, if it is behind.
      const auto began = std::chrono::steady_clock::now();
      auto ok = prefetch_->take(i, frame_);
      if (times) {
        const auto waited = std::chrono::steady_clock::now() - began;
        times->fetchWait += waited;
        times->wall += waited;
      }
      if (!ok) return ok.error();
    } else {
      DecodeClock clock(times, &DecodeTimes::readCpu);
      if (auto ok = reader_.readFrame(i, frame_); !ok) return ok.error();
    }
    {
      DecodeClock clock(times, &DecodeTimes::feedCpu);
      if (auto ok = feeder_->submitFrame(*frame); !ok) return fail(reader_.name(), ": ", ok.error().message);
    }
    ++decodeTimes_.frames;
    pending_ = false;
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
    clean_ = clean_ && result.executed == result.packets;
    playedStop_ = result.executed;
    if (texture) {
      auto contents = readTexture(*texture);
      if (!contents) {
        return fail("frame ", frame->number, ": reading back ", result.target, ": ",
                    contents.error().message);
      }
      auto image = image::fromTexels(contents->desc.width, contents->desc.height, contents->desc.format,
                                     contents->texels);
      if (!image) return fail("frame ", frame->number, ": ", result.target, ": ", image.error().message);
      result.image = std::move(image.value());
    }
  }
  return result;
}

}  // namespace reel::replay
