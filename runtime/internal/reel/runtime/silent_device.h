#pragma once
// A Device that does nothing with what it is given, for the project's tests and benchmarks of the CPU
// path that need a device of their own: it takes translation jobs (as many as the renderer may run), has
// no contents to read back, and hands each command to record(), which does nothing unless a subclass
// records it. (NullDevice, by contrast, keeps resources and records calls, on one thread.)

#include <cstddef>
#include <cstdint>
#include <vector>

#include "reel/runtime/device.h"
#include "reel/runtime/frame_timing.h"

namespace reel {

class SilentDevice : public Device {
 public:
  explicit SilentDevice(const char* name) : name_(name) {}

  const char* name() const override { return name_; }
  DeviceInfo info() const override { return {name_, "reel silent device", "0", "null"}; }
  void beginFrame(uint64_t) override {}
  void endFrame(uint64_t) override {}
  void waitIdle() override {}
  Result<std::vector<std::byte>> readBuffer(BufferHandle) override { return fail(name_, ": no contents"); }
  Result<std::vector<std::byte>> readTexture(TextureHandle, uint32_t) override {
    return fail(name_, ": no contents");
  }
  uint32_t jobCapacity() const override { return kMaxRenderWorkers; }

#define REEL_COMMAND(Name, Semantics, ...)                          \
  void execute(const cmd::Name& p, const PacketContext&) override { \
    record(CommandType::Name, &p, sizeof p);                        \
  }
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND

 protected:
  // Each command, on the thread that translates it (a job's, in wide frames).
  virtual void record(CommandType type, const void* payload, size_t size) {
    (void)type;
    (void)payload;
    (void)size;
  }

 private:
  const char* name_;
};

}  // namespace reel
