#pragma once
// The create requests of every resource alive on the device, kept by the render thread as it applies
// requests, so that a capture starting at frame N can write what is needed to rebuild frame N: each
// live resource's descriptor (and a shader's code) from here, its current contents from the device.

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/result.h"

namespace reel {

class Device;
class ResourceContext;

// The contents of a live resource that its create request does not hold (resourceContentsOf its kind):
// a buffer's bytes, a texture's mips (index = mip), read from the device; empty for the other kinds.
// `create` is the resource's create request. Device thread, or a device that is idle.
Result<std::vector<std::vector<std::byte>>> readContents(Device& device, CommandType createType,
                                                         std::span<const std::byte> create);
// Records write requests that put `contents` (as readContents returns them) back, from mip `firstMip`
// (a resource just created with mip 0 as its initial data starts at 1). False when a write is refused
// (the resource is not live).
bool writeContents(ResourceContext& resources, CommandType createType, std::span<const std::byte> create,
                   std::span<const std::vector<std::byte>> contents, uint32_t firstMip = 0);

class LiveResources {
 public:
  struct Entry {
    CommandType createType = CommandType::Count;
    uint32_t handle = 0;
    std::vector<std::byte> payload;  // the create packet
    std::vector<std::byte>
        aux;  // kept for shaders (their code); contents of buffers and textures are read back
  };

  // Render thread, as requests are applied.
  void onCreate(CommandType type, std::span<const std::byte> payload, std::span<const std::byte> aux);
  void onDestroy(CommandType type, uint32_t handle);

  // Calls fn(const Entry&) for every live resource, kinds in dependency order (buffers, textures, samplers,
  // shaders, pipelines, render targets), slots in index order.
  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (const auto& kind : byKind_) {
      for (const Entry& entry : kind) {
        if (entry.createType != CommandType::Count) fn(entry);
      }
    }
  }
  size_t count() const;
  // The live resource of that kind and handle (generation included); null when none is.
  const Entry* find(ResourceKind kind, uint32_t handle) const;
  // Its create packet as `Create` (cmd::CreateTexture, ...): nothing when none is live or the packet is
  // not a `Create`.
  template <typename Create>
  std::optional<Create> createPacket(ResourceKind kind, uint32_t handle) const {
    const Entry* entry = find(kind, handle);
    if (!entry || entry->createType != Create::kType || entry->payload.size() != sizeof(Create)) {
      return std::nullopt;
    }
    Create create;
    std::memcpy(&create, entry->payload.data(), sizeof create);
    return create;
  }

 private:
  std::vector<Entry> byKind_[static_cast<size_t>(ResourceKind::Count)];
};

}  // namespace reel
