#pragma once
// Which resources exist in which frame: the ones alive at the capture start, then every create and
// destroy request of the frames in order. A frame's creates apply before its commands and its destroys
// after them (ResourceContext), so a resource destroyed in frame N is still alive during frame N.
// Requests are classified by their command's name (Create*, Destroy*, Write*) and the resource by the
// first handle field of the packet, both from the trace's own command table.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "reel/runtime/handle.h"
#include "reel/trace/command_map.h"
#include "reel/trace/header.h"
#include "reel/trace/records.h"

namespace reel::viewer {

struct ResourceInfo {
  ResourceKind kind = ResourceKind::Count;
  uint32_t handle = 0;
  uint16_t createType = 0;        // command id in the trace
  std::vector<std::byte> create;  // the create packet: handle and descriptor
  uint64_t dataBytes = 0;         // initial contents or a shader's code, as recorded
  bool atCaptureStart = false;    // alive when the capture started
  uint64_t createdFrame = 0;      // the frame whose requests created it (the first frame if atCaptureStart)
  std::optional<uint64_t> destroyedFrame;
  uint32_t writes = 0;        // write requests seen (all frames scanned)
  std::string readbackError;  // a capture-start resource whose contents could not be read
};

class ResourceTimeline {
 public:
  void addCaptureStart(const trace::ResourcesRecord& resources, const trace::TraceHeader& header);
  // Frames must be added in trace order.
  void addFrame(const trace::FrameRecord& frame, const trace::TraceHeader& header);

  // Alive during frame `number`'s commands, kinds in dependency order, then by handle.
  std::vector<ResourceInfo> aliveAt(uint64_t number) const;
  // The instance of a handle alive in frame `number` (the latest created at or before it).
  std::optional<ResourceInfo> find(ResourceKind kind, uint32_t handle, uint64_t number) const;
  size_t size() const { return all_.size(); }
  std::span<const ResourceInfo> all() const { return all_; }

 private:
  static uint64_t liveKey(ResourceKind kind, uint32_t handle) { return uint64_t(kind) << 32 | handle; }
  std::optional<size_t> liveIndex(ResourceKind kind, uint32_t handle) const;
  // A new instance, alive from `frame`: the fields every create sets; the caller adds the rest.
  ResourceInfo& addCreated(std::pair<ResourceKind, uint32_t> handle, uint16_t createType,
                           std::span<const std::byte> create, uint64_t frame);
  std::vector<ResourceInfo> all_;
  std::unordered_map<uint64_t, size_t> live_;  // (kind, handle) -> index in all_, while not destroyed
};

// What a request does, from its command's name.
// Whether a trace's request creates, writes or destroys, as this build declares the command of its name;
// nothing for a command that is not a resource request or does not replay.
std::optional<CommandCategory> requestCategory(const trace::CommandMap& commands, uint16_t type);
// The first handle a packet names (the resource a request is about), by the trace's field table.
std::optional<std::pair<ResourceKind, uint32_t>> firstHandle(const trace::TraceHeader& header, uint16_t type,
                                                             std::span<const std::byte> payload);

}  // namespace reel::viewer
