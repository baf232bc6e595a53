#include "reel/runtime/live_resources.h"

#include <cstring>

namespace reel {
namespace {

// Kind of resource a create or destroy request is about; Count for any other request.
ResourceKind kindOf(CommandType type) {
  const std::optional<ResourceRequest> request = resourceRequestOf(type);
  return request ? request->kind : ResourceKind::Count;
}

}  // namespace

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
  if (type == CommandType::CreateShader) {
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
