// Instance merging's decision (docs/instance-merging.md), on the null device: which runs of sorted draws
// become one instanced draw, and each reason a run must not.
#include "reel/runtime/instance_merge.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"

namespace reel {
namespace {

using Kind = NullDevice::Call::Kind;
constexpr uint32_t kMinRun = InstanceMerger::kMinRun;

struct Push {
  float values[4];
};

// A renderer on the null device with two sprite-like pipelines that opt in (16 bytes of constants at
// offset 0, instance buffer at slot 1) and one that does not.
class InstanceMergeTest : public ::testing::Test {
 protected:
  explicit InstanceMergeTest(bool merge = true)
      : renderer_(device_, {.framesInFlight = 1, .workers = 1, .mergeInstances = merge}) {
    ResourceContext& r = renderer_.resources();
    const std::byte code[4] = {};
    vert_ = r.createShader({.stage = ShaderStage::Vertex}, code);
    const ShaderHandle instanced = r.createShader({.stage = ShaderStage::Vertex}, code);
    PipelineDesc desc{};
    desc.vertexShader = vert_;
    desc.pushConstantBytes = sizeof(Push);
    const PipelineInstancing instancing{.vertexShader = instanced,
                                        .fragmentShader = {},
                                        .constantOffset = 0,
                                        .constantBytes = sizeof(Push),
                                        .bufferSlot = 1};
    opted_[0] = r.createPipeline(desc, instancing);
    opted_[1] = r.createPipeline(desc, instancing);
    plain_ = r.createPipeline(desc);
    texture_ = r.createTexture({.width = 1, .height = 1, .mipLevels = 1, .format = Format::RGBA8Unorm});
  }

  // A stress-like chain under `depth`: the pipeline (a shared packet), a texture, the constants, a draw.
  void draw(const cmd::BindPipeline& pipeline, uint32_t depth, float value, uint32_t vertexCount = 6) {
    PacketHeader& ref = bucket_.addShared(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, depth), pipeline);
    auto& texture = bucket_.append<cmd::BindTexture>(ref);
    texture.texture = texture_;
    auto& push = bucket_.append<cmd::PushConstants>(&texture, sizeof(Push));
    const Push constants{{value, value + 1, value + 2, value + 3}};
    std::memcpy(bucket_.aux(push).data(), &constants, sizeof constants);
    bucket_.append<cmd::Draw>(&push).vertexCount = vertexCount;
  }
  cmd::BindPipeline& header(PipelineHandle pipeline) {
    auto& h = bucket_.createShared<cmd::BindPipeline>();
    h.pipeline = pipeline;
    return h;
  }

  // The frame's commands as the device saw them, and its timing.
  std::vector<const NullDevice::Call*> kick() {
    renderer_.kick();
    renderer_.flushAndWait();
    EXPECT_EQ(device_.takeErrors(), std::vector<std::string>{});
    std::vector<const NullDevice::Call*> out;
    for (const auto& call : device_.calls()) {
      // Sorted commands only: the frame's resource requests are calls too.
      if (call.kind == Kind::Command && call.frame == renderer_.recordingFrame() - 1 &&
          semanticsOf(call.type).queue() == CommandQueue::Sorted) {
        out.push_back(&call);
      }
    }
    return out;
  }
  static std::vector<CommandType> types(const std::vector<const NullDevice::Call*>& calls) {
    std::vector<CommandType> out;
    for (const auto* c : calls) out.push_back(c->type);
    return out;
  }
  static size_t count(const std::vector<const NullDevice::Call*>& calls, CommandType type) {
    size_t n = 0;
    for (const auto* c : calls) n += c->type == type;
    return n;
  }

