// Declared passes through capture and replay: the trace records the pass table (the DeclarePass
// requests) and each key's pass (format 1.5's pass column), its own sort agrees with the render thread's,
// and a replay gives the device the same commands as the app, stepping included. On the null device.

#include <gtest/gtest.h>

#include <filesystem>

#include "reel/capture/capture.h"
#include "reel/replay/frame_order.h"
#include "reel/replay/session.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"
#include "reel/trace/reader.h"
#include "temp_path.h"

namespace reel {
namespace {

namespace fs = std::filesystem;

using testing::tempPath;

// The sorted commands the device ran in a frame (what the renderer begins and ends included), as bytes.
std::vector<std::pair<CommandType, std::vector<std::byte>>> sortedCalls(
    const std::vector<NullDevice::Call>& calls, uint64_t frame) {
  std::vector<std::pair<CommandType, std::vector<std::byte>>> out;
  for (const auto& call : calls) {
    if (call.kind == NullDevice::Call::Kind::Command && call.frame == frame &&
        commandInfo(call.type).queue == CommandQueue::Sorted)
      out.emplace_back(call.type, call.payload);
  }
  return out;
}

constexpr uint64_t kFrames = 3;

// Two buckets of different orders, three passes (an offscreen one, a compute one and one on the frame
// image) and keys that name none; frame 1 declares its passes in the other order.
std::vector<NullDevice::Call> runApp(const fs::path& path) {
  NullDevice device;
  {
    Renderer renderer(device);
    auto& scene = renderer.createBucket<DrawKey>("scene");
    auto& post = renderer.createBucket<uint32_t>("post", {.order = BucketOrder::Post});
    ResourceContext& r = renderer.resources();
    const TextureHandle color = r.createTexture({16, 16, 1, Format::RGBA8Unorm, texture_usage::kColorTarget});
    const TextureHandle image = r.createTexture({16, 16, 1, Format::RGBA8Unorm, texture_usage::kColorTarget});
    RenderTargetDesc one{};
    one.colorCount = 1;
    one.colors[0] = color;
    const RenderTargetHandle offscreen = r.createRenderTarget(one);
    one.colors[0] = image;
    const RenderTargetHandle frameImage = r.createRenderTarget(one);
    capture::CaptureOptions options;
    options.path = path.string();
    options.handleSignals = false;
    auto capture = capture::Capture::start(renderer, options);
    EXPECT_TRUE(capture.ok()) << capture.error().message;
    for (uint64_t f = 0; f < kFrames; ++f) {
      PassDesc offscreenDesc;
      offscreenDesc.target = offscreen;
      offscreenDesc.viewport[2] = 8.0f, offscreenDesc.viewport[3] = 8.0f;
      PassDesc frameDesc;
      frameDesc.target = frameImage;
      frameDesc.colorLoad = LoadOp::Load;
      PassId first, compute, last;
      if (f == 1) {
        last = r.declarePass("frame image", frameDesc);
        compute = r.declarePass("compute", PassDesc{});
        first = r.declarePass("offscreen", offscreenDesc);
      } else {
        first = r.declarePass("offscreen", offscreenDesc);
        compute = r.declarePass("compute", PassDesc{});
        last = r.declarePass("frame image", frameDesc);
      }
      for (uint32_t i = 0; i < 4; ++i) {
        scene.add<cmd::Draw>(first, DrawKey::draw(0, 1, Translucency::Opaque, {1 + i % 2, 0}, 10 - i))
            .vertexCount = 100 + i;
        post.add<cmd::Draw>(last, i).vertexCount = 200 + i;
      }
      scene.add<cmd::Dispatch>(compute, DrawKey::command(0, 0, Translucency::Opaque, 0)).groupsX = 300;
      scene.add<cmd::Draw>(DrawKey::draw(7, 1, Translucency::Opaque, {1, 0}, 0)).vertexCount =
          400;  // no pass
      renderer.kick();
    }
    renderer.flushAndWait();
  }
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  return device.calls();
}

TEST(DeclaredPasses, TraceRecordsThePassesAndReplayGivesTheDeviceTheSameCommands) {
  const fs::path path = tempPath("passes.reel");
  const std::vector<NullDevice::Call> app = runApp(path);
  auto reader = trace::TraceReader::open(path.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), kFrames);
  for (size_t i = 0; i < kFrames; ++i) {
    auto frame = reader->readFrame(i);
    ASSERT_TRUE(frame.ok()) << frame.error().message;
    ASSERT_EQ(frame->buckets.size(), 2u);
    EXPECT_TRUE(frame->buckets[0].namesPasses());
    EXPECT_EQ(frame->buckets[0].pass(frame->buckets[0].keyCount() - 1), PassId::kNone)
        << "the pass-less draw";
    EXPECT_EQ(frame->buckets[1].pass(0), i == 1 ? 0 : 2);
    const replay::FrameOrder order = replay::orderFrame(*frame);
    EXPECT_EQ(order.sortedOrderHash, frame->sortedOrderHash) << "frame " << i;
  }
  // The app's frames: the offscreen pass's draws first (whatever their bucket's order), the frame-image
  // pass's, then the key that names none.
  const auto frame0 = sortedCalls(app, 0);
  ASSERT_FALSE(frame0.empty());
  EXPECT_EQ(frame0.front().first, CommandType::BeginRenderPass);
  EXPECT_EQ(frame0.back().first, CommandType::Draw);

  NullDevice device;
  {
    auto session = replay::ReplaySession::create(*reader, device, {});
    ASSERT_TRUE(session.ok()) << session.error().message;
    for (size_t i = 0; i < kFrames; ++i) {
      auto played = (*session)->replayFrame(i);
      ASSERT_TRUE(played.ok()) << played.error().message;
    }
    (*session)->renderer().flushAndWait();
    EXPECT_TRUE((*session)->feeder().sortMismatches().empty()) << "the replay sorted differently";
  }
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  for (uint64_t f = 0; f < kFrames; ++f)
    EXPECT_EQ(sortedCalls(device.calls(), f), sortedCalls(app, f)) << "frame " << f;
}

TEST(DeclaredPasses, SteppingForwardInsideAPassReplaysTheFrameAgain) {
  const fs::path path = tempPath("step.reel");
  runApp(path);
  auto reader = trace::TraceReader::open(path.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  NullDevice device;
  auto session = replay::ReplaySession::create(*reader, device, {});
  ASSERT_TRUE(session.ok()) << session.error().message;
  auto first = (*session)->seek(0, 2);  // inside the offscreen pass
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = (*session)->seek(0, 6);  // into the frame-image pass
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_NE(second->path, replay::SeekPath::Continued)
      << "a continued step cannot reopen a declared pass: the frame runs again";
  EXPECT_EQ(second->executed, 6u);
  (*session)->renderer().flushAndWait();
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
}

}  // namespace
}  // namespace reel
