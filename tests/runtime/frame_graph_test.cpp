// The render graph's read and write sets and its dependencies (frame_graph.h), from packets built here.

#include "reel/runtime/frame_graph.h"

#include <gtest/gtest.h>

#include <map>

namespace reel {
namespace {

template <typename T>
std::span<const std::byte> bytes(const T& packet) {
  return std::as_bytes(std::span(&packet, 1));
}

GraphResource texture(uint32_t handle) {
  return {ResourceKind::Texture, handle};
}
GraphResource buffer(uint32_t handle) {
  return {ResourceKind::Buffer, handle};
}

TEST(FrameGraph, PassesReadAndWriteWhatTheirCommandsDeclareAndDependOnWhatTheyNeed) {
  // Targets: 1 = G-buffer (textures 11, 12, depth 13), 2 = bright (14), 3 = the frame image (15).
  std::map<uint32_t, RenderTargetDesc> targets;
  targets[1] = RenderTargetDesc{2, {TextureHandle{11}, TextureHandle{12}}, TextureHandle{13}};
  targets[2] = RenderTargetDesc{1, {TextureHandle{14}}, {}};
  targets[3] = RenderTargetDesc{1, {TextureHandle{15}}, {}};
  std::vector<PassDesc> passes(5);
  passes[0].target = RenderTargetHandle{1};  // cleared
  // passes[1]: compute, no target
  passes[2].target = RenderTargetHandle{2};
  passes[2].colorLoad = LoadOp::DontCare;
  passes[3].target = RenderTargetHandle{3};
  passes[3].colorLoad = LoadOp::Load;  // reads what it draws over
  // passes[4]: a transfer pass that nothing else touches
  FrameGraphBuilder builder(passes, [&](RenderTargetHandle t) -> std::optional<RenderTargetDesc> {
    auto it = targets.find(t.value);
    return it == targets.end() ? std::nullopt : std::optional(it->second);
  });

  cmd::BindUniformBuffer camera{};
  camera.buffer = BufferHandle{20};
  builder.add(0, CommandType::BindUniformBuffer, bytes(camera));
  cmd::UpdateBuffer upload{};
  upload.buffer = BufferHandle{21};
  builder.add(0, CommandType::UpdateBuffer, bytes(upload));
  cmd::Draw draw{};
  builder.add(0, CommandType::Draw, bytes(draw));

  cmd::BindTexture gbuffer{};
  gbuffer.texture = TextureHandle{11};
  builder.add(1, CommandType::BindTexture, bytes(gbuffer));
  cmd::BindStorageBuffer lit{};
  lit.buffer = BufferHandle{22};
  builder.add(1, CommandType::BindStorageBuffer, bytes(lit));

  cmd::BindTexture bright{};
  bright.texture = TextureHandle{14};
  builder.add(3, CommandType::BindTexture, bytes(bright));
  cmd::CopyBuffer copy{};
  copy.source = BufferHandle{22};
  copy.destination = BufferHandle{23};
  builder.add(3, CommandType::CopyBuffer, bytes(copy));

  cmd::UpdateBuffer unrelated{};
  unrelated.buffer = BufferHandle{30};
  builder.add(4, CommandType::UpdateBuffer, bytes(unrelated));
  builder.add(9, CommandType::UpdateBuffer, bytes(unrelated));  // no such pass: ignored

  const FrameGraph graph = builder.finish();
  ASSERT_EQ(graph.passes.size(), 5u);
  const GraphPass& g = graph.passes[0];
  EXPECT_EQ(g.packets, 3u);
  EXPECT_EQ(g.writes, (std::vector<GraphResource>{buffer(21), texture(11), texture(12), texture(13)}));
  EXPECT_EQ(g.reads, (std::vector<GraphResource>{buffer(20)})) << "a cleared target is not read";
  EXPECT_TRUE(g.dependsOn.empty());

  const GraphPass& l = graph.passes[1];
  EXPECT_EQ(l.reads, (std::vector<GraphResource>{buffer(22), texture(11)}));
  EXPECT_EQ(l.writes, (std::vector<GraphResource>{buffer(22)})) << "a storage buffer bound is written";
  EXPECT_EQ(l.dependsOn, (std::vector<uint32_t>{0})) << "it samples the G-buffer";

  EXPECT_EQ(graph.passes[2].writes, (std::vector<GraphResource>{texture(14)}));
  EXPECT_TRUE(graph.passes[2].dependsOn.empty());

  const GraphPass& v = graph.passes[3];
  EXPECT_EQ(v.reads, (std::vector<GraphResource>{buffer(22), texture(14), texture(15)}));
  EXPECT_EQ(v.writes, (std::vector<GraphResource>{buffer(23), texture(15)}))
      << "a copy writes its destination";
  EXPECT_EQ(v.dependsOn, (std::vector<uint32_t>{1, 2}));

  EXPECT_EQ(graph.passes[4].writes, (std::vector<GraphResource>{buffer(30)}));
  EXPECT_TRUE(graph.passes[4].dependsOn.empty());
  EXPECT_EQ(graph.passes[4].packets, 1u);
}

TEST(FrameGraph, WritingWhatAnEarlierPassReadsIsADependency) {
  std::vector<PassDesc> passes(2);
  FrameGraphBuilder builder(passes, nullptr);
  cmd::BindTexture read{};
  read.texture = TextureHandle{5};
  builder.add(0, CommandType::BindTexture, bytes(read));
  cmd::CopyTexture overwrite{};
  overwrite.source = TextureHandle{6};
  overwrite.destination = TextureHandle{5};
  builder.add(1, CommandType::CopyTexture, bytes(overwrite));
  const FrameGraph graph = builder.finish();
  EXPECT_EQ(graph.passes[1].dependsOn, (std::vector<uint32_t>{0})) << "write after read";
}

TEST(FrameGraph, APassRunsOnTheQueueItPrefersWhenThatQueueCanRunAllOfItsCommands) {
  std::vector<PassDesc> passes(6);
  passes[0].target = RenderTargetHandle{1};
  passes[0].queue = QueueClass::AsyncCompute;  // a target: it draws, on graphics
  passes[1].queue = QueueClass::AsyncCompute;  // dispatches and a copy
  passes[2].queue = QueueClass::Transfer;      // copies and an update
  passes[3].queue = QueueClass::Transfer;      // a dispatch among its copies: compute can run both
  passes[4].queue = QueueClass::Transfer;      // a blit: graphics only
  passes[5].queue = QueueClass::AsyncCompute;  // nothing at all: any queue would do
  FrameGraphBuilder builder(passes, nullptr);
  const cmd::Dispatch dispatch{};
  const cmd::CopyBuffer copy{};
  const cmd::UpdateBuffer update{};
  const cmd::BlitTexture blit{};
  builder.add(1, dispatch.kType, bytes(dispatch));
  builder.add(1, copy.kType, bytes(copy));
  builder.add(2, copy.kType, bytes(copy));
  builder.add(2, update.kType, bytes(update));
  builder.add(3, copy.kType, bytes(copy));
  builder.add(3, dispatch.kType, bytes(dispatch));
  builder.add(4, blit.kType, bytes(blit));
  const FrameGraph graph = builder.finish();
  const QueueClass expected[] = {QueueClass::Graphics, QueueClass::AsyncCompute,
                                 QueueClass::Transfer, QueueClass::AsyncCompute,
                                 QueueClass::Graphics, QueueClass::AsyncCompute};
  for (size_t p = 0; p < passes.size(); ++p) {
    EXPECT_EQ(passQueue(passes[p], graph.passes[p]), expected[p]) << "pass " << p;
  }
  PassDesc graphics;  // what a pass prefers by default
  EXPECT_EQ(passQueue(graphics, graph.passes[1]), QueueClass::Graphics);
}

// Rendering stops for a dispatch or a transfer once a pass has drawn; before its first draw they run before
// rendering begins. A BeginRenderPass or EndRenderPass packet inside a declared pass always interrupts it.
// Parts built from positions (the sweep's segments) and merged in any order agree with one build.
TEST(FrameGraph, APassIsInterruptedByADispatchOrTransferAfterItsFirstDrawOrByAPassPacket) {
  std::vector<PassDesc> passes(6);
  for (PassDesc& p : passes) p.target = RenderTargetHandle{1};
  const cmd::Draw draw{};
  const cmd::UpdateBuffer update{};
  const cmd::Dispatch dispatch{};
  const cmd::EndRenderPass end{};
  const cmd::BindPipeline bind{};
  struct Packet {
    uint32_t pass;
    CommandType type;
    std::span<const std::byte> payload;
  };
  const std::vector<Packet> frame = {
      {0, update.kType, bytes(update)},
      {0, dispatch.kType, bytes(dispatch)},
      {0, draw.kType, bytes(draw)},
      {0, draw.kType, bytes(draw)},  // 0: transfers and dispatches before its draws
      {1, draw.kType, bytes(draw)},
      {1, update.kType, bytes(update)},  // 1: an update after a draw
      {2, draw.kType, bytes(draw)},
      {2, dispatch.kType, bytes(dispatch)},
      {2, draw.kType, bytes(draw)},  // 2: a dispatch between draws
      {3, bind.kType, bytes(bind)},
      {3, end.kType, bytes(end)},        // 3: a pass packet
      {4, update.kType, bytes(update)},  // 4: no draw at all
      {5, draw.kType, bytes(draw)},
      {5, bind.kType, bytes(bind)},  // 5: draws and state only
  };
  const bool expected[] = {false, true, true, true, false, false};

  FrameGraphBuilder whole(passes, nullptr);
  for (const Packet& p : frame) whole.add(p.pass, p.type, p.payload);
  const FrameGraph one = whole.finish();
  for (size_t p = 0; p < passes.size(); ++p)
    EXPECT_EQ(one.passes[p].interrupted, expected[p]) << "pass " << p;

  // The same packets in two parts (every other one), added at their positions, merged last part first.
  FrameGraphBuilder parts[2] = {FrameGraphBuilder(passes, nullptr), FrameGraphBuilder(passes, nullptr)};
  for (size_t i = 0; i < frame.size(); ++i) {
    FrameGraphBuilder& part = parts[i % 2];
    QueueClass needs;
    if (FrameGraphBuilder::isPlain(frame[i].type, needs)) {
      part.addPlain(frame[i].pass, 1, needs, frame[i].type == CommandType::Draw ? i : UINT64_MAX);
    } else {
      part.addPacket(frame[i].pass, i, frame[i].type, frame[i].payload.data());
    }
  }
  FrameGraphBuilder merged(passes, nullptr);
  merged.merge(parts[1]);
  merged.merge(parts[0]);
  const FrameGraph two = merged.finish();
  for (size_t p = 0; p < passes.size(); ++p)
    EXPECT_EQ(two.passes[p].interrupted, expected[p]) << "pass " << p;
}

TEST(FrameGraph, TransientTexturesLiveFromTheirFirstPassToTheirLastAndAreDiscardableWhenWrittenFirst) {
  // Target 1 = G-buffer (textures 11, 12), 2 = bright (14), 3 = loads 15 (what an earlier frame left).
  std::map<uint32_t, RenderTargetDesc> targets;
  targets[1] = RenderTargetDesc{2, {TextureHandle{11}, TextureHandle{12}}, {}};
  targets[2] = RenderTargetDesc{1, {TextureHandle{14}}, {}};
  targets[3] = RenderTargetDesc{1, {TextureHandle{15}}, {}};
  std::vector<PassDesc> passes(4);
  passes[0].target = RenderTargetHandle{1};
  passes[1].queue = QueueClass::AsyncCompute;  // samples 11: a compute pass
  passes[2].target = RenderTargetHandle{2};
  passes[2].colorLoad = LoadOp::DontCare;
  passes[3].target = RenderTargetHandle{3};
  passes[3].colorLoad = LoadOp::Load;
  FrameGraphBuilder builder(passes, [&](RenderTargetHandle t) -> std::optional<RenderTargetDesc> {
    auto it = targets.find(t.value);
    return it == targets.end() ? std::nullopt : std::optional(it->second);
  });
  cmd::BindTexture sample{};
  sample.texture = TextureHandle{11};
  const cmd::Dispatch dispatch{};
  builder.add(1, sample.kType, bytes(sample));
  builder.add(1, dispatch.kType, bytes(dispatch));
  sample.texture = TextureHandle{14};
  builder.add(3, sample.kType, bytes(sample));
  const FrameGraph graph = builder.finish();
  const auto lives = transientLives(passes, graph, [](uint32_t t) { return t != 12; });  // 12: not transient
  ASSERT_EQ(lives.size(), 3u);
  EXPECT_EQ(lives[0].texture, 11u);
  EXPECT_EQ(lives[0].first, 0u);
  EXPECT_EQ(lives[0].last, 1u);
  EXPECT_TRUE(lives[0].discardable) << "cleared in its first pass";
  EXPECT_FALSE(lives[0].graphicsOnly) << "the compute pass samples it";
  EXPECT_EQ(lives[1].texture, 14u);
  EXPECT_EQ(lives[1].first, 2u);
  EXPECT_EQ(lives[1].last, 3u);
  EXPECT_TRUE(lives[1].discardable);
  EXPECT_TRUE(lives[1].graphicsOnly);
  EXPECT_EQ(lives[2].texture, 15u);
  EXPECT_FALSE(lives[2].discardable) << "its first pass loads it: its old contents matter";
}

TEST(FrameGraph, TexturesWhoseLivesDoNotOverlapShareAGroupSizedForTheLargest) {
  const AliasItem items[] = {
      {0, 1, 4000, 256, 0b011},   // G-buffer A
      {0, 1, 8000, 256, 0b011},   // G-buffer B
      {2, 3, 1000, 1024, 0b010},  // after A and B: joins the first group whose types suit it
      {3, 4, 1000, 256, 0b100},   // after A and B, but no group has its memory type
      {1, 2, 500, 256, 0b011},    // overlaps every other group
  };
  const std::vector<AliasGroup> groups = aliasGroups(items);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].items, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(groups[0].size, 4000u);
  EXPECT_EQ(groups[0].alignment, 1024u);
  EXPECT_EQ(groups[0].memoryTypes, 0b010u);
  EXPECT_EQ(groups[1].items, (std::vector<size_t>{1}));
  EXPECT_EQ(groups[2].items, (std::vector<size_t>{4}));
  EXPECT_EQ(groups[3].items, (std::vector<size_t>{3}));
  EXPECT_EQ(aliasedBytesSaved(items, groups), 1000u);
}

}  // namespace
}  // namespace reel
