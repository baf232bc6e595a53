#include "reel/runtime/null_device.h"

#include <cstring>

namespace reel {

void NullDevice::beginFrame(uint64_t frame) {
  frame_ = frame;
  if (recordCalls_) calls_.push_back(Call{Call::Kind::BeginFrame, frame, CommandType::Count, {}, {}, {}});
}

void NullDevice::endFrame(uint64_t frame) {
  if (recordCalls_) calls_.push_back(Call{Call::Kind::EndFrame, frame, CommandType::Count, {}, {}, {}});
}

uint32_t NullDevice::liveResources() const {
  return buffers_.liveCount() + textures_.liveCount() + samplers_.liveCount() + shaders_.liveCount() +
         pipelines_.liveCount() + targets_.liveCount();
}

template <ResourceKind K>
bool NullDevice::check(Handle<K> handle, const char* command, const char* field) {
  bool live = false;
  switch (K) {
    case ResourceKind::Buffer: live = buffers_.find(BufferHandle{handle.value}) != nullptr; break;
    case ResourceKind::Texture: live = textures_.find(TextureHandle{handle.value}) != nullptr; break;
    case ResourceKind::Sampler: live = samplers_.find(SamplerHandle{handle.value}) != nullptr; break;
    case ResourceKind::Shader: live = shaders_.find(ShaderHandle{handle.value}) != nullptr; break;
    case ResourceKind::Pipeline: live = pipelines_.find(PipelineHandle{handle.value}) != nullptr; break;
    case ResourceKind::RenderTarget: live = targets_.find(RenderTargetHandle{handle.value}) != nullptr; break;
    case ResourceKind::Count: break;
  }
  if (!live && !handle.isNull()) {
    reportError("frame " + std::to_string(frame_) + ": " + command + "." + field + " names " +
                resourceKindName(K) + " #" + std::to_string(handle.index()) + " generation " +
                std::to_string(handle.generation()) + ", which is not live on the device");
  }
  return live || handle.isNull();
}

namespace {
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
                      case ResourceKind::Buffer: valid &= check(BufferHandle{value}, name, f.name); break;
                      case ResourceKind::Texture: valid &= check(TextureHandle{value}, name, f.name); break;
                      case ResourceKind::Sampler: valid &= check(SamplerHandle{value}, name, f.name); break;
                      case ResourceKind::Shader: valid &= check(ShaderHandle{value}, name, f.name); break;
                      case ResourceKind::Pipeline: valid &= check(PipelineHandle{value}, name, f.name); break;
                      case ResourceKind::RenderTarget:
                        valid &= check(RenderTargetHandle{value}, name, f.name);
                        break;
                      case ResourceKind::Count: break;
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
#define REEL_TABLE_OPS(Create, Destroy, table, field)                                            \
  void NullDevice::execute(const cmd::Create& p, const PacketContext& c) {                       \
    if (!table.insert(p.field, p.desc)) reportError(std::string(#Create ": slot already live")); \
    record(p, c);                                                                                \
  }                                                                                              \
  void NullDevice::execute(const cmd::Destroy& p, const PacketContext& c) {                      \
    if (!table.take(p.field)) reportError(std::string(#Destroy ": handle is not live"));         \
    record(p, c);                                                                                \
  }
REEL_TABLE_OPS(CreateBuffer, DestroyBuffer, buffers_, buffer)
REEL_TABLE_OPS(CreateTexture, DestroyTexture, textures_, texture)
REEL_TABLE_OPS(CreateSampler, DestroySampler, samplers_, sampler)
REEL_TABLE_OPS(CreateShader, DestroyShader, shaders_, shader)
REEL_TABLE_OPS(CreatePipeline, DestroyPipeline, pipelines_, pipeline)
REEL_TABLE_OPS(CreateRenderTarget, DestroyRenderTarget, targets_, target)
#undef REEL_TABLE_OPS

#define REEL_RECORD(Name) \
  void NullDevice::execute(const cmd::Name& p, const PacketContext& c) { record(p, c); }
REEL_RECORD(WriteBuffer)
REEL_RECORD(WriteTexture)
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
REEL_RECORD(CopyBuffer)
REEL_RECORD(UpdateBuffer)
REEL_RECORD(CopyTexture)
REEL_RECORD(BlitTexture)
REEL_RECORD(DebugMarkerBegin)
REEL_RECORD(DebugMarkerEnd)
#undef REEL_RECORD

}  // namespace reel
