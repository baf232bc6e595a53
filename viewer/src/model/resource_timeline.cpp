#include "model/resource_timeline.h"

#include <algorithm>
#include <cstring>

namespace reel::viewer {

std::optional<CommandCategory> requestCategory(const trace::CommandMap& commands, uint16_t type) {
  const auto semantics = commands.semantics(type);
  if (!semantics || semantics->queue() != CommandQueue::Resource) return std::nullopt;
  return semantics->category;
}

std::optional<std::pair<ResourceKind, uint32_t>> firstHandle(const trace::TraceHeader& header, uint16_t type,
                                                             std::span<const std::byte> payload) {
  const trace::CommandDesc* desc = header.command(type);
  if (!desc) return std::nullopt;
  for (const FieldInfo& f : desc->fields) {
    if (f.type != FieldType::Handle) continue;
    if (uint64_t{f.offset} + sizeof(uint32_t) > payload.size() || f.handleKind >= ResourceKind::Count)
      return std::nullopt;
    uint32_t value;
    std::memcpy(&value, payload.data() + f.offset, sizeof value);
    return std::make_pair(f.handleKind, value);
  }
  return std::nullopt;
}

std::optional<size_t> ResourceTimeline::liveIndex(ResourceKind kind, uint32_t handle) const {
  const auto it = live_.find(liveKey(kind, handle));
  if (it == live_.end()) return std::nullopt;
  return it->second;
}

void ResourceTimeline::addCaptureStart(const trace::ResourcesRecord& resources,
                                       const trace::TraceHeader& header) {
  for (const trace::LiveResourceRecord& live : resources.resources) {
    const auto handle = firstHandle(header, live.createType, live.create);
    if (!handle) continue;
    ResourceInfo& r = addCreated(*handle, live.createType, live.create, resources.frame);
    r.dataBytes = live.code.size();
    for (const auto& c : live.contents) r.dataBytes += c.bytes.size();
    r.atCaptureStart = true;
    r.readbackError = std::string(live.readbackError);
  }
}

ResourceInfo& ResourceTimeline::addCreated(std::pair<ResourceKind, uint32_t> handle, uint16_t createType,
                                           std::span<const std::byte> create, uint64_t frame) {
  ResourceInfo& r = all_.emplace_back();
  r.kind = handle.first;
  r.handle = handle.second;
  r.createType = createType;
  r.create.assign(create.begin(), create.end());
  r.createdFrame = frame;
  live_[liveKey(r.kind, r.handle)] = all_.size() - 1;
  return r;
}

void ResourceTimeline::addFrame(const trace::FrameRecord& frame, const trace::TraceHeader& header) {
  const auto commands = trace::CommandMap::fromHeader(header);
  for (const trace::RequestRecord& request : frame.requests) {
    const std::optional<CommandCategory> category = requestCategory(commands, request.type);
    const auto handle = firstHandle(header, request.type, request.payload);
    if (!category || !handle) continue;
    if (*category == CommandCategory::Create) {
      addCreated(*handle, request.type, request.payload, frame.number).dataBytes = request.aux.size();
    } else if (*category == CommandCategory::Destroy) {
      if (auto i = liveIndex(handle->first, handle->second)) {
        all_[*i].destroyedFrame = frame.number;
        live_.erase(liveKey(handle->first, handle->second));
      }
    } else if (auto i = liveIndex(handle->first, handle->second)) {
      ++all_[*i].writes;
    }
  }
}

std::vector<ResourceInfo> ResourceTimeline::aliveAt(uint64_t number) const {
  std::vector<ResourceInfo> out;
  for (const ResourceInfo& r : all_) {
    if (r.createdFrame <= number && (!r.destroyedFrame || *r.destroyedFrame >= number)) out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const ResourceInfo& a, const ResourceInfo& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    return (a.handle & kHandleIndexMask) < (b.handle & kHandleIndexMask);
  });
  return out;
}

std::optional<ResourceInfo> ResourceTimeline::find(ResourceKind kind, uint32_t handle,
                                                   uint64_t number) const {
  for (size_t i = all_.size(); i-- > 0;) {
    const ResourceInfo& r = all_[i];
    if (r.kind == kind && r.handle == handle && r.createdFrame <= number) return r;
  }
  return std::nullopt;
}

}  // namespace reel::viewer
