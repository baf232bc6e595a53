#pragma once
// The device's bound state inside a frame, as a replay that resumes mid-frame must rebuild it. A device
// starts every frame with nothing bound and ends a stopped frame by closing its open pass, so a frame
// that continues where an earlier one stopped (ReplaySession's continued steps) first sends again the
// packets whose effect is still in force: the open pass (begun again on what it left), the last bind of
// each bind point and slot, the last viewport, scissor and index buffer, the push-constant writes whose
// bytes are still current, and the debug markers still open.
//
// Which command sets what is decided in bound_state.cpp only (stateEffectOf); a test walks the command
// list and fails for any sorted command it does not classify, so a new state command cannot be left out.
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

// What a sorted command does to the state the device carries from one command to the next.
enum class StateEffect : uint8_t {
  None,             // uses the state, sets none of it: draws, dispatches, transfers
  OpensPass,        // begins a render pass (which also resets viewport and scissor to the target)
  ClosesPass,       //
  BindsPipeline,    // one bind point per pipeline kind: graphics and compute
  BindsSlot,        // one binding per (command, its `slot` field)
  Sets,             // one value per command: the last one is in force
  PushesConstants,  // writes bytes [offset, offset + aux size): the last write of each byte is in force
  OpensMarker,      // debug markers nest
  ClosesMarker,
};

// The effect of every sorted command; nothing for a command the model does not know (a resource request,
// or a sorted command added to commands.inc without an entry in bound_state.cpp).
std::optional<StateEffect> stateEffectOf(CommandType type);

class BoundState {
 public:
  // `isCompute` says which bind point a pipeline binds to.
  explicit BoundState(std::function<bool(PipelineHandle)> isCompute) : isCompute_(std::move(isCompute)) {}

  // Applies the packet at the next sorted position (position() before the call). A command without an
  // effect in stateEffectOf is a broken contract.
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
