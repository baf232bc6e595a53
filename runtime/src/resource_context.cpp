#include "reel/runtime/resource_context.h"

#include <cstring>

namespace reel {

ResourceContext::ResourceContext() {
  streams_[0] = std::make_unique<RequestStream>();
  current_ = streams_[0].get();
  current_->bytes.resize(8);
}

void ResourceContext::recordBytes(CommandType type, std::span<const std::byte> payload,
                                  std::span<const std::byte> aux) {
  // Caller holds mutex_.
  auto& bytes = current_->bytes;
  const size_t payloadBytes = (payload.size() + 7) & ~size_t{7};
  const size_t auxBytes = (aux.size() + 7) & ~size_t{7};
  const size_t offset = bytes.size();
  REEL_ASSERT(offset + sizeof(PacketHeader) + payloadBytes + auxBytes < UINT32_MAX,
              "a frame's resource requests exceed 4 GiB");
  bytes.resize(offset + sizeof(PacketHeader) + payloadBytes + auxBytes);
  PacketHeader header{};
  header.type = static_cast<uint16_t>(type);
  if (!aux.empty()) {
    header.auxOffset = static_cast<uint32_t>(offset + sizeof(PacketHeader) + payloadBytes);
    header.auxSize = static_cast<uint32_t>(aux.size());
    std::memcpy(bytes.data() + header.auxOffset, aux.data(), aux.size());
  }
  std::memcpy(bytes.data() + offset, &header, sizeof header);
  std::memcpy(bytes.data() + offset + sizeof(PacketHeader), payload.data(), payload.size());
  current_->requests.push_back(static_cast<uint32_t>(offset));
}

template <Command T>
T& ResourceContext::record(const T& packet, std::span<const std::byte> aux) {
  // Field by field into zeroed bytes: a struct's padding is indeterminate after copies and member stores
  // (zeroing the struct first is not enough), and requests go to traces byte for byte.
  std::byte bytes[sizeof(T)] = {};
  copyFields(FieldsOf<T>::fields(), &packet, bytes);
  recordBytes(T::kType, {bytes, sizeof(T)}, aux);
  return *reinterpret_cast<T*>(current_->bytes.data() + current_->requests.back() + sizeof(PacketHeader));
}

namespace {
template <typename T>
T zeroed() {
  T value;
  std::memset(static_cast<void*>(&value), 0, sizeof value);  // padding too: requests go to traces as bytes
  return value;
}
}  // namespace

template <Command C, ResourceKind K>
Handle<K> ResourceContext::create(Handle<K> C::*handleField, const decltype(C::desc)& desc,
                                  std::span<const std::byte> aux) {
  const Handle<K> handle = std::get<static_cast<size_t>(K)>(pools_).allocate();
  if (handle.isNull()) return handle;
  auto packet = zeroed<C>();
  packet.*handleField = handle;
  packet.desc = desc;
  std::lock_guard lock(mutex_);
  record(packet, aux);
  return handle;
}

BufferHandle ResourceContext::createBuffer(const BufferDesc& desc, std::span<const std::byte> initialData) {
  return create(&cmd::CreateBuffer::buffer, desc, initialData);
}
TextureHandle ResourceContext::createTexture(const TextureDesc& desc,
                                             std::span<const std::byte> initialData) {
  return create(&cmd::CreateTexture::texture, desc, initialData);
}
SamplerHandle ResourceContext::createSampler(const SamplerDesc& desc) {
  return create(&cmd::CreateSampler::sampler, desc, {});
}
ShaderHandle ResourceContext::createShader(const ShaderDesc& desc, std::span<const std::byte> spirv) {
  return create(&cmd::CreateShader::shader, desc, spirv);
}
PipelineHandle ResourceContext::createPipeline(const PipelineDesc& desc) {
  return create(&cmd::CreatePipeline::pipeline, desc, {});
}
RenderTargetHandle ResourceContext::createRenderTarget(const RenderTargetDesc& desc) {
  return create(&cmd::CreateRenderTarget::target, desc, {});
}

bool ResourceContext::writeBuffer(BufferHandle buffer, uint64_t offset, std::span<const std::byte> data) {
  if (!isLive(buffer)) return false;
  auto packet = zeroed<cmd::WriteBuffer>();
  packet.buffer = buffer;
  packet.offset = offset;
  std::lock_guard lock(mutex_);
  record(packet, data);
  return true;
}

bool ResourceContext::writeTexture(TextureHandle texture, uint32_t mipLevel, uint32_t x, uint32_t y,
                                   uint32_t width, uint32_t height, std::span<const std::byte> texels) {
  if (!isLive(texture)) return false;
  auto packet = zeroed<cmd::WriteTexture>();
  packet.texture = texture;
  packet.mipLevel = mipLevel;
  packet.x = x;
  packet.y = y;
  packet.width = width;
  packet.height = height;
  std::lock_guard lock(mutex_);
  record(packet, texels);
  return true;
}

template <ResourceKind K, Command Destroy>
bool ResourceContext::destroyHandle(Handle<K> handle) {
  if (!std::get<static_cast<size_t>(K)>(pools_).retire(handle)) return false;
  auto packet = zeroed<Destroy>();
  std::memcpy(static_cast<void*>(&packet), &handle,
              sizeof handle);  // every Destroy* packet is its one handle
  static_assert(sizeof(Destroy) == sizeof(Handle<K>));
  std::lock_guard lock(mutex_);
  record(packet, {});
  return true;
}

bool ResourceContext::destroy(BufferHandle h) {
  return destroyHandle<ResourceKind::Buffer, cmd::DestroyBuffer>(h);
}
bool ResourceContext::destroy(TextureHandle h) {
  return destroyHandle<ResourceKind::Texture, cmd::DestroyTexture>(h);
}
bool ResourceContext::destroy(SamplerHandle h) {
  return destroyHandle<ResourceKind::Sampler, cmd::DestroySampler>(h);
}
bool ResourceContext::destroy(ShaderHandle h) {
  return destroyHandle<ResourceKind::Shader, cmd::DestroyShader>(h);
}
bool ResourceContext::destroy(PipelineHandle h) {
  return destroyHandle<ResourceKind::Pipeline, cmd::DestroyPipeline>(h);
}
bool ResourceContext::destroy(RenderTargetHandle h) {
  return destroyHandle<ResourceKind::RenderTarget, cmd::DestroyRenderTarget>(h);
}

Result<void> ResourceContext::replayRequest(CommandType type, std::span<const std::byte> payload,
                                            std::span<const std::byte> aux) {
  if (type >= CommandType::Count || commandInfo(type).queue != CommandQueue::Resource) {
    return fail("not a resource request: command type ", static_cast<uint32_t>(type));
  }
  if (payload.size() != commandInfo(type).size) {
    return fail(commandName(type), ": payload is ", payload.size(), " bytes, expected ",
                commandInfo(type).size);
  }
  uint32_t handle;  // every request but the writes starts with its handle; the writes too
  std::memcpy(&handle, payload.data(), sizeof handle);
  bool ok = true;
  switch (type) {
    case CommandType::CreateBuffer:
      ok = std::get<0>(pools_).adopt(BufferHandle{handle});
      break;
    case CommandType::CreateTexture:
      ok = std::get<1>(pools_).adopt(TextureHandle{handle});
      break;
    case CommandType::CreateSampler:
      ok = std::get<2>(pools_).adopt(SamplerHandle{handle});
      break;
    case CommandType::CreateShader:
      ok = std::get<3>(pools_).adopt(ShaderHandle{handle});
      break;
    case CommandType::CreatePipeline:
      ok = std::get<4>(pools_).adopt(PipelineHandle{handle});
      break;
    case CommandType::CreateRenderTarget:
      ok = std::get<5>(pools_).adopt(RenderTargetHandle{handle});
      break;
    case CommandType::DestroyBuffer:
      ok = std::get<0>(pools_).retire(BufferHandle{handle});
      break;
    case CommandType::DestroyTexture:
      ok = std::get<1>(pools_).retire(TextureHandle{handle});
      break;
    case CommandType::DestroySampler:
      ok = std::get<2>(pools_).retire(SamplerHandle{handle});
      break;
    case CommandType::DestroyShader:
      ok = std::get<3>(pools_).retire(ShaderHandle{handle});
      break;
    case CommandType::DestroyPipeline:
      ok = std::get<4>(pools_).retire(PipelineHandle{handle});
      break;
    case CommandType::DestroyRenderTarget:
      ok = std::get<5>(pools_).retire(RenderTargetHandle{handle});
      break;
    default:
      break;  // writes name a live handle; the device checks it
  }
  if (!ok) {
    const std::optional<ResourceRequest> request = resourceRequestOf(type);
    return fail(commandName(type), ": ", formatHandle(request ? request->kind : ResourceKind::Count, handle),
                " cannot be ",
                commandName(type)[0] == 'C' ? "created (its slot is live)" : "destroyed (it is not live)");
  }
  std::lock_guard lock(mutex_);
  recordBytes(type, payload, aux);
  return {};
}

void ResourceContext::reserveRequestBytes(size_t bytes) {
  std::lock_guard lock(mutex_);
  current_->bytes.reserve(current_->bytes.size() + bytes);
}

RequestStream& ResourceContext::handOver() {
  std::lock_guard lock(mutex_);
  RequestStream& recorded = *current_;
  recorded.references.fetch_add(1, std::memory_order_relaxed);
  RequestStream* next = nullptr;
  for (auto& stream : streams_) {
    if (!stream) {
      stream = std::make_unique<RequestStream>();
      next = stream.get();
      break;
    }
    if (stream.get() != &recorded && stream->references.load(std::memory_order_acquire) == 0) {
      next = stream.get();
      break;
    }
  }
  REEL_ASSERT(next != nullptr, "no free request stream: more frames in flight than kMaxFramesInFlight");
  next->bytes.resize(8);
  next->requests.clear();
  current_ = next;
  return recorded;
}

void ResourceContext::recycle(CommandType destroyType, uint32_t handleValue) {
  switch (destroyType) {
    case CommandType::DestroyBuffer:
      std::get<0>(pools_).recycle(BufferHandle{handleValue});
      break;
    case CommandType::DestroyTexture:
      std::get<1>(pools_).recycle(TextureHandle{handleValue});
      break;
    case CommandType::DestroySampler:
      std::get<2>(pools_).recycle(SamplerHandle{handleValue});
      break;
    case CommandType::DestroyShader:
      std::get<3>(pools_).recycle(ShaderHandle{handleValue});
      break;
    case CommandType::DestroyPipeline:
      std::get<4>(pools_).recycle(PipelineHandle{handleValue});
      break;
    case CommandType::DestroyRenderTarget:
      std::get<5>(pools_).recycle(RenderTargetHandle{handleValue});
      break;
    default:
      REEL_ASSERT(false, "recycle of a request that is not a destroy");
  }
}

}  // namespace reel
