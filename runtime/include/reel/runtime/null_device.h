#pragma once
// A Device without a GPU (sokol's dummy backend, Filament's NoopDriver): it keeps the resources it was
// asked to create in a slot table, checks every handle a packet names against it (a stale or unknown
// handle is reported, not used), and records every call, so the whole CPU path can be tested.

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "reel/runtime/detail/resource_table.h"
#include "reel/runtime/device.h"

namespace reel {

class NullDevice final : public Device {
 public:
  struct Call {
    enum class Kind : uint8_t { BeginFrame, EndFrame, Command } kind;
    uint64_t frame = 0;
    CommandType type = CommandType::Count;
    std::vector<std::byte> payload;
    std::vector<std::byte> aux;
    std::string tag;  // the tag's message

    template <Command T>
    const T& as() const {
      REEL_ASSERT(type == T::kType && payload.size() == sizeof(T), "Call::as with the wrong command type");
      return *reinterpret_cast<const T*>(payload.data());
    }
  };

  // What the device holds for a buffer / texture.
  struct BufferState {
    BufferDesc desc;
    std::vector<std::byte> bytes;
  };
  struct TextureState {
    TextureDesc desc;
    std::vector<std::byte> mip0;
  };

  explicit NullDevice(bool recordCalls = true, DeviceInfo info = {"null", "reel null device", "0", "null"})
      : recordCalls_(recordCalls), info_(std::move(info)) {}

  const char* name() const override { return "null"; }
  // What the device says it is: `reel trim` keeps the capture device of the trace it trims.
  DeviceInfo info() const override { return info_; }
  // The null device keeps buffer and texture bytes as the requests and the copy/update commands leave
  // them; it does not rasterize, so draws, dispatches and blits change nothing.
  Result<std::vector<std::byte>> readBuffer(BufferHandle buffer) override;
  Result<std::vector<std::byte>> readTexture(TextureHandle texture, uint32_t mipLevel) override;
  // Delivers mip 0 as readTexture sees it at the end of `frame` (the null device renders nothing, so that
  // is what uploads and copies left there), from endFrame.
  void requestReadback(TextureHandle texture, uint64_t frame, ReadbackCallback callback) override;
  void beginFrame(uint64_t frame) override;
  void endFrame(uint64_t frame) override;
  void waitIdle() override {}

#define REEL_COMMAND(Name, Queue, ...) \
  void execute(const cmd::Name& packet, const PacketContext& context) override;
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

  // Render-thread data: read only after Renderer::flushAndWait().
  const std::vector<Call>& calls() const {
    return calls_;
  }
  void clearCalls() {
    calls_.clear();
  }
  uint64_t commandCount() const {
    return commandCount_;
  }
  uint32_t liveResources() const;

 private:
  template <Command T>
  void record(const T& packet, const PacketContext& context);
  template <ResourceKind K>
  bool check(Handle<K> handle, const char* command, const char* field);

  bool recordCalls_;
  DeviceInfo info_;
  uint64_t frame_ = 0;
  uint64_t commandCount_ = 0;
  std::vector<Call> calls_;
  struct ReadbackRequest {
    TextureHandle texture;
    uint64_t frame;
    ReadbackCallback callback;
  };
  std::mutex readbackMutex_;  // requestReadback may be called from any thread
  std::vector<ReadbackRequest> readbacks_;
  void writeTexels(TextureState& texture, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                   const std::byte* texels, uint32_t sourcePitch);

  ResourceTable<ResourceKind::Buffer, BufferState> buffers_;
  ResourceTable<ResourceKind::Texture, TextureState> textures_;
  ResourceTable<ResourceKind::Sampler, SamplerDesc> samplers_;
  ResourceTable<ResourceKind::Shader, ShaderDesc> shaders_;
  ResourceTable<ResourceKind::Pipeline, PipelineDesc> pipelines_;
  ResourceTable<ResourceKind::RenderTarget, RenderTargetDesc> targets_;
};

}  // namespace reel
