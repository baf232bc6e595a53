// What commands.inc and resource_kinds.inc declare, and what the generic code built on them does with it:
// every kind has its one create and destroy request, every command's fields give what its semantics
// promise, and the handle pools, the null device's tables and the kinds' names and summaries cover
// every listed kind without a list of their own. A kind or command added to a list and forgotten
// elsewhere fails here (or, for what the compiler can see, does not compile).

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "reel/runtime/commands.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/resource_context.h"

namespace reel {
namespace {

// A request's payload naming `handle` in its first field, the rest zero.
std::vector<std::byte> requestNaming(CommandType type, uint32_t handle) {
  std::vector<std::byte> payload(commandInfo(type).size);
  std::memcpy(payload.data(), &handle, sizeof handle);
  return payload;
}

TEST(CommandSemantics, EveryKindHasExactlyOneCreateAndOneDestroy) {
  for (size_t k = 0; k < kResourceKindCount; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    std::vector<CommandType> creates, destroys;
    for (const CommandInfo& info : commandTable()) {
      if (info.semantics.resource != kind) continue;
      if (info.semantics.category == CommandCategory::Create) creates.push_back(info.type);
      if (info.semantics.category == CommandCategory::Destroy) destroys.push_back(info.type);
    }
    ASSERT_EQ(creates.size(), 1u) << resourceKindName(kind);
    ASSERT_EQ(destroys.size(), 1u) << resourceKindName(kind);
    EXPECT_EQ(createCommandOf(kind), creates[0]);
    EXPECT_EQ(destroyCommandOf(kind), destroys[0]);
  }
}

TEST(CommandSemantics, EveryCommandsFieldsGiveWhatItsSemanticsPromise) {
  for (const CommandInfo& info : commandTable()) {
    EXPECT_TRUE(fieldsFitSemantics(info.semantics, info.fields)) << info.name;
    EXPECT_EQ(info.queue, info.semantics.queue()) << info.name;
  }
  // The check can fail: a draw's fields have no slot, a viewport's no handle first.
  EXPECT_FALSE(
      fieldsFitSemantics(semantics::sets(StateScope::PerSlot), commandInfo(CommandType::Draw).fields));
  EXPECT_FALSE(fieldsFitSemantics(semantics::creates(ResourceKind::Buffer),
                                  commandInfo(CommandType::SetViewport).fields));
  EXPECT_FALSE(fieldsFitSemantics(semantics::creates(ResourceKind::Texture),
                                  commandInfo(CommandType::CreateBuffer).fields));
  EXPECT_FALSE(fieldsFitSemantics(semantics::beginsPass, commandInfo(CommandType::EndRenderPass).fields));
}

TEST(CommandSemantics, FieldsAndPassTargetsAreReadThroughTheTable) {
  cmd::BeginRenderPass begin{};
  begin.target = RenderTargetHandle::make(7, 2);
  const auto* bytes = reinterpret_cast<const std::byte*>(&begin);
  const std::span<const std::byte> payload(bytes, sizeof begin);
  ASSERT_TRUE(passTargetOf(CommandType::BeginRenderPass, payload).has_value());
  EXPECT_EQ(*passTargetOf(CommandType::BeginRenderPass, payload), begin.target);
  EXPECT_FALSE(passTargetOf(CommandType::EndRenderPass, {}).has_value());
  EXPECT_FALSE(passTargetOf(CommandType::BeginRenderPass, payload.first(2)).has_value()) << "short payload";

  cmd::BindTexture bind{};
  bind.slot = 5;
  EXPECT_EQ(
      fieldU32(CommandType::BindTexture, {reinterpret_cast<const std::byte*>(&bind), sizeof bind}, "slot"),
      5u);
  EXPECT_FALSE(
      fieldU32(CommandType::BindTexture, {reinterpret_cast<const std::byte*>(&bind), sizeof bind}, "nope"));
}

TEST(ResourceKinds, VisitorAndIterationReachEveryKindInOrder) {
  std::vector<ResourceKind> visited;
  forEachResourceKind([&]<ResourceKind K>() { visited.push_back(K); });
  ASSERT_EQ(visited.size(), kResourceKindCount);
  for (size_t k = 0; k < kResourceKindCount; ++k) {
    EXPECT_EQ(visited[k], static_cast<ResourceKind>(k));
    EXPECT_EQ(visitResourceKind(static_cast<ResourceKind>(k), []<ResourceKind K>() { return K; }),
              static_cast<ResourceKind>(k));
  }
}

TEST(ResourceKinds, NamesAreDistinctAndSummariesReadTheCreateRequest) {
  std::set<std::string> names;
  for (size_t k = 0; k < kResourceKindCount; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    const std::string name = resourceKindName(kind);
    EXPECT_NE(name, "unknown");
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(formatHandle(kind, Handle<ResourceKind::Buffer>::make(3, 1).value), name + "#3.1");
    // Every {path} of the summary names a field of the kind's create request.
    const CommandInfo& create = commandInfo(createCommandOf(kind));
    const std::vector<std::byte> zero(create.size);
    const std::string summary =
        formatSummary(resourceSummaryOf(kind), create.fields, zero.data(), zero.size());
    EXPECT_FALSE(summary.empty()) << name;
    EXPECT_EQ(summary.find('?'), std::string::npos) << name << ": " << summary;
  }
  EXPECT_STREQ(resourceKindName(ResourceKind::Count), "unknown");
  // The summary formatter reports what it cannot read.
  const CommandInfo& buffer = commandInfo(CommandType::CreateBuffer);
  const std::vector<std::byte> zero(buffer.size);
  EXPECT_EQ(formatSummary("{desc.nope} x", buffer.fields, zero.data(), zero.size()), "? x");
  EXPECT_EQ(formatSummary("{desc.size}", buffer.fields, zero.data(), 4), "?") << "past the end";
}

TEST(ResourceKinds, ContextAdoptsAndRetiresEveryKind) {
  ResourceContext context;
  for (size_t k = 0; k < kResourceKindCount; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    const uint32_t handle = Handle<ResourceKind::Buffer>::make(4, 3).value;
    const CommandType create = createCommandOf(kind), destroy = destroyCommandOf(kind);
    ASSERT_TRUE(context.replayRequest(create, requestNaming(create, handle), {})) << resourceKindName(kind);
    visitResourceKind(kind, [&]<ResourceKind K>() { EXPECT_TRUE(context.isLive(Handle<K>{handle})); });
    EXPECT_FALSE(context.replayRequest(create, requestNaming(create, handle), {})) << "its slot is live";
    ASSERT_TRUE(context.replayRequest(destroy, requestNaming(destroy, handle), {})) << resourceKindName(kind);
    visitResourceKind(
        kind, [&]<ResourceKind K>() { EXPECT_EQ(context.state(Handle<K>{handle}), HandleState::Stale); });
    const auto refused = context.replayRequest(destroy, requestNaming(destroy, handle), {});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find(formatHandle(kind, handle)), std::string::npos)
        << refused.error().message;
  }
}

TEST(ResourceKinds, NullDeviceKeepsAndChecksEveryKind) {
  NullDevice device;
  for (size_t k = 0; k < kResourceKindCount; ++k) {
    const auto kind = static_cast<ResourceKind>(k);
    const uint32_t handle = Handle<ResourceKind::Buffer>::make(2, 1).value;
    const CommandType create = createCommandOf(kind), destroy = destroyCommandOf(kind);
    const std::vector<std::byte> created = requestNaming(create, handle);
    dispatchPacket(device, create, created.data(), PacketContext{});
    EXPECT_EQ(device.liveResources(), 1u) << resourceKindName(kind);
    const std::vector<std::byte> destroyed = requestNaming(destroy, handle);
    dispatchPacket(device, destroy, destroyed.data(), PacketContext{});
    EXPECT_EQ(device.liveResources(), 0u) << resourceKindName(kind);
    EXPECT_TRUE(device.takeErrors().empty()) << resourceKindName(kind);
    dispatchPacket(device, destroy, destroyed.data(), PacketContext{});
    EXPECT_FALSE(device.takeErrors().empty()) << resourceKindName(kind) << ": a second destroy is reported";
  }
  // A sorted command naming a dead handle of any kind is reported and skipped.
  cmd::BindPipeline bind{};
  bind.pipeline = PipelineHandle::make(9, 1);
  device.execute(bind, PacketContext{});
  EXPECT_FALSE(device.takeErrors().empty());
  EXPECT_TRUE(device.calls().empty() || device.calls().back().type != CommandType::BindPipeline);
}

}  // namespace
}  // namespace reel
