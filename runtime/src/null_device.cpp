#include "reel/runtime/null_device.h"

#include <algorithm>
#include <cstring>

namespace reel {

void NullDevice::beginFrame(uint64_t frame) {
  frame_ = frame;
  if (recordCalls_) calls_.push_back(Call{Call::Kind::BeginFrame, frame, CommandType::Count, {}, {}, {}});
}

void NullDevice::endFrame(uint64_t frame) {
  if (recordCalls_) calls_.push_back(Call{Call::Kind::EndFrame, frame, CommandType::Count, {}, {}, {}});
  std::vector<ReadbackRequest> due;
  {
    std::lock_guard lock(readbackMutex_);
    auto past = std::stable_partition(readbacks_.begin(), readbacks_.end(),
                                      [frame](const ReadbackRequest& r) { return r.frame > frame; });
    due.assign(std::make_move_iterator(past), std::make_move_iterator(readbacks_.end()));
    readbacks_.erase(past, readbacks_.end());
  }
  for (ReadbackRequest& request : due) {
    if (request.frame != frame) {
      request.callback(fail("readback of frame ", request.frame, ": that frame had already ended"));
      continue;
    }
    const auto* t = tables_.get<ResourceKind::Texture>().find(request.texture);
    if (!t) {
      request.callback(fail("readback: ", formatHandle(request.texture), " is not live"));
      continue;
    }
    request.callback(
        ReadbackImage{frame, request.texture, t->desc.width, t->desc.height, t->desc.format, t->bytes});
  }
}

void NullDevice::requestReadback(TextureHandle texture, uint64_t frame, ReadbackCallback callback) {
  std::lock_guard lock(readbackMutex_);
  readbacks_.push_back(ReadbackRequest{texture, frame, std::move(callback)});
}

uint32_t NullDevice::liveResources() const {
  uint32_t live = 0;
  forEachResourceKind([&]<ResourceKind K>() { live += tables_.get<K>().liveCount(); });
  return live;
}

namespace {
// memcpy with a length of 0 still wants valid pointers; an empty span's data() may be null.
void copyBytes(std::byte* to, const std::byte* from, uint64_t n) {
  if (n != 0) std::memmove(to, from, n);
}

// A resource request names its handle in its first field (commands.cpp checks every request does).
template <Command T>
uint32_t firstHandleValue(const T& packet) {
  uint32_t value;
  std::memcpy(&value, static_cast<const void*>(&packet), sizeof value);
  return value;
}

// Every handle field of a packet, nested descriptors included, through the command's field table.
template <typename Fn>
void forEachHandle(std::span<const FieldInfo> fields, const std::byte* data, Fn&& fn) {
  for (const FieldInfo& f : fields) {
    for (uint32_t i = 0; i < f.count; ++i) {
      const std::byte* p = data + f.offset + uint64_t{i} * f.size;
      if (f.type == FieldType::Handle) {
        uint32_t value;
        std::memcpy(&value, p, sizeof value);
        fn(f, value);
      } else if (f.type == FieldType::Struct) {
        forEachHandle(f.children, p, fn);
      }
    }
  }
}
}  // namespace

template <Command T>
bool NullDevice::checkHandles(const T& packet) {
  constexpr CommandCategory category = T::kSemantics.category;
  // A create's or destroy's own handle (its first field) is the table's business.
  const bool skipFirst = category == CommandCategory::Create || category == CommandCategory::Destroy;
  bool valid = true;
  forEachHandle(FieldsOf<T>::fields(), reinterpret_cast<const std::byte*>(&packet),
                [&](const FieldInfo& f, uint32_t value) {
                  if ((skipFirst && f.offset == 0) || value == 0) return;
                  const bool live = visitResourceKind(f.handleKind, [&]<ResourceKind K>() {
                    return tables_.get<K>().find(Handle<K>{value}) != nullptr;
                  });
                  if (!live) {
                    reportError("frame " + std::to_string(frame_) + ": " + commandName(T::kType) + "." +
                                f.name + " names " + formatHandle(f.handleKind, value) +
                                ", which is not live on the device");
                    valid = false;
                  }
                });
  return valid;
}

template <Command T>
void NullDevice::apply(const T& packet, const PacketContext& context) {
  constexpr CommandSemantics semantics = T::kSemantics;
  ++commandCount_;
  if constexpr (semantics.category == CommandCategory::Create) {
    constexpr ResourceKind K = semantics.resource;
    Resource<K> resource{packet.desc, {}};
    // The contents a create's auxiliary data starts (the rest zero).
    if constexpr (resourceContentsOf(K) == ResourceContents::Bytes) {
      resource.bytes.resize(packet.desc.size);
      copyBytes(resource.bytes.data(), context.aux.data(),
                std::min<uint64_t>(context.aux.size(), resource.bytes.size()));
    } else if constexpr (resourceContentsOf(K) == ResourceContents::Mips) {
      resource.bytes.resize(uint64_t{packet.desc.width} * packet.desc.height *
                            formatBytesPerPixel(packet.desc.format));
      copyBytes(resource.bytes.data(), context.aux.data(),
                std::min<uint64_t>(context.aux.size(), resource.bytes.size()));
    }
    const Handle<K> handle{firstHandleValue(packet)};
    if (!tables_.get<K>().insert(handle, std::move(resource)))
      reportError(std::string(commandName(T::kType)) + ": " + formatHandle(handle) + ": slot already live");
  } else if constexpr (semantics.category == CommandCategory::Destroy) {
    constexpr ResourceKind K = semantics.resource;
    const Handle<K> handle{firstHandleValue(packet)};
    if (!tables_.get<K>().take(handle))
      reportError(std::string(commandName(T::kType)) + ": " + formatHandle(handle) + " is not live");
  }
  // A packet with a dead handle changes nothing and is not recorded, as the Vulkan device skips it.
  if (!checkHandles(packet)) return;
  change(packet, context);
  if (!recordCalls_) return;
  Call call{Call::Kind::Command, frame_, T::kType, {}, {}, {}};
  const auto* bytes = reinterpret_cast<const std::byte*>(&packet);
  call.payload.assign(bytes, bytes + sizeof(T));
  call.aux.assign(context.aux.begin(), context.aux.end());
  if (context.tag) call.tag = std::string(context.tag->message());
  calls_.push_back(std::move(call));
}
#define REEL_COMMAND(Name, Semantics, ...) \
  template void NullDevice::apply(const cmd::Name& packet, const PacketContext& context);
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

void NullDevice::writeTexels(Resource<ResourceKind::Texture>& texture, uint32_t x, uint32_t y, uint32_t width,
                             uint32_t height, const std::byte* texels, uint32_t sourcePitch) {
  const uint32_t bpp = formatBytesPerPixel(texture.desc.format);
  const uint32_t pitch = texture.desc.width * bpp;
  for (uint32_t row = 0; row < height && y + row < texture.desc.height; ++row) {
    const uint32_t columns = std::min(width, texture.desc.width - std::min(x, texture.desc.width));
    copyBytes(texture.bytes.data() + uint64_t{y + row} * pitch + uint64_t{x} * bpp,
              texels + uint64_t{row} * sourcePitch, uint64_t{columns} * bpp);
  }
}

void NullDevice::writeBytes(BufferHandle buffer, uint64_t offset, std::span<const std::byte> bytes) {
  if (auto* b = tables_.get<ResourceKind::Buffer>().find(buffer); b && offset <= b->bytes.size()) {
    copyBytes(b->bytes.data() + offset, bytes.data(),
              std::min<uint64_t>(bytes.size(), b->bytes.size() - offset));
  }
}

void NullDevice::change(const cmd::WriteBuffer& p, const PacketContext& c) {
  writeBytes(p.buffer, p.offset, c.aux);
}

void NullDevice::change(const cmd::UpdateBuffer& p, const PacketContext& c) {
  writeBytes(p.buffer, p.offset, c.aux);
}

void NullDevice::change(const cmd::CopyBuffer& p, const PacketContext&) {
  auto* from = tables_.get<ResourceKind::Buffer>().find(p.source);
  auto* to = tables_.get<ResourceKind::Buffer>().find(p.destination);
  if (from && to && p.sourceOffset + p.size <= from->bytes.size() &&
      p.destinationOffset + p.size <= to->bytes.size()) {
    copyBytes(to->bytes.data() + p.destinationOffset, from->bytes.data() + p.sourceOffset, p.size);
  }
}

void NullDevice::change(const cmd::WriteTexture& p, const PacketContext& c) {
  if (auto* t = tables_.get<ResourceKind::Texture>().find(p.texture); t && p.mipLevel == 0) {
    const uint32_t pitch = p.width * formatBytesPerPixel(t->desc.format);
    if (uint64_t{pitch} * p.height <= c.aux.size())
      writeTexels(*t, p.x, p.y, p.width, p.height, c.aux.data(), pitch);
  }
}

void NullDevice::change(const cmd::CopyTexture& p, const PacketContext&) {
  auto* from = tables_.get<ResourceKind::Texture>().find(p.source);
  auto* to = tables_.get<ResourceKind::Texture>().find(p.destination);
  if (from && to && from->desc.format == to->desc.format && p.sourceX >= 0 && p.sourceY >= 0 &&
      p.destinationX >= 0 && p.destinationY >= 0 && p.sourceX + p.width <= from->desc.width &&
      p.sourceY + p.height <= from->desc.height) {
    const uint32_t bpp = formatBytesPerPixel(from->desc.format);
    const uint32_t pitch = from->desc.width * bpp;
    const std::vector<std::byte> source = from->bytes;  // copy: source and destination may be one texture
    writeTexels(*to, p.destinationX, p.destinationY, p.width, p.height,
                source.data() + uint64_t(p.sourceY) * pitch + uint64_t(p.sourceX) * bpp, pitch);
  }
}

Result<std::vector<std::byte>> NullDevice::readBuffer(BufferHandle buffer) {
  const auto* b = tables_.get<ResourceKind::Buffer>().find(buffer);
  if (!b) return fail("readBuffer: ", formatHandle(buffer), " is not live");
  return b->bytes;
}

Result<std::vector<std::byte>> NullDevice::readTexture(TextureHandle texture, uint32_t mipLevel) {
  const auto* t = tables_.get<ResourceKind::Texture>().find(texture);
  if (!t) return fail("readTexture: ", formatHandle(texture), " is not live");
  if (mipLevel >= std::max(1u, t->desc.mipLevels))
    return fail("readTexture: mip ", mipLevel, " out of range");
  if (mipLevel == 0) return t->bytes;
  const uint32_t w = std::max(1u, t->desc.width >> mipLevel), h = std::max(1u, t->desc.height >> mipLevel);
  return std::vector<std::byte>(uint64_t{w} * h * formatBytesPerPixel(t->desc.format));
}

}  // namespace reel
