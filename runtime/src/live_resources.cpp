#include "reel/runtime/live_resources.h"

#include <algorithm>
#include <cstring>

#include "reel/runtime/device.h"
#include "reel/runtime/resource_context.h"

namespace reel {
namespace {

// Kind of resource a create or destroy request is about; Count for any other request.
ResourceKind kindOf(CommandType type) {
  const CommandSemantics& semantics = semanticsOf(type);
  const bool names =
      semantics.category == CommandCategory::Create || semantics.category == CommandCategory::Destroy;
  return names ? semantics.resource : ResourceKind::Count;
}

// The device reads bytes of buffers and mips of textures: the kinds whose contents are those.
#define REEL_RESOURCE_KIND(Kind, name, Contents, summary)                                                  \
  static_assert(                                                                                           \
      ResourceContents::Contents != ResourceContents::Bytes || ResourceKind::Kind == ResourceKind::Buffer, \
      #Kind ": only buffers have Bytes contents (Device::readBuffer)");                                    \
  static_assert(                                                                                           \
      ResourceContents::Contents != ResourceContents::Mips || ResourceKind::Kind == ResourceKind::Texture, \
      #Kind ": only textures have Mips contents (Device::readTexture)");
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND

template <Command T>
T packetFrom(std::span<const std::byte> bytes) {
  T packet{};
  std::memcpy(static_cast<void*>(&packet), bytes.data(), std::min(bytes.size(), sizeof packet));
  return packet;
}

ResourceContents contentsOfCreate(CommandType createType) {
  const CommandSemantics& semantics = semanticsOf(createType);
  REEL_ASSERT(semantics.category == CommandCategory::Create, "contents of a request that is not a create");
  return resourceContentsOf(semantics.resource);
}

}  // namespace

Result<std::vector<std::vector<std::byte>>> readContents(Device& device, CommandType createType,
                                                         std::span<const std::byte> create) {
  std::vector<std::vector<std::byte>> contents;
  switch (contentsOfCreate(createType)) {
    case ResourceContents::None:
    case ResourceContents::CreateData:
      break;
    case ResourceContents::Bytes: {
      auto bytes = device.readBuffer(packetFrom<cmd::CreateBuffer>(create).buffer);
      if (!bytes) return bytes.error();
      contents.push_back(std::move(bytes.value()));
      break;
    }
    case ResourceContents::Mips: {
      const auto texture = packetFrom<cmd::CreateTexture>(create);
      for (uint32_t mip = 0; mip < std::max(1u, texture.desc.mipLevels); ++mip) {
        auto texels = device.readTexture(texture.texture, mip);
        if (!texels) return texels.error();
        contents.push_back(std::move(texels.value()));
      }
      break;
    }
  }
  return contents;
}

bool writeContents(ResourceContext& resources, CommandType createType, std::span<const std::byte> create,
                   std::span<const std::vector<std::byte>> contents, uint32_t firstMip) {
  switch (contentsOfCreate(createType)) {
    case ResourceContents::None:
    case ResourceContents::CreateData:
      return true;
    case ResourceContents::Bytes:
      return firstMip > 0 || contents.empty() || contents[0].empty() ||
             resources.writeBuffer(packetFrom<cmd::CreateBuffer>(create).buffer, 0, contents[0]);
    case ResourceContents::Mips: {
      const auto texture = packetFrom<cmd::CreateTexture>(create);
      for (uint32_t mip = firstMip; mip < contents.size(); ++mip) {
        const uint32_t w = std::max(1u, texture.desc.width >> mip),
                       h = std::max(1u, texture.desc.height >> mip);
        if (!resources.writeTexture(texture.texture, mip, 0, 0, w, h, contents[mip])) return false;
      }
      return true;
    }
  }
  return false;
}

const LiveResources::Entry* LiveResources::find(ResourceKind kind, uint32_t handle) const {
  if (kind >= ResourceKind::Count) return nullptr;
  const auto& entries = byKind_[static_cast<size_t>(kind)];
  const uint32_t index = handle & kHandleIndexMask;
  if (index >= entries.size()) return nullptr;
  const Entry& entry = entries[index];
  return entry.createType != CommandType::Count && entry.handle == handle ? &entry : nullptr;
}

void LiveResources::onCreate(CommandType type, std::span<const std::byte> payload,
                             std::span<const std::byte> aux) {
  const ResourceKind kind = kindOf(type);
  if (kind == ResourceKind::Count || payload.size() < sizeof(uint32_t)) return;
  uint32_t handle;
  std::memcpy(&handle, payload.data(), sizeof handle);  // every Create* packet starts with its handle
  auto& entries = byKind_[static_cast<size_t>(kind)];
  const uint32_t index = handle & kHandleIndexMask;
  if (index >= entries.size()) entries.resize(index + 1);
  Entry& entry = entries[index];
  entry.createType = type;
  entry.handle = handle;
  entry.payload.assign(payload.begin(), payload.end());
  if (resourceContentsOf(kind) == ResourceContents::CreateData) {
    entry.aux.assign(aux.begin(), aux.end());
  } else {
    entry.aux.clear();
  }
}

void LiveResources::onDestroy(CommandType type, uint32_t handle) {
  const ResourceKind kind = kindOf(type);
  if (kind == ResourceKind::Count) return;
  auto& entries = byKind_[static_cast<size_t>(kind)];
  const uint32_t index = handle & kHandleIndexMask;
  if (index < entries.size() && entries[index].handle == handle) entries[index] = Entry{};
}

size_t LiveResources::count() const {
  size_t n = 0;
  forEach([&](const Entry&) { ++n; });
  return n;
}

}  // namespace reel
