// The replay engine's model of the device's bound state (replay/src/replay/bound_state.h), driven by the
// semantics commands.inc declares: the prefix it builds re-establishes exactly the state in force (the
// open pass, the last bind of each point and slot, the push-constant bytes, open markers).

#include "bound_state.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace reel::replay {
namespace {

template <Command T>
std::vector<std::byte> bytesOf(const T& packet) {
  std::vector<std::byte> b(sizeof packet);
  std::memcpy(b.data(), &packet, sizeof packet);
  return b;
}

// Applies a sequence of packets; each gets the next sorted position.
class Sequence {
 public:
  explicit Sequence(BoundState& state) : state_(state) {}
  template <Command T>
  uint64_t add(const T& packet, size_t auxBytes = 0) {
    const std::vector<std::byte> aux(auxBytes);
    state_.apply(T::kType, bytesOf(packet), aux);
    return state_.position() - 1;
  }

 private:
  BoundState& state_;
};

TEST(BoundState, PrefixHoldsWhatIsStillInForce) {
  const PipelineHandle graphics1 = PipelineHandle::make(1, 1), graphics2 = PipelineHandle::make(2, 1);
  const PipelineHandle compute = PipelineHandle::make(3, 1);
  BoundState state([&](PipelineHandle p) { return p == compute; });
  Sequence s(state);
  const uint64_t pass = s.add(cmd::BeginRenderPass{.target = RenderTargetHandle::make(0, 1)});
  const uint64_t viewport = s.add(cmd::SetViewport{.width = 4, .height = 4});
  s.add(cmd::BindPipeline{graphics1});
  const uint64_t computeBind = s.add(cmd::BindPipeline{compute});
  s.add(cmd::BindTexture{.slot = 0});
  const uint64_t texture1 = s.add(cmd::BindTexture{.slot = 1});
  const uint64_t texture0 = s.add(cmd::BindTexture{.slot = 0});
  const uint64_t uniform0 = s.add(cmd::BindUniformBuffer{.slot = 0});  // same slot, another command
  const uint64_t push16 = s.add(cmd::PushConstants{.offset = 0}, 16);
  const uint64_t push8 = s.add(cmd::PushConstants{.offset = 0}, 8);  // bytes 8..15 of push16 stay
  s.add(cmd::PushConstants{.offset = 64}, 4);
  const uint64_t push4 = s.add(cmd::PushConstants{.offset = 64}, 4);  // covers the one before entirely
  const uint64_t outer = s.add(cmd::DebugMarkerBegin{});
  s.add(cmd::Draw{.vertexCount = 3});
  s.add(cmd::DebugMarkerBegin{});
  s.add(cmd::DebugMarkerEnd{});
  const uint64_t graphicsBind = s.add(cmd::BindPipeline{graphics2});
  s.add(cmd::CopyBuffer{});

  ASSERT_EQ(state.openPass(), pass);
  EXPECT_EQ(state.prefix(), (std::vector<uint64_t>{pass, viewport, computeBind, texture1, texture0, uniform0,
                                                   push16, push8, push4, outer, graphicsBind}));
  s.add(cmd::EndRenderPass{});
  EXPECT_FALSE(state.openPass());
  EXPECT_EQ(state.prefix().front(), viewport) << "a closed pass is not begun again";
}

TEST(BoundState, AReopenedPassLoadsWhatItsClearLeft) {
  cmd::BeginRenderPass begin{.target = RenderTargetHandle::make(2, 1),
                             .colorLoad = LoadOp::Clear,
                             .depthLoad = LoadOp::Clear,
                             .clearColor = {1, 0, 0, 1}};
  std::vector<std::byte> payload = bytesOf(begin);
  BoundState::reopenPass(payload);
  cmd::BeginRenderPass reopened;
  std::memcpy(&reopened, payload.data(), sizeof reopened);
  EXPECT_EQ(reopened.colorLoad, LoadOp::Load);
  EXPECT_EQ(reopened.depthLoad, LoadOp::Load);
  EXPECT_EQ(reopened.target, begin.target);
  EXPECT_EQ(reopened.clearColor[0], 1.0f);
}

}  // namespace
}  // namespace reel::replay
