#include "reel/runtime/device.h"

#include <array>
#include <utility>

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

namespace {
using DispatchFn = void (*)(Device&, const void*, const PacketContext&);

constexpr std::array<DispatchFn, kCommandTypeCount> kDispatch = {
#define REEL_COMMAND(Name, Queue, ...)                                   \
  [](Device& device, const void* payload, const PacketContext& context) { \
    device.execute(*static_cast<const cmd::Name*>(payload), context);   \
  },
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
};
}  // namespace

void dispatchPacket(Device& device, CommandType type, const void* payload, const PacketContext& context) {
  kDispatch[static_cast<size_t>(type)](device, payload, context);
}

}  // namespace reel
