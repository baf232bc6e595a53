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
    const TextureState* t = textures_.find(request.texture);
    if (!t) {
      request.callback(fail("readback: ", formatHandle(request.texture), " is not live"));
      continue;
    }
    request.callback(
        ReadbackImage{frame, request.texture, t->desc.width, t->desc.height, t->desc.format, t->mip0});
  }
}

void NullDevice::requestReadback(TextureHandle texture, uint64_t frame, ReadbackCallback callback) {
  std::lock_guard lock(readbackMutex_);
  readbacks_.push_back(ReadbackRequest{texture, frame, std::move(callback)});
}

uint32_t NullDevice::liveResources() const {
  return buffers_.liveCount() + textures_.liveCount() + samplers_.liveCount() + shaders_.liveCount() +
         pipelines_.liveCount() + targets_.liveCount();
}

template <ResourceKind K>
bool NullDevice::check(Handle<K> handle, const char* command, const char* field) {
  bool live = false;
  switch (K) {
    case ResourceKind::Buffer:
      live = buffers_.find(BufferHandle{handle.value}) != nullptr;
      break;
    case ResourceKind::Texture:
      live = textures_.find(TextureHandle{handle.value}) != nullptr;
      break;
    case ResourceKind::Sampler:
      live = samplers_.find(SamplerHandle{handle.value}) != nullptr;
      break;
    case ResourceKind::Shader:
      live = shaders_.find(ShaderHandle{handle.value}) != nullptr;
      break;
    case ResourceKind::Pipeline:
      live = pipelines_.find(PipelineHandle{handle.value}) != nullptr;
      break;
    case ResourceKind::RenderTarget:
      live = targets_.find(RenderTargetHandle{handle.value}) != nullptr;
      break;
    case ResourceKind::Count:
      break;
  }
  if (!live && !handle.isNull()) {
    reportError("frame " + std::to_string(frame_) + ": " + command + "." + field + " names " +
                formatHandle(handle) + ", which is not live on the device");
  }
  return live || handle.isNull();
}

