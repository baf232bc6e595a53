#include "bound_state.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "reel/runtime/assert.h"

namespace reel::replay {
namespace {

// A 32-bit field the command's semantics promise (commands.cpp checks each command has it).
uint32_t promisedField(CommandType type, std::span<const std::byte> payload, std::string_view name) {
  const std::optional<uint32_t> value = fieldU32(type, payload, name);
  REEL_ASSERT(value.has_value(), "bound-state model: a packet without the field its semantics promise");
  return *value;
}

}  // namespace

void BoundState::apply(CommandType type, std::span<const std::byte> payload, std::span<const std::byte> aux) {
  const CommandSemantics& semantics = semanticsOf(type);
  REEL_ASSERT(semantics.queue() == CommandQueue::Sorted, "bound-state model: a resource request");
  const uint64_t position = position_++;
  const uint64_t command = uint64_t(type) << 32;
  switch (semantics.category) {
    case CommandCategory::BeginPass:  // which also resets viewport and scissor to the target
      openPass_ = position;
      break;
    case CommandCategory::EndPass:
      openPass_.reset();
      break;
    case CommandCategory::BeginMarker:
      markers_.push_back(position);
      break;
    case CommandCategory::EndMarker:
      if (!markers_.empty()) markers_.pop_back();
      break;
    case CommandCategory::SetState:
      switch (semantics.state) {
        case StateScope::Whole:
          last_[command] = position;
          break;
        case StateScope::PerSlot:
          last_[command | promisedField(type, payload, "slot")] = position;
          break;
        case StateScope::PerBindPoint:
          last_[command | (isCompute_(PipelineHandle{promisedField(type, payload, "pipeline")}) ? 1u : 0u)] =
              position;
          break;
        case StateScope::PushBytes: {
          const size_t offset = promisedField(type, payload, "offset");
          for (size_t b = offset; b < std::min(offset + aux.size(), kPushBytes); ++b)
            pushWriter_[b] = position;
          break;
        }
        case StateScope::None:
          REEL_ASSERT(false, "bound-state model: a state command without a scope");
      }
      break;
    default:  // draws, dispatches and transfers use the state and set none of it
      break;
  }
}

std::vector<uint64_t> BoundState::prefix() const {
  std::vector<uint64_t> positions(markers_.begin(), markers_.end());
  for (const auto& [slot, position] : last_) positions.push_back(position);
  for (const uint64_t writer : pushWriter_) {
    if (writer != UINT64_MAX) positions.push_back(writer);
  }
  if (openPass_) positions.push_back(*openPass_);
  // In the order the device first saw them: a pass begun after a viewport was set resets it, as it did.
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

void BoundState::reopenPass(std::span<std::byte> beginRenderPass) {
  cmd::BeginRenderPass begin;
  REEL_ASSERT(beginRenderPass.size() == sizeof begin, "reopenPass: a BeginRenderPass payload");
  std::memcpy(static_cast<void*>(&begin), beginRenderPass.data(), sizeof begin);
  begin.colorLoad = LoadOp::Load;
  begin.depthLoad = LoadOp::Load;
  std::memcpy(beginRenderPass.data(), &begin, sizeof begin);
}

}  // namespace reel::replay