  NullDevice device_;
  Renderer renderer_;
  CommandBucket<DrawKey>& bucket_ = renderer_.createBucket<DrawKey>("world");
  ShaderHandle vert_;
  PipelineHandle opted_[2], plain_;
  TextureHandle texture_;
};

class InstanceMergeOffTest : public InstanceMergeTest {
 protected:
  InstanceMergeOffTest() : InstanceMergeTest(false) {}
};

TEST_F(InstanceMergeTest, ARunOfEqualChainsBecomesOneInstancedDraw) {
  const auto& pipeline = header(opted_[0]);
  for (uint32_t i = 0; i < 5; ++i) draw(pipeline, 10 + i, float(i));
  const auto calls = kick();
  // The first chain's state, the last chain's constants (the state after the run is what it was), and
  // one draw of 5 instances whose data is the 5 pushes in sort order.
  EXPECT_EQ(types(calls), (std::vector<CommandType>{CommandType::BindPipeline, CommandType::BindTexture,
                                                    CommandType::PushConstants, CommandType::DrawInstanced}));
  const auto& merged = calls.back()->as<cmd::DrawInstanced>();
  EXPECT_EQ(merged.instanceCount, 5u);
  EXPECT_EQ(merged.vertexCount, 6u);
  EXPECT_EQ(merged.firstInstance, 0u);
  ASSERT_EQ(calls.back()->aux.size(), 5 * sizeof(Push));
  for (uint32_t i = 0; i < 5; ++i) {
    Push p;
    std::memcpy(&p, calls.back()->aux.data() + i * sizeof(Push), sizeof p);
    EXPECT_EQ(p.values[0], float(i)) << i;
  }
  Push last;
  std::memcpy(&last, calls[2]->aux.data(), sizeof last);
  EXPECT_EQ(last.values[0], 4.0f);
  const RendererStats stats = renderer_.stats();
  EXPECT_EQ(stats.drawsRecorded, 5u);
  EXPECT_EQ(stats.drawsSubmitted, 1u);
}

TEST_F(InstanceMergeTest, EqualPacketsFromDifferentSharedHeadersMerge) {
  // What a parallel recording does: each thread its own header naming the same pipeline.
  const auto& a = header(opted_[0]);
  const auto& b = header(opted_[0]);
  for (uint32_t i = 0; i < 2 * kMinRun; ++i) draw(i % 2 ? a : b, 10 + i, float(i));
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 1u);
  EXPECT_EQ(count(calls, CommandType::Draw), 0u);
}

TEST_F(InstanceMergeTest, ADifferentSharedPacketEndsTheRun) {
  // One pipeline; the shared packet is a texture bind, and two of them bind different slots.
  auto& slot0 = bucket_.createShared<cmd::BindTexture>();
  slot0.texture = texture_;
  auto& slot1 = bucket_.createShared<cmd::BindTexture>();
  slot1.texture = texture_;
  slot1.slot = 1;
  auto chain = [&](const cmd::BindTexture& shared, uint32_t depth) {
    PacketHeader& ref = bucket_.addShared(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, depth), shared);
    auto& bind = bucket_.append<cmd::BindPipeline>(ref);
    bind.pipeline = opted_[0];
    auto& push = bucket_.append<cmd::PushConstants>(&bind, sizeof(Push));
    bucket_.append<cmd::Draw>(&push).vertexCount = 6;
  };
  // Sorted: kMinRun with slot 0, kMinRun with slot 1, one with slot 0: two merged runs, then a run of one.
  uint32_t depth = 10;
  for (uint32_t i = 0; i < kMinRun; ++i) chain(slot0, depth++);
  for (uint32_t i = 0; i < kMinRun; ++i) chain(slot1, depth++);
  chain(slot0, depth++);
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 2u);
  EXPECT_EQ(count(calls, CommandType::Draw), 1u);
  EXPECT_EQ(renderer_.stats().drawsSubmitted, 3u);
  EXPECT_EQ(renderer_.stats().drawsRecorded, 2 * kMinRun + 1);
}

TEST_F(InstanceMergeTest, ADifferentPipelineEndsTheRun) {
  const auto& a = header(opted_[0]);
  const auto& b = header(opted_[1]);
  uint32_t depth = 10;
  for (uint32_t i = 0; i < kMinRun; ++i) draw(a, depth++, float(i));
  for (uint32_t i = 0; i < kMinRun; ++i) draw(b, depth++, float(i));
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 2u);
  EXPECT_EQ(count(calls, CommandType::BindPipeline), 2u);
}

TEST_F(InstanceMergeTest, AStateCommandBetweenKeysEndsTheRun) {
  const auto& a = header(opted_[0]);
  // kMinRun draws, with a scissor sorted into their middle: two runs too short to merge.
  const uint32_t half = kMinRun / 2;
  for (uint32_t i = 0; i < half; ++i) draw(a, 10 + i, float(i));
  auto& scissor = bucket_.add<cmd::SetScissor>(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 10 + half));
  scissor.width = scissor.height = 4;
  for (uint32_t i = half; i < kMinRun; ++i) draw(a, 11 + i, float(i));
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 0u);
  EXPECT_EQ(count(calls, CommandType::Draw), kMinRun);
}