namespace {
// memcpy with a length of 0 still wants valid pointers; an empty span's data() may be null.
void copyBytes(std::byte* to, const std::byte* from, uint64_t n) {
  if (n != 0) std::memmove(to, from, n);
}

NullDevice::BufferState initialBuffer(const BufferDesc& desc, std::span<const std::byte> aux) {
  std::vector<std::byte> bytes(desc.size);
  copyBytes(bytes.data(), aux.data(), std::min<uint64_t>(aux.size(), desc.size));
  return {desc, std::move(bytes)};
}
NullDevice::TextureState initialTexture(const TextureDesc& desc, std::span<const std::byte> aux) {
  std::vector<std::byte> mip0(uint64_t{desc.width} * desc.height * formatBytesPerPixel(desc.format));
  copyBytes(mip0.data(), aux.data(), std::min<uint64_t>(aux.size(), mip0.size()));
  return {desc, std::move(mip0)};
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
void NullDevice::record(const T& packet, const PacketContext& context) {
  ++commandCount_;
  bool valid = true;
  if constexpr (T::kQueue == CommandQueue::Sorted || T::kType == CommandType::WriteBuffer ||
                T::kType == CommandType::WriteTexture || T::kType == CommandType::CreateRenderTarget ||
                T::kType == CommandType::CreatePipeline) {
    forEachHandle(FieldsOf<T>::fields(), reinterpret_cast<const std::byte*>(&packet),
                  [&](const FieldInfo& f, uint32_t value) {
                    const char* name = commandName(T::kType);
                    switch (f.handleKind) {
                      case ResourceKind::Buffer:
                        valid &= check(BufferHandle{value}, name, f.name);
                        break;
                      case ResourceKind::Texture:
                        valid &= check(TextureHandle{value}, name, f.name);
                        break;
                      case ResourceKind::Sampler:
                        valid &= check(SamplerHandle{value}, name, f.name);
                        break;
                      case ResourceKind::Shader:
                        valid &= check(ShaderHandle{value}, name, f.name);
                        break;
                      case ResourceKind::Pipeline:
                        valid &= check(PipelineHandle{value}, name, f.name);
                        break;
                      case ResourceKind::RenderTarget:
                        valid &= check(RenderTargetHandle{value}, name, f.name);
                        break;
                      case ResourceKind::Count:
                        break;
                    }
                  });
  }
  if (!valid || !recordCalls_) return;  // a packet with a dead handle is skipped, as the Vulkan device does
  Call call{Call::Kind::Command, frame_, T::kType, {}, {}, {}};
  const auto* bytes = reinterpret_cast<const std::byte*>(&packet);
  call.payload.assign(bytes, bytes + sizeof(T));
  call.aux.assign(context.aux.begin(), context.aux.end());
  if (context.tag) call.tag = std::string(context.tag->message());
  calls_.push_back(std::move(call));
}

// Creates and destroys keep the slot table; every other command is checked and recorded.
#define REEL_TABLE_OPS(Create, Destroy, table, field, makeState)                                    \
  void NullDevice::execute(const cmd::Create& p, const PacketContext& c) {                          \
    if (!table.insert(p.field, makeState)) reportError(std::string(#Create ": slot already live")); \
    record(p, c);                                                                                   \
  }                                                                                                 \
  void NullDevice::execute(const cmd::Destroy& p, const PacketContext& c) {                         \
    if (!table.take(p.field)) reportError(std::string(#Destroy ": handle is not live"));            \
    record(p, c);                                                                                   \
  }
REEL_TABLE_OPS(CreateBuffer, DestroyBuffer, buffers_, buffer, initialBuffer(p.desc, c.aux))
REEL_TABLE_OPS(CreateTexture, DestroyTexture, textures_, texture, initialTexture(p.desc, c.aux))
REEL_TABLE_OPS(CreateSampler, DestroySampler, samplers_, sampler, p.desc)
REEL_TABLE_OPS(CreateShader, DestroyShader, shaders_, shader, p.desc)
REEL_TABLE_OPS(CreatePipeline, DestroyPipeline, pipelines_, pipeline, p.desc)
REEL_TABLE_OPS(CreateRenderTarget, DestroyRenderTarget, targets_, target, p.desc)
#undef REEL_TABLE_OPS

void NullDevice::writeTexels(TextureState& texture, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                             const std::byte* texels, uint32_t sourcePitch) {
  const uint32_t bpp = formatBytesPerPixel(texture.desc.format);
  const uint32_t pitch = texture.desc.width * bpp;
  for (uint32_t row = 0; row < height && y + row < texture.desc.height; ++row) {
    const uint32_t columns = std::min(width, texture.desc.width - std::min(x, texture.desc.width));
    copyBytes(texture.mip0.data() + uint64_t{y + row} * pitch + uint64_t{x} * bpp,
              texels + uint64_t{row} * sourcePitch, uint64_t{columns} * bpp);
  }
}

void NullDevice::execute(const cmd::WriteBuffer& p, const PacketContext& c) {
  if (BufferState* b = buffers_.find(p.buffer); b && p.offset <= b->bytes.size()) {
    copyBytes(b->bytes.data() + p.offset, c.aux.data(),
              std::min<uint64_t>(c.aux.size(), b->bytes.size() - p.offset));
  }
  record(p, c);
}

void NullDevice::execute(const cmd::UpdateBuffer& p, const PacketContext& c) {
  if (BufferState* b = buffers_.find(p.buffer); b && p.offset <= b->bytes.size()) {
    copyBytes(b->bytes.data() + p.offset, c.aux.data(),
              std::min<uint64_t>(c.aux.size(), b->bytes.size() - p.offset));
  }
  record(p, c);
}

void NullDevice::execute(const cmd::CopyBuffer& p, const PacketContext& c) {
  BufferState* from = buffers_.find(p.source);
  BufferState* to = buffers_.find(p.destination);
  if (from && to && p.sourceOffset + p.size <= from->bytes.size() &&
      p.destinationOffset + p.size <= to->bytes.size()) {
    copyBytes(to->bytes.data() + p.destinationOffset, from->bytes.data() + p.sourceOffset, p.size);
  }
  record(p, c);
}

void NullDevice::execute(const cmd::WriteTexture& p, const PacketContext& c) {
  if (TextureState* t = textures_.find(p.texture); t && p.mipLevel == 0) {
    const uint32_t pitch = p.width * formatBytesPerPixel(t->desc.format);
    if (uint64_t{pitch} * p.height <= c.aux.size())
      writeTexels(*t, p.x, p.y, p.width, p.height, c.aux.data(), pitch);
  }
  record(p, c);
}

void NullDevice::execute(const cmd::CopyTexture& p, const PacketContext& c) {
  TextureState* from = textures_.find(p.source);
  TextureState* to = textures_.find(p.destination);
  if (from && to && from->desc.format == to->desc.format && p.sourceX >= 0 && p.sourceY >= 0 &&
      p.destinationX >= 0 && p.destinationY >= 0 && p.sourceX + p.width <= from->desc.width &&
      p.sourceY + p.height <= from->desc.height) {
    const uint32_t bpp = formatBytesPerPixel(from->desc.format);
    const uint32_t pitch = from->desc.width * bpp;
    const std::vector<std::byte> source = from->mip0;  // copy: source and destination may be one texture
    writeTexels(*to, p.destinationX, p.destinationY, p.width, p.height,
                source.data() + uint64_t(p.sourceY) * pitch + uint64_t(p.sourceX) * bpp, pitch);
  }
  record(p, c);
}

Result<std::vector<std::byte>> NullDevice::readBuffer(BufferHandle buffer) {
  const BufferState* b = buffers_.find(buffer);
  if (!b) return fail("readBuffer: ", formatHandle(buffer), " is not live");
  return b->bytes;
}

Result<std::vector<std::byte>> NullDevice::readTexture(TextureHandle texture, uint32_t mipLevel) {
  const TextureState* t = textures_.find(texture);
  if (!t) return fail("readTexture: ", formatHandle(texture), " is not live");
  if (mipLevel >= std::max(1u, t->desc.mipLevels))
    return fail("readTexture: mip ", mipLevel, " out of range");
  if (mipLevel == 0) return t->mip0;
  const uint32_t w = std::max(1u, t->desc.width >> mipLevel), h = std::max(1u, t->desc.height >> mipLevel);
  return std::vector<std::byte>(uint64_t{w} * h * formatBytesPerPixel(t->desc.format));
}

#define REEL_RECORD(Name)                                                \
  void NullDevice::execute(const cmd::Name& p, const PacketContext& c) { \
    record(p, c);                                                        \
  }
REEL_RECORD(BeginRenderPass)
REEL_RECORD(EndRenderPass)
REEL_RECORD(SetViewport)
REEL_RECORD(SetScissor)
REEL_RECORD(BindPipeline)
REEL_RECORD(BindVertexBuffer)
REEL_RECORD(BindIndexBuffer)
REEL_RECORD(BindTexture)
REEL_RECORD(BindUniformBuffer)
REEL_RECORD(BindStorageBuffer)
REEL_RECORD(PushConstants)
REEL_RECORD(Draw)
REEL_RECORD(DrawIndexed)
REEL_RECORD(DrawInstanced)
REEL_RECORD(DrawIndexedInstanced)
REEL_RECORD(Dispatch)
REEL_RECORD(BlitTexture)
REEL_RECORD(DebugMarkerBegin)
REEL_RECORD(DebugMarkerEnd)
#undef REEL_RECORD

}  // namespace reel
