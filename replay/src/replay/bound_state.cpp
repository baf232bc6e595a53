#include "bound_state.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "reel/runtime/assert.h"

namespace reel::replay {
namespace {

// A 32-bit field of a packet by name, through the command's field table: the model names the fields it
// reads (a slot, a handle, an offset), never their offsets.
uint32_t fieldU32(CommandType type, std::span<const std::byte> payload, std::string_view name) {
  for (const FieldInfo& f : commandInfo(type).fields) {
    if (f.name != name) continue;
    REEL_ASSERT(f.size == sizeof(uint32_t) && f.offset + f.size <= payload.size(),
                "bound-state model: a 32-bit field inside the packet");
    uint32_t v;
    std::memcpy(&v, payload.data() + f.offset, sizeof v);
    return v;
  }
  REEL_ASSERT(false, "bound-state model: the command has no such field");
  return 0;
}

}  // namespace

std::optional<StateEffect> stateEffectOf(CommandType type) {
  // Every sorted command, listed: a new one falls to `default` until it is classified here, and
  // tests/replay/bound_state_test.cpp fails for it.
  switch (type) {
    case CommandType::BeginRenderPass:
      return StateEffect::OpensPass;
    case CommandType::EndRenderPass:
      return StateEffect::ClosesPass;
    case CommandType::BindPipeline:
      return StateEffect::BindsPipeline;
    case CommandType::BindVertexBuffer:
    case CommandType::BindTexture:
    case CommandType::BindUniformBuffer:
    case CommandType::BindStorageBuffer:
      return StateEffect::BindsSlot;
    case CommandType::BindIndexBuffer:
    case CommandType::SetViewport:
    case CommandType::SetScissor:
      return StateEffect::Sets;
    case CommandType::PushConstants:
      return StateEffect::PushesConstants;
    case CommandType::DebugMarkerBegin:
      return StateEffect::OpensMarker;
    case CommandType::DebugMarkerEnd:
      return StateEffect::ClosesMarker;
    case CommandType::Draw:
    case CommandType::DrawIndexed:
    case CommandType::DrawInstanced:
    case CommandType::DrawIndexedInstanced:
    case CommandType::Dispatch:
    case CommandType::CopyBuffer:
    case CommandType::UpdateBuffer:
    case CommandType::CopyTexture:
    case CommandType::BlitTexture:
      return StateEffect::None;
    default:
      return std::nullopt;
  }
}

void BoundState::apply(CommandType type, std::span<const std::byte> payload, std::span<const std::byte> aux) {
  const std::optional<StateEffect> effect = stateEffectOf(type);
  REEL_ASSERT(effect.has_value(), "a sorted command without an entry in the bound-state model");
  const uint64_t position = position_++;
  const uint64_t command = uint64_t(type) << 32;
  switch (*effect) {
    case StateEffect::None:
      break;
    case StateEffect::OpensPass:
      openPass_ = position;
      break;
    case StateEffect::ClosesPass:
      openPass_.reset();
      break;
    case StateEffect::BindsPipeline:
      last_[command | (isCompute_(PipelineHandle{fieldU32(type, payload, "pipeline")}) ? 1u : 0u)] = position;
      break;
    case StateEffect::BindsSlot:
      last_[command | fieldU32(type, payload, "slot")] = position;
      break;
    case StateEffect::Sets:
      last_[command] = position;
      break;
    case StateEffect::PushesConstants: {
      const size_t offset = fieldU32(type, payload, "offset");
      for (size_t b = offset; b < std::min(offset + aux.size(), kPushBytes); ++b) pushWriter_[b] = position;
      break;
    }
    case StateEffect::OpensMarker:
      markers_.push_back(position);
      break;
    case StateEffect::ClosesMarker:
      if (!markers_.empty()) markers_.pop_back();
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
