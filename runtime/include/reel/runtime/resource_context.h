#pragma once
// Free-threaded resource requests (Stingray's RenderResourceContext): create, write and destroy calls
// from any thread hand out a handle at once and record a request packet, with its descriptor and data
// copied in. The render thread applies a frame's requests in the order they were made, before the
// frame's sorted commands; destroy requests after them, so a resource destroyed in frame N can still
// be drawn with in frame N.
//
// A destroyed handle is stale for the app at once; its slot is recycled only after the render thread
// has destroyed the device object, so a new resource never meets the old one's slot on the device.

#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/commands.h"
#include "reel/runtime/handle.h"
#include "reel/runtime/result.h"

namespace reel {

// Growing a vector with it leaves the new elements uninitialised: request bytes are written right
// after they are sized, and zero-filling megabytes of texture data first only doubled the work.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// One frame's requests: packets laid out as in a bucket (PacketHeader, payload, aux), in request order.
// Only the packets' own bytes are ever read: the padding between them is not initialised.
struct RequestStream {
  std::vector<std::byte, DefaultInitAllocator<std::byte>> bytes;  // offset 0 is never a request
  std::vector<uint32_t> requests;                                 // offsets, in request order
  mutable std::atomic<uint32_t> references{0};                    // as BucketStream::references
  const PacketHeader& header(uint32_t offset) const {
    return *reinterpret_cast<const PacketHeader*>(bytes.data() + offset);
  }
  const std::byte* payload(uint32_t offset) const { return bytes.data() + offset + sizeof(PacketHeader); }
  std::span<const std::byte> aux(const PacketHeader& h) const {
    return {bytes.data() + h.auxOffset, h.auxSize};
  }
};

class ResourceContext {
 public:
  ResourceContext();

  // Returns the null handle when a kind's handles are exhausted.
  BufferHandle createBuffer(const BufferDesc& desc, std::span<const std::byte> initialData = {});
  TextureHandle createTexture(const TextureDesc& desc, std::span<const std::byte> initialData = {});
  SamplerHandle createSampler(const SamplerDesc& desc);
  ShaderHandle createShader(const ShaderDesc& desc, std::span<const std::byte> spirv);
  PipelineHandle createPipeline(const PipelineDesc& desc);
  // A graphics pipeline that opts in to instance merging (PipelineInstancing, descriptors.inc): the opt-in
  // travels as the request's auxiliary data.
  PipelineHandle createPipeline(const PipelineDesc& desc, const PipelineInstancing& instancing);
  RenderTargetHandle createRenderTarget(const RenderTargetDesc& desc);

  // Return false (and record nothing) for a handle that is not live.
  bool writeBuffer(BufferHandle buffer, uint64_t offset, std::span<const std::byte> data);
  bool writeTexture(TextureHandle texture, uint32_t mipLevel, uint32_t x, uint32_t y, uint32_t width,
                    uint32_t height, std::span<const std::byte> texels);
  template <ResourceKind K>
  bool destroy(Handle<K> handle);

  // Declares the next pass of the frame being recorded (bgfx's views; docs/passes-and-graph.md): the
  // renderer begins it before the first sorted key that names it (CommandBucket::add(pass, key)) and ends
  // it after the last, so the pass's packets need no BeginRenderPass / EndRenderPass of their own. Passes
  // run in declaration order; ids restart at 0 every frame. A pass no key names still begins and ends (a
  // clear). Returns PassId{} (no pass) once a frame has declared PassId::kMaxPasses.
  PassId declarePass(std::string_view name, const PassDesc& desc);

  // Records a request read from a trace, as it was recorded: a create adopts the handle the trace
  // names (so the trace's packets need no remapping), a destroy retires it. `payload` must be the
  // command's size. Returns an error, and records nothing, when the handle cannot be adopted or
  // retired or the request is not a resource request.
  Result<void> replayRequest(CommandType type, std::span<const std::byte> payload,
                             std::span<const std::byte> aux);
  // Room for `bytes` more of requests in this frame (a replay creating a trace's resources knows how much
  // their data is): one allocation instead of a vector growing through every size up to it.
  void reserveRequestBytes(size_t bytes);

  template <ResourceKind K>
  HandleState state(Handle<K> handle) const {
    return pools_.get<K>().state(handle);
  }
  template <ResourceKind K>
  bool isLive(Handle<K> handle) const {
    return state(handle) == HandleState::Live;
  }

  // ---- for the renderer ----
  RequestStream& handOver();  // app thread, inside kick()
  // Render thread, after a frame's destroy requests reached the device: their slots may be reused.
  void recycle(CommandType destroyType, uint32_t handleValue);

 private:
  template <Command T>
  T& record(const T& packet, std::span<const std::byte> aux);
  void recordBytes(CommandType type, std::span<const std::byte> payload, std::span<const std::byte> aux);
  template <Command C, ResourceKind K>
  Handle<K> create(Handle<K> C::*handleField, const decltype(C::desc)& desc, std::span<const std::byte> aux);

  PerResourceKind<HandlePool> pools_;
  std::mutex mutex_;
  std::array<std::unique_ptr<RequestStream>, kMaxFramesInFlight + 1 + kMaxObserverRetainedFrames> streams_;
  RequestStream* current_ = nullptr;
  uint32_t passesDeclared_ = 0;  // in the frame being recorded
};

}  // namespace reel
