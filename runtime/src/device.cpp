#include "reel/runtime/device.h"

#include <array>
#include <string>
#include <utility>

#include "reel/runtime/assert.h"

namespace reel {

std::vector<std::string> Device::takeErrors() {
  std::lock_guard lock(errorMutex_);
  return std::exchange(errors_, {});
}

size_t Device::errorCount() const {
  std::lock_guard lock(errorMutex_);
  return errorCount_;
}

void Device::reportError(std::string message) {
  std::lock_guard lock(errorMutex_);
  ++errorCount_;
  // Keep the first errors of a flood: a stale handle in a retained bucket repeats every frame.
  if (errors_.size() < 1000) errors_.push_back(std::move(message));
}

void Device::requestReadback(TextureHandle texture, uint64_t frame, ReadbackCallback callback) {
  callback(fail("device '", name(), "' cannot read back ", formatHandle(texture), " of frame ", frame));
}

namespace {
// The job a thread translates (Device::enterJob): one at a time per thread, so one slot per thread.
struct JobSlot {
  const Device* device = nullptr;
  uint32_t job = 0;
};
thread_local JobSlot tlsJob;
}  // namespace

void Device::enterJob(uint32_t job) {
  REEL_ASSERT(tlsJob.device == nullptr, "enterJob on a thread that is in a job already");
  tlsJob = {this, job};
  beginJob(job);
}

void Device::leaveJob() {
  REEL_ASSERT(tlsJob.device == this, "leaveJob on a thread that is not in a job of this device");
  endJob(tlsJob.job);
  tlsJob = {};
}

uint32_t Device::currentJob() const {
  return tlsJob.device == this ? tlsJob.job : kNoJob;
}

void Device::assertOwnerThread(const char* call) const {
#ifndef NDEBUG
  const std::thread::id owner = ownerThread();
  // A render worker inside a job of this device translates for the render thread (enterJob).
  REEL_ASSERT(owner == std::thread::id() || owner == std::this_thread::get_id() || tlsJob.device == this,
              (std::string(call) + " on device '" + name() +
               "' from a thread that does not own it: while a Renderer drives a device, only its render "
               "thread calls into it (the kick thread inside Renderer::withIdleDevice)")
                  .c_str());
#else
  (void)call;
#endif
}

namespace {
using DispatchFn = void (*)(Device&, const void*, const PacketContext&);

constexpr std::array<DispatchFn, kCommandTypeCount> kDispatch = {
#define REEL_COMMAND(Name, Semantics, ...)                                \
  [](Device& device, const void* payload, const PacketContext& context) { \
    device.execute(*static_cast<const cmd::Name*>(payload), context);     \
  },
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
};
}  // namespace

void dispatchPacket(Device& device, CommandType type, const void* payload, const PacketContext& context) {
#ifndef NDEBUG
  // Debug builds only: in release builds the per-packet path does not even make the call.
  device.assertOwnerThread("dispatchPacket");
#endif
  kDispatch[static_cast<size_t>(type)](device, payload, context);
}

}  // namespace reel
