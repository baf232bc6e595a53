#pragma once
// The device's bound state inside a frame, as a replay that resumes mid-frame must rebuild it. A device
// starts every frame with nothing bound and ends a stopped frame by closing its open pass, so a frame
// that continues where an earlier one stopped (ReplaySession's continued steps) first sends again the
// packets whose effect is still in force: the open pass (begun again on what it left), the last bind of
// each bind point and slot, the last viewport, scissor and index buffer, the push-constant writes whose
// bytes are still current, and the debug markers still open.
//
// Which command sets what follows from the semantics each command declares in commands.inc (a pass
// begin or end, state of a scope, a marker); the model keeps no list of commands of its own.
//
// Threading: one thread at a time.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "reel/runtime/commands.h"

namespace reel::replay {

class BoundState {
 public:
  // `isCompute` says which bind point a pipeline binds to.
  explicit BoundState(std::function<bool(PipelineHandle)> isCompute) : isCompute_(std::move(isCompute)) {}

  // Applies the packet of a sorted command at the next sorted position (position() before the call).
  void apply(CommandType type, std::span<const std::byte> payload, std::span<const std::byte> aux);
  uint64_t position() const { return position_; }

  // The sorted positions, ascending, of the packets that re-establish the state after position() packets
  // when sent again in that order (the open pass's begin among them: reopenPass() it first).
  std::vector<uint64_t> prefix() const;
  std::optional<uint64_t> openPass() const { return openPass_; }

  // A BeginRenderPass payload changed to begin the pass again on what it left: its clear already ran
  // when the earlier frame closed it, so every attachment is loaded.
  static void reopenPass(std::span<std::byte> beginRenderPass);

 private:
  // Push-constant bytes tracked: more than any device accepts (Vulkan's guaranteed minimum is 128).
  static constexpr size_t kPushBytes = 256;

  std::function<bool(PipelineHandle)> isCompute_;
  uint64_t position_ = 0;
  std::optional<uint64_t> openPass_;
  std::map<uint64_t, uint64_t> last_;  // (command << 32 | slot or bind point) -> sorted position
  std::array<uint64_t, kPushBytes> pushWriter_ = filledWith(UINT64_MAX);  // per byte: its last push
  std::vector<uint64_t> markers_;  // DebugMarkerBegin still open, innermost last

  static std::array<uint64_t, kPushBytes> filledWith(uint64_t v) {
    std::array<uint64_t, kPushBytes> a;
    a.fill(v);
    return a;
  }
};

}  // namespace reel::replay