TEST_F(InstanceMergeTest, AStateCommandInsideAChainThatDiffersEndsTheRun) {
  const auto& a = header(opted_[0]);
  for (uint32_t i = 0; i < kMinRun; ++i) draw(a, 10 + i, float(i));
  // The same chain but for its texture slot.
  PacketHeader& ref = bucket_.addShared(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 100), a);
  auto& texture = bucket_.append<cmd::BindTexture>(ref);
  texture.texture = texture_;
  texture.slot = 1;
  auto& push = bucket_.append<cmd::PushConstants>(&texture, sizeof(Push));
  bucket_.append<cmd::Draw>(&push).vertexCount = 6;
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 1u);
  EXPECT_EQ(count(calls, CommandType::Draw), 1u);
}

TEST_F(InstanceMergeTest, APipelineThatDoesNotOptInNeverMerges) {
  const auto& plain = header(plain_);
  for (uint32_t i = 0; i < 2 * kMinRun; ++i) draw(plain, 10 + i, float(i));
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 0u);
  EXPECT_EQ(count(calls, CommandType::Draw), 2 * kMinRun);
  EXPECT_EQ(renderer_.stats().drawsSubmitted, 2 * kMinRun);
}

TEST_F(InstanceMergeTest, DifferentVertexRangesEndTheRun) {
  const auto& a = header(opted_[0]);
  // Every other draw has another vertex count: no two neighbours may merge.
  for (uint32_t i = 0; i < 2 * kMinRun; ++i) draw(a, 10 + i, float(i), i % 2 ? 3 : 6);
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 0u);
  EXPECT_EQ(count(calls, CommandType::Draw), 2 * kMinRun);
}

TEST_F(InstanceMergeTest, ARunOfOneKeepsItsChain) {
  const auto& a = header(opted_[0]);
  draw(a, 10, 7);
  const auto calls = kick();
  EXPECT_EQ(types(calls), (std::vector<CommandType>{CommandType::BindPipeline, CommandType::BindTexture,
                                                    CommandType::PushConstants, CommandType::Draw}));
}

TEST_F(InstanceMergeTest, ARunShorterThanTheMinimumKeepsItsChains) {
  const auto& a = header(opted_[0]);
  for (uint32_t i = 0; i + 1 < kMinRun; ++i) draw(a, 10 + i, float(i));
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 0u);
  EXPECT_EQ(count(calls, CommandType::Draw), kMinRun - 1);
}

TEST_F(InstanceMergeTest, AConstantPushThatMissesTheDeclaredRangeNeverMerges) {
  const auto& a = header(opted_[0]);
  for (uint32_t i = 0; i < 2 * kMinRun; ++i) {
    PacketHeader& ref = bucket_.addShared(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 10 + i), a);
    auto& push = bucket_.append<cmd::PushConstants>(ref, 8);  // half the declared 16 bytes
    bucket_.append<cmd::Draw>(&push).vertexCount = 6;
  }
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 0u);
  EXPECT_EQ(count(calls, CommandType::Draw), 2 * kMinRun);
}

TEST_F(InstanceMergeTest, ObserversSeeTheFrameAsRecorded) {
  struct Keys final : FrameObserver {
    size_t keys = 0;
    void onFrame(const FrameView& frame) override { keys = frame.sorted.size(); }
    void onFrameEnd(const FrameTiming& timing) override {
      recorded = timing.drawsRecorded;
      submitted = timing.drawsSubmitted;
      runs = timing.mergedRuns;
    }
    uint64_t recorded = 0, submitted = 0, runs = 0;
  } observer;
  ObserverRegistration registration = renderer_.addObserver(observer);
  const auto& a = header(opted_[0]);
  for (uint32_t i = 0; i < 6; ++i) draw(a, 10 + i, float(i));
  const auto calls = kick();
  registration.reset();
  EXPECT_EQ(observer.keys, 6u);
  EXPECT_EQ(observer.recorded, 6u);
  EXPECT_EQ(observer.submitted, 1u);
  EXPECT_EQ(observer.runs, 1u);
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 1u);
}

TEST_F(InstanceMergeTest, AFrameStoppedAfterNPacketsStaysUnmerged) {
  const auto& a = header(opted_[0]);
  for (uint32_t i = 0; i < 2 * kMinRun; ++i) draw(a, 10 + i, float(i));
  renderer_.kick({.stopAfterPackets = 4 * 2 * kMinRun - 2});  // all but the last chain's last two
  renderer_.flushAndWait();
  size_t draws = 0, instanced = 0;
  for (const auto& call : device_.calls()) {
    draws += call.type == CommandType::Draw;
    instanced += call.type == CommandType::DrawInstanced;
  }
  EXPECT_EQ(draws, 2 * kMinRun - 1);
  EXPECT_EQ(instanced, 0u);
}

