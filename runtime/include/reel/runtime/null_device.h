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

  // What the device holds for a resource: its descriptor, and its contents (resourceContentsOf its kind):
  // a buffer's bytes, a texture's mip 0.
  template <ResourceKind K>
  struct Resource {
    DescOf<K> desc;
    std::vector<std::byte> bytes;
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

#define REEL_COMMAND(Name, Semantics, ...)                                       \
  void execute(const cmd::Name& packet, const PacketContext& context) override { \
    apply(packet, context);                                                      \
  }
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
  template <ResourceKind K>
  using Table = ResourceTable<K, Resource<K>>;

  // Every command: a create or destroy keeps its kind's table, a command that changes contents changes
  // them (change()), and every command is checked and recorded.
  template <Command T>
  void apply(const T& packet, const PacketContext& context);
  // What a command does to the contents the device keeps; nothing for most.
  template <Command T>
  void change(const T&, const PacketContext&) {}
  void change(const cmd::WriteBuffer& p, const PacketContext& c);
  void change(const cmd::UpdateBuffer& p, const PacketContext& c);
  void change(const cmd::CopyBuffer& p, const PacketContext& c);
  void change(const cmd::WriteTexture& p, const PacketContext& c);
  // A write request and an update command do the same to the bytes kept: the aux data at the offset.
  void writeBytes(BufferHandle buffer, uint64_t offset, std::span<const std::byte> bytes);
  void change(const cmd::CopyTexture& p, const PacketContext& c);
  // False when a handle the packet names (other than the one a create or destroy is about) is not live.
  template <Command T>
  bool checkHandles(const T& packet);

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
  void writeTexels(Resource<ResourceKind::Texture>& texture, uint32_t x, uint32_t y, uint32_t width,
                   uint32_t height, const std::byte* texels, uint32_t sourcePitch);

  PerResourceKind<Table> tables_;
};

}  // namespace reel
