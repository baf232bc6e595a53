// Bucket order (BucketOrder): a frame sorts by (bucket order, key), the order travels with each captured
// bucket, and a replay sorts as the app did. Checked on the null device, draw by draw.

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

// Each draw's vertexCount names it; the device's calls of a frame, as those names.
std::vector<uint32_t> drawsOfFrame(const std::vector<NullDevice::Call>& calls, uint64_t frame) {
  std::vector<uint32_t> out;
  for (const auto& call : calls) {
    if (call.kind == NullDevice::Call::Kind::Command && call.frame == frame && call.type == CommandType::Draw)
      out.push_back(call.as<cmd::Draw>().vertexCount);
  }
  return out;
}

// A post bucket (integer keys) created first, a scene and a shadow bucket (draw keys) after it. Frame 1
// moves the shadow bucket to the end (setOrder before its kick), frame 2 puts every bucket in one order.
void recordFrame(uint64_t f, CommandBucket<uint32_t>& post, CommandBucket<DrawKey>& scene,
                 CommandBucket<DrawKey>& shadow) {
  post.add<cmd::Draw>(1).vertexCount = 300;  // a tiny key: by key alone it sorts first
  post.add<cmd::Draw>(0).vertexCount = 301;
  scene.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {2, 0}, 10)).vertexCount = 201;
  scene.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 10)).vertexCount = 200;
  shadow.add<cmd::Draw>(DrawKey::draw(0, 0, Translucency::Opaque, {1, 0}, 5)).vertexCount = 100;
  if (f == 1) shadow.setOrder(BucketOrder::Last);
  if (f == 2) {
    post.setOrder(BucketOrder::Scene);
    shadow.setOrder(BucketOrder::Scene);
  }
}

const std::vector<std::vector<uint32_t>> kExpected = {
    {100, 200, 201, 301, 300},  // shadow, scene, post (by key within post: 0 before 1)
    {200, 201, 301, 300, 100},  // shadow set to Last
    {301, 300, 100, 200, 201},  // one order: by key alone, the post keys first
};

std::vector<NullDevice::Call> runApp(const fs::path& path) {
  NullDevice device;
  {
    Renderer renderer(device);
    auto& post = renderer.createBucket<uint32_t>("post", {.order = BucketOrder::Post});
    auto& scene = renderer.createBucket<DrawKey>("scene");
    auto& shadow = renderer.createBucket<DrawKey>("shadow", {.order = BucketOrder::Shadow});
    EXPECT_EQ(scene.order(), BucketOrder::Scene) << "the default";
    capture::CaptureOptions options;
    options.path = path.string();
    options.handleSignals = false;
    auto capture = capture::Capture::start(renderer, options);
    EXPECT_TRUE(capture.ok()) << capture.error().message;
    for (uint64_t f = 0; f < 3; ++f) {
      // The order a bucket has at the kick is the one the frame sorts with.
      recordFrame(f, post, scene, shadow);
      renderer.kick();
    }
    renderer.flushAndWait();
  }
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  return device.calls();
}

TEST(BucketOrder, FrameSortsByBucketOrderThenKey) {
  const std::vector<NullDevice::Call> calls = runApp(tempPath("app.reel"));
  for (uint64_t f = 0; f < 3; ++f) EXPECT_EQ(drawsOfFrame(calls, f), kExpected[f]) << "frame " << f;
}

TEST(BucketOrder, TraceRecordsEachBucketsOrderAndReplaySortsTheSame) {
  const fs::path path = tempPath("ordered.reel");
  const std::vector<NullDevice::Call> app = runApp(path);
  auto reader = trace::TraceReader::open(path.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  ASSERT_EQ(reader->frameCount(), 3u);
  for (size_t i = 0; i < reader->frameCount(); ++i) {
    auto frame = reader->readFrame(i);
    ASSERT_TRUE(frame.ok()) << frame.error().message;
    ASSERT_EQ(frame->buckets.size(), 3u);
    EXPECT_EQ(frame->buckets[0].order, i < 2 ? BucketOrder::Post : BucketOrder::Scene);
    // The trace's own sort (reel dump --sorted, bisect, the viewer) agrees with the render thread's.
    const replay::FrameOrder order = replay::orderFrame(*frame);
    EXPECT_EQ(order.sortedOrderHash, frame->sortedOrderHash) << "frame " << i;
    std::vector<uint32_t> draws;
    for (const auto& k : order.sorted) {
      frame->buckets[k.bucket].forEachInChain(k.key, [&](const trace::PacketRecord& p) {
        cmd::Draw draw{};
        EXPECT_TRUE(p.as(draw));
        draws.push_back(draw.vertexCount);
      });
    }
    EXPECT_EQ(draws, kExpected[i]) << "frame " << i;
  }

  NullDevice device;
  {
    auto session = replay::ReplaySession::create(*reader, device, {});
    ASSERT_TRUE(session.ok()) << session.error().message;
    for (size_t i = 0; i < reader->frameCount(); ++i) {
      auto played = (*session)->replayFrame(i);
      ASSERT_TRUE(played.ok()) << played.error().message;
    }
    (*session)->renderer().flushAndWait();
    EXPECT_TRUE((*session)->feeder().sortMismatches().empty()) << "the replay sorted differently";
  }
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  for (uint64_t f = 0; f < 3; ++f) EXPECT_EQ(drawsOfFrame(device.calls(), f), kExpected[f]) << "frame " << f;
}

}  // namespace
}  // namespace reel
