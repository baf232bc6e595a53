#include "reel/replay/frame_feeder.h"

#include <algorithm>
#include <cstring>

#include "reel/replay/recorded_bucket.h"

namespace reel::replay {

Result<std::unique_ptr<FrameFeeder>> FrameFeeder::create(Renderer& renderer, const trace::TraceHeader& header,
                                                         PacketEdit edit, KeyEdit keyEdit) {
  if (header.commands.empty()) return fail("the trace header has no command table");
  // A command this build lacks, or has with another layout, stays unmapped: a frame that uses it fails
  // with the map's reason; the others replay.
  auto feeder = std::unique_ptr<FrameFeeder>(new FrameFeeder(
      renderer, header, trace::CommandMap::fromHeader(header), std::move(edit), std::move(keyEdit)));
  feeder->registration_ = renderer.addObserver(*feeder);
  return feeder;
}

FrameFeeder::FrameFeeder(Renderer& renderer, const trace::TraceHeader& header, trace::CommandMap commandMap,
                         PacketEdit edit, KeyEdit keyEdit)
    : renderer_(renderer),
      header_(header),
      edit_(std::move(edit)),
      keyEdit_(std::move(keyEdit)),
      commandMap_(std::move(commandMap)) {}

std::span<const std::byte> FrameFeeder::edited(uint64_t frame, uint64_t position, CommandType type,
                                               std::span<const std::byte> payload) {
  if (!edit_) return payload;
  editBuffer_.assign(payload.begin(), payload.end());
  edit_(frame, position, type, editBuffer_);
  return editBuffer_;
}

FrameFeeder::~FrameFeeder() {
  renderer_.flushAndWait();
  registration_.reset();
}

Result<CommandType> FrameFeeder::mapCommand(uint32_t traceId) const {
  return commandMap_.map(traceId);
}

const char* FrameFeeder::intern(std::string_view s) {
  return strings_.emplace(s).first->c_str();
}

Result<void> FrameFeeder::submitResources(const trace::ResourcesRecord& resources) {
  ResourceContext& context = renderer_.resources();
  // Every create and write below, each with its header and padding: the requests' bytes, reserved once.
  size_t requestBytes = 0;
  for (const trace::LiveResourceRecord& resource : resources.resources) {
    requestBytes += sizeof(PacketHeader) + resource.create.size() + resource.code.size() + 16;
    for (const auto& contents : resource.contents)
      requestBytes += sizeof(PacketHeader) + sizeof(cmd::WriteTexture) + contents.bytes.size() + 16;
  }
  context.reserveRequestBytes(requestBytes);
  for (const trace::LiveResourceRecord& resource : resources.resources) {
    auto type = mapCommand(resource.createType);
    if (!type) return fail("a resource alive at the capture start: ", type.error().message);
    // Buffers and textures come back with their contents: mip 0 (or the buffer's bytes) as the create's
    // initial data, other mips as writes; a shader with its code.
    std::span<const std::byte> initial = resource.code;
    for (const auto& contents : resource.contents) {
      if (contents.mip == 0) initial = contents.bytes;
    }
    const std::span<const std::byte> create = edited(resources.frame, UINT64_MAX, *type, resource.create);
    if (auto ok = context.replayRequest(*type, create, initial); !ok) {
      return fail("a resource alive at the capture start: ", ok.error().message);
    }
    track(*type, create, resource.code);
    if (*type != CommandType::CreateTexture) continue;
    cmd::CreateTexture texture;
    std::memcpy(&texture, resource.create.data(), sizeof texture);
    for (const auto& contents : resource.contents) {
      if (contents.mip == 0) continue;
      const uint32_t w = std::max(1u, texture.desc.width >> contents.mip);
      const uint32_t h = std::max(1u, texture.desc.height >> contents.mip);
      if (!context.writeTexture(texture.texture, contents.mip, 0, 0, w, h, contents.bytes)) {
        return fail("texture #", texture.texture.index(), " alive at the capture start: mip ", contents.mip,
                    " cannot be written");
      }
    }
  }
  return {};
}

Result<void> FrameFeeder::submitFrame(const trace::FrameRecord& frame, Requests requests) {
  for (const trace::RequestRecord& request : frame.requests) {
    auto type = mapCommand(request.type);
    if (!type) return fail("frame ", frame.number, ": a resource request: ", type.error().message);
    if (requests == Requests::HoldDestroys) {
      if (semanticsOf(*type).category == CommandCategory::Destroy) continue;
    }
    const std::span<const std::byte> payload = edited(frame.number, UINT64_MAX, *type, request.payload);
    if (auto ok = renderer_.resources().replayRequest(*type, payload, request.aux); !ok) {
      return fail("frame ", frame.number, ": ", ok.error().message);
    }
    track(*type, payload, request.aux);
  }
  // With an edit, each packet's sorted position: where the frame's order puts its key, plus its link.
  sortedStart_.clear();
  if (edit_) {
    const FrameOrder order = orderFrame(frame);
    sortedStart_.resize(frame.buckets.size());
    for (size_t b = 0; b < frame.buckets.size(); ++b) sortedStart_[b].resize(frame.buckets[b].keyCount());
    for (const OrderedKey& k : order.sorted) sortedStart_[k.bucket][k.key] = k.firstPacket;
  }
  for (size_t b = 0; b < frame.buckets.size(); ++b) {
    if (auto ok = submitBucket(frame.buckets[b], b, frame.number); !ok) return ok;
  }
  std::lock_guard lock(mutex_);
  // A frame the capture dropped (its writer was behind) has its requests and no buckets: nothing to sort
  // or compare, and the replay says which frames they were (droppedFrames).
  if (frame.dropped) {
    if (std::find(dropped_.begin(), dropped_.end(), frame.number) == dropped_.end())
      dropped_.push_back(frame.number);
    return {};
  }
  expectedHashes_.push_back({renderer_.recordingFrame(), frame.number, frame.sortedOrderHash});
  return {};
}

std::vector<uint64_t> FrameFeeder::droppedFrames() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::optional<CommandType> FrameFeeder::commandType(uint16_t traceId) const {
  if (traceId >= commandMap_.size() || commandMap_[traceId] == CommandType::Count) return std::nullopt;
  return commandMap_[traceId];
}

Result<FrameFeeder::Prepared> FrameFeeder::prepare(uint64_t frame, uint64_t editPosition,
                                                   const trace::PacketRecord& packet) {
  auto type = mapCommand(packet.type);
  if (!type) return fail("frame ", frame, ": ", type.error().message);
  return Prepared{*type, edited(frame, editPosition, *type, packet.payload), packet.aux};
}

RecordedBucket& FrameFeeder::bucketFor(const trace::BucketRecord& bucket) {
  // Buckets merge in creation order: create them in the trace's index order, with empty stand-ins for
  // any index this frame does not name yet.
  while (buckets_.size() <= bucket.index) {
    const bool isThis = buckets_.size() == bucket.index;
    std::string keyType(isThis ? bucket.keyType : "");
    std::vector<KeyFieldLayout> fields;
    std::vector<std::string> names;
    if (const trace::KeyLayoutDesc* layout = isThis ? header_.keyLayout(keyType) : nullptr) {
      for (const KeyFieldLayout& f : layout->fields) {
        fields.push_back(f);
        names.emplace_back(f.name);
      }
    }
    std::string name = isThis ? std::string(bucket.name) : "(bucket " + std::to_string(buckets_.size()) + ")";
    auto recorded = std::make_unique<RecordedBucket>(std::move(name), std::move(keyType), std::move(fields),
                                                     std::move(names));
    buckets_.push_back(recorded.get());
    renderer_.adoptBucket(std::move(recorded));
  }
  return *buckets_[bucket.index];
}

Result<void> FrameFeeder::submitBucket(const trace::BucketRecord& bucket, size_t bucketIndex,
                                       uint64_t frame) {
  RecordedBucket& target = bucketFor(bucket);
  // Bucket order (issue 14): the frame sorts with the order it was captured with.
  target.setOrder(bucket.order);
  // Scratch kept from bucket to bucket and frame to frame: nothing here allocates per packet.
  sharedPackets_.assign(bucket.bodyCount(), nullptr);
  // A bucket has a few distinct tags and many tagged packets: intern each tag's strings once.
  const std::span<const trace::TagView> tags = bucket.tags();
  tagLocations_.clear();
  for (const trace::TagView& tag : tags)
    tagLocations_.push_back(SourceLocation{intern(tag.file), intern(tag.function), tag.line});
  uint16_t failedType = 0;
  bool failed = false;
  for (size_t k = 0; k < bucket.keyCount() && !failed; ++k) {
    PacketHeader* previous = nullptr;
    const uint64_t key = keyEdit_ ? keyEdit_(frame, bucket.name, bucket.key(k)) : bucket.key(k);
    const PassId pass{bucket.pass(k)};
    uint64_t position = sortedStart_.empty() ? UINT64_MAX : sortedStart_[bucketIndex][k];
    bucket.forEachInChain(k, [&](const trace::PacketRecord& packet) {
      if (failed) return;
      const CommandType type =
          packet.type < commandMap_.size() ? commandMap_[packet.type] : CommandType::Count;
      if (type == CommandType::Count) {
        failed = true;
        failedType = packet.type;
        return;
      }
      std::span<const std::byte> payload = packet.payload;
      // A shared packet is recorded once, with the edit for its first position.
      if (edit_ && !(packet.shared && sharedPackets_[packet.body]))
        payload = edited(frame, position, type, payload);
      ++position;
      PacketHeader* header;
      if (packet.shared) {
        // A shared packet is recorded once and referenced by each link that names it: a chain's head (an
        // app's createShared), or inside a chain (a key's packets between a material's passes).
        if (!sharedPackets_[packet.body]) {
          sharedPackets_[packet.body] = &target.createSharedBytes(type, payload, packet.aux);
        }
        header = previous ? &target.appendSharedBytes(*previous, *sharedPackets_[packet.body])
                          : &target.addSharedBytes(key, *sharedPackets_[packet.body], pass);
      } else if (!previous) {
        header = &target.addBytes(key, type, payload, packet.aux, pass);
      } else {
        header = &target.appendBytes(*previous, type, payload, packet.aux);
      }
      if (packet.tag) target.tagBytes(*header, tagLocations_[packet.tag - tags.data()], packet.tag->message);
      previous = header;
    });
  }
  if (failed) {
    return fail("frame ", frame, ", bucket '", std::string(bucket.name),
                "': ", mapCommand(failedType).error().message);
  }
  return {};
}

void FrameFeeder::track(CommandType type, std::span<const std::byte> payload,
                        std::span<const std::byte> code) {
  const CommandSemantics& semantics = semanticsOf(type);
  const bool creates = semantics.category == CommandCategory::Create;
  if ((!creates && semantics.category != CommandCategory::Destroy) || payload.size() < sizeof(uint32_t))
    return;
  const ResourceKind kind = semantics.resource;
  uint32_t handle;
  std::memcpy(&handle, payload.data(), sizeof handle);  // every create and destroy names its handle first
  const uint64_t key = liveKey(kind, handle);
  if (!creates) {
    live_.erase(key);
    return;
  }
  LiveResource& live = live_[key];
  live.kind = kind;
  live.handle = handle;
  live.createType = type;
  live.create.assign(payload.begin(), payload.end());
  // Buffers' and textures' initial data is their contents, which a replay reads back from the device when
  // it needs them; a shader's code is part of what it is.
  if (resourceContentsOf(kind) == ResourceContents::CreateData) {
    live.code.assign(code.begin(), code.end());
  } else {
    live.code.clear();
  }
}

const FrameFeeder::LiveResource* FrameFeeder::live(ResourceKind kind, uint32_t handle) const {
  const auto it = live_.find(liveKey(kind, handle));
  return it == live_.end() ? nullptr : &it->second;
}

Result<void> FrameFeeder::create(const LiveResource& resource, std::span<const std::byte> initial) {
  if (auto ok = renderer_.resources().replayRequest(resource.createType, resource.create, initial); !ok) {
    return ok;
  }
  track(resource.createType, resource.create, resource.code);
  return {};
}

Result<void> FrameFeeder::destroy(ResourceKind kind, uint32_t handle) {
  if (kind >= ResourceKind::Count) return fail("destroy: not a resource kind");
  // The kind's destroy request names its handle in the first field.
  const CommandInfo& info = commandInfo(destroyCommandOf(kind));
  std::vector<std::byte> payload(info.size);
  std::memcpy(payload.data(), &handle, std::min<size_t>(sizeof handle, payload.size()));
  if (auto ok = renderer_.resources().replayRequest(info.type, payload, {}); !ok) return ok;
  track(info.type, payload, {});
  return {};
}

void FrameFeeder::destroyAll() {
  // Users before what they use: ResourceKind order backwards (render targets before their textures,
  // pipelines before their shaders).
  std::vector<std::pair<ResourceKind, uint32_t>> all;
  for (auto it = live_.rbegin(); it != live_.rend(); ++it)
    all.emplace_back(it->second.kind, it->second.handle);
  for (const auto& [kind, handle] : all) (void)destroy(kind, handle);
}

void FrameFeeder::onFrame(const FrameView& frame) {
  std::lock_guard lock(mutex_);
  while (!expectedHashes_.empty() && expectedHashes_.front().rendererFrame < frame.frame) {
    expectedHashes_.pop_front();  // recorded, then never kicked (a replay that failed half way)
  }
  // A frame the caller kicked without a recorded one has nothing to compare with.
  if (expectedHashes_.empty() || expectedHashes_.front().rendererFrame != frame.frame) return;
  const ExpectedHash expected = expectedHashes_.front();
  expectedHashes_.pop_front();
  if (expected.recorded != frame.sortedOrderHash) {
    mismatches_.push_back({expected.traceFrame, expected.recorded, frame.sortedOrderHash});
  }
}

std::vector<FrameFeeder::SortMismatch> FrameFeeder::sortMismatches() const {
  std::lock_guard lock(mutex_);
  return mismatches_;
}

}  // namespace reel::replay