TEST(InstanceMerger, TracksTheOptInOfLivePipelinesOnly) {
  InstanceMerger merger;
  cmd::CreatePipeline create{};
  create.pipeline = PipelineHandle{0x0100'0003u};  // slot 3
  create.desc.pushConstantBytes = 48;
  const PipelineInstancing instancing{.vertexShader = ShaderHandle{0x0100'0001u},
                                      .fragmentShader = {},
                                      .constantOffset = 0,
                                      .constantBytes = 48,
                                      .bufferSlot = 0};
  merger.onCreatePipeline(create, std::as_bytes(std::span(&instancing, 1)));
  ASSERT_NE(merger.instancing(create.pipeline.value), nullptr);
  EXPECT_TRUE(merger.anyOptedIn());
  // Another generation of the slot is not this pipeline.
  EXPECT_EQ(merger.instancing(0x0200'0003u), nullptr);
  merger.onDestroyPipeline(0x0200'0003u);  // a stale handle changes nothing
  EXPECT_NE(merger.instancing(create.pipeline.value), nullptr);
  merger.onDestroyPipeline(create.pipeline.value);
  EXPECT_EQ(merger.instancing(create.pipeline.value), nullptr);
  EXPECT_FALSE(merger.anyOptedIn());
  // A range past the pipeline's push constants, or none at all, is no opt-in.
  PipelineInstancing outside = instancing;
  outside.constantOffset = 16;
  merger.onCreatePipeline(create, std::as_bytes(std::span(&outside, 1)));
  EXPECT_EQ(merger.instancing(create.pipeline.value), nullptr);
  merger.onCreatePipeline(create, {});
  EXPECT_EQ(merger.instancing(create.pipeline.value), nullptr);
  EXPECT_FALSE(merger.anyOptedIn());
}

TEST_F(InstanceMergeOffTest, TheRendererOptionTurnsMergingOff) {
  const auto& a = header(opted_[0]);
  for (uint32_t i = 0; i < 2 * kMinRun; ++i) draw(a, 10 + i, float(i));
  const auto calls = kick();
  EXPECT_EQ(count(calls, CommandType::DrawInstanced), 0u);
  EXPECT_EQ(count(calls, CommandType::Draw), 2 * kMinRun);
  EXPECT_EQ(renderer_.stats().drawsRecorded, 2 * kMinRun);
  EXPECT_EQ(renderer_.stats().drawsSubmitted, 2 * kMinRun);
}

// Draws submitted for 2 x kMinRun mergeable draws, with REEL_MERGE_INSTANCES set to `env` (nullptr:
// unset) while the renderer is made with `configured`.
uint64_t drawsSubmittedWith(const char* env, bool configured) {
  if (env) ::setenv("REEL_MERGE_INSTANCES", env, 1);
  NullDevice device;
  Renderer renderer(device, {.framesInFlight = 1, .workers = 1, .mergeInstances = configured});
  ::unsetenv("REEL_MERGE_INSTANCES");
  ResourceContext& r = renderer.resources();
  const std::byte code[4] = {};
  PipelineDesc desc{};
  desc.vertexShader = r.createShader({.stage = ShaderStage::Vertex}, code);
  desc.pushConstantBytes = 16;
  const PipelineHandle pipeline = r.createPipeline(desc, {.vertexShader = desc.vertexShader,
                                                          .fragmentShader = {},
                                                          .constantOffset = 0,
                                                          .constantBytes = 16,
                                                          .bufferSlot = 0});
  auto& bucket = renderer.createBucket<DrawKey>("world");
  for (uint32_t i = 0; i < 2 * kMinRun; ++i) {
    auto& bind = bucket.add<cmd::BindPipeline>(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, i));
    bind.pipeline = pipeline;
    auto& push = bucket.append<cmd::PushConstants>(&bind, 16);
    bucket.append<cmd::Draw>(&push).vertexCount = 3;
  }
  renderer.kick();
  renderer.flushAndWait();
  return renderer.stats().drawsSubmitted;
}

// Off unless asked: on `stress` finding the runs cost more than the draws it saved.
TEST(InstanceMergeEnvironment, MergingIsOffUnlessConfigured) {
  EXPECT_FALSE(RendererConfig{}.mergeInstances);
  EXPECT_EQ(drawsSubmittedWith(nullptr, RendererConfig{}.mergeInstances), 2 * kMinRun);
  EXPECT_EQ(drawsSubmittedWith(nullptr, true), 1u);
}

TEST(InstanceMergeEnvironment, ReelMergeInstancesOverridesTheConfig) {
  EXPECT_EQ(drawsSubmittedWith("0", true), 2 * kMinRun);
  EXPECT_EQ(drawsSubmittedWith("1", false), 1u);
}

}  // namespace
}  // namespace reel
