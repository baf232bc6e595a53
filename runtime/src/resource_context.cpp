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
  const Handle<K> handle = pools_.get<K>().allocate();
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
PipelineHandle ResourceContext::createPipeline(const PipelineDesc& desc,
                                               const PipelineInstancing& instancing) {
  return create(&cmd::CreatePipeline::pipeline, desc, std::as_bytes(std::span(&instancing, 1)));
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

template <ResourceKind K>
bool ResourceContext::destroy(Handle<K> handle) {
  using Destroy = typename ResourceCommands<K>::Destroy;
  if (!pools_.get<K>().retire(handle)) return false;
  auto packet = zeroed<Destroy>();
  static_assert(sizeof(Destroy) == sizeof(Handle<K>), "a destroy request is its one handle");
  std::memcpy(static_cast<void*>(&packet), &handle, sizeof handle);
  std::lock_guard lock(mutex_);
  record(packet, {});
  return true;
}
#define REEL_RESOURCE_KIND(Kind, name, Contents, summary) \
  template bool ResourceContext::destroy(Handle<ResourceKind::Kind> handle);
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND

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
  const CommandSemantics& semantics = semanticsOf(type);
  // A write names a live handle; the device checks it.
  if (semantics.category == CommandCategory::Create || semantics.category == CommandCategory::Destroy) {
    const bool creates = semantics.category == CommandCategory::Create;
    const bool ok = visitResourceKind(semantics.resource, [&]<ResourceKind K>() {
      return creates ? pools_.get<K>().adopt(Handle<K>{handle}) : pools_.get<K>().retire(Handle<K>{handle});
    });
    if (!ok) {
      return fail(commandName(type), ": ", formatHandle(semantics.resource, handle), " cannot be ",
                  creates ? "created (its slot is live)" : "destroyed (it is not live)");
    }
  }
  std::lock_guard lock(mutex_);
  recordBytes(type, payload, aux);
  return {};
}

void ResourceContext::reserveRequestBytes(size_t bytes) {
  std::lock_guard lock(mutex_);
  current_->bytes.reserve(current_->bytes.size() + bytes);
}

PassId ResourceContext::declarePass(std::string_view name, const PassDesc& desc) {
  auto packet = zeroed<cmd::DeclarePass>();
  packet.desc = desc;
  std::lock_guard lock(mutex_);
  if (passesDeclared_ >= PassId::kMaxPasses) return PassId{};
  packet.pass = passesDeclared_++;
  record(packet, std::as_bytes(std::span(name.data(), name.size())));
  return PassId{static_cast<uint16_t>(packet.pass)};
}

RequestStream& ResourceContext::handOver() {
  std::lock_guard lock(mutex_);
  passesDeclared_ = 0;
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
  const CommandSemantics& semantics = semanticsOf(destroyType);
  REEL_ASSERT(semantics.category == CommandCategory::Destroy, "recycle of a request that is not a destroy");
  visitResourceKind(semantics.resource,
                    [&]<ResourceKind K>() { pools_.get<K>().recycle(Handle<K>{handleValue}); });
}

}  // namespace reel
