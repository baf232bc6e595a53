// A bucket with a MaterialBinder, captured and replayed on the null device: the binder's passes are
// packets in the trace, so the replay (which has no binder) asks the device for exactly what the app did,
// byte for byte, tags included, and the sorted order is the recorded one.

#include <gtest/gtest.h>

#include <filesystem>

#include "reel/capture/capture.h"
#include "reel/replay/session.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"

namespace reel {
namespace {

namespace fs = std::filesystem;

// Two passes for materials below 8, each pass a viewport and push constants (aux data) naming material,
// pass and frame; other materials stay as recorded.
class FramePassBinder final : public MaterialBinder {
 public:
  bool bind(MaterialId material, uint32_t pass, BinderPackets& out) override {
    if (material.id >= 8) return false;
    auto& viewport = out.add<cmd::SetViewport>();
    viewport.x = float(material.id);
    viewport.y = float(pass);
    viewport.width = float(frame);
    const uint32_t constants[2] = {material.id, pass};
    out.addWithData<cmd::PushConstants>(constants, sizeof constants);
    return pass == 0;
  }
  uint64_t frame = 0;  // kick thread: set before the frame is kicked, read on the render thread after
};

using Calls = std::vector<NullDevice::Call>;

Calls sortedCalls(const Calls& calls, uint64_t first, uint64_t last) {
  Calls out;
  for (const auto& c : calls) {
    if (c.kind == NullDevice::Call::Kind::Command && c.frame >= first && c.frame <= last &&
        commandInfo(c.type).queue == CommandQueue::Sorted)
      out.push_back(c);
  }
  return out;
}

// Records frames 0..3 of an app whose "world" bucket has the binder and whose retained "hud" bucket has
// it too; captures frames 1-2.
Calls runApp(const fs::path& path) {
  NullDevice device;
  {
    Renderer renderer(device, {.framesInFlight = 1});  // the binder's `frame` is read after each kick
    FramePassBinder binder;
    auto& world = renderer.createBucket<DrawKey>("world");
    auto& hud = renderer.createBucket<DrawKey>("hud");
    world.setMaterialBinder(&binder);
    hud.setMaterialBinder(&binder);
    hud.add<cmd::Draw>(DrawKey::draw(7, 0, Translucency::Normal, {3, 0}, 0)).vertexCount = 70;
    hud.setRetained(true);

    capture::CaptureOptions options;
    options.path = path.string();
    options.firstFrame = 1;
    options.lastFrame = 2;
    options.handleSignals = false;
    auto capture = capture::Capture::start(renderer, options);
    EXPECT_TRUE(capture.ok()) << capture.error().message;
    for (uint64_t f = 0; f < 4; ++f) {
      binder.frame = f;
      for (uint32_t i = 0; i < 6; ++i) {
        // Materials 1, 2 and 9 (left alone), the same chain shape: a draw, then a tagged draw.
        const uint32_t material = i % 3 == 2 ? 9 : 1 + i % 2;
        auto& draw = world.add<cmd::Draw>(DrawKey::draw(1, 1, Translucency::Opaque, {material, 0}, 100 - i));
        draw.vertexCount = uint32_t(f * 100 + i);
        auto& second = world.append<cmd::Draw>(&draw);
        second.vertexCount = 1000 + i;
        REEL_TAG(world, &second, "second");
      }
      world.add<cmd::Draw>(DrawKey::command(0, 0, Translucency::Opaque, 5)).vertexCount = 5;  // no material
      renderer.kick();
      renderer.flushAndWait();
    }
    if (capture.ok()) {
      EXPECT_TRUE((*capture)->finish().ok());
    }
    EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  }
  return device.calls();
}

TEST(MaterialBinderReplay, CaptureHoldsThePassesAndReplaysTheSameDeviceCalls) {
  const fs::path dir = fs::temp_directory_path() / "reel_replay_tests" / "material_binder";
  fs::create_directories(dir);
  const fs::path path = dir / "binder.reel";
  const Calls app = runApp(path);

  auto reader = trace::TraceReader::open(path.string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  NullDevice device;
  std::vector<replay::FrameFeeder::SortMismatch> mismatches;
  {
    auto session = replay::ReplaySession::create(*reader, device, {});
    ASSERT_TRUE(session.ok()) << session.error().message;
    for (size_t i = 0; i < reader->frameCount(); ++i) {
      auto played = (*session)->replayFrame(i);
      ASSERT_TRUE(played.ok()) << played.error().message;
    }
    (*session)->renderer().flushAndWait();
    mismatches = (*session)->feeder().sortMismatches();
    EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
  }
  EXPECT_TRUE(mismatches.empty()) << "the sorted order changed";

  const Calls expected = sortedCalls(app, 1, 2);
  const Calls actual = sortedCalls(device.calls(), 1, 2);
  // Per frame: 4 keys of materials 1-2 with two passes of (viewport, push, draw, draw), 2 keys of
  // material 9 as recorded, the command, and the retained HUD's two passes.
  ASSERT_EQ(expected.size(), 2u * (4 * 8 + 2 * 2 + 1 + 6));
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].frame, expected[i].frame) << "call " << i;
    ASSERT_EQ(actual[i].type, expected[i].type) << "call " << i;
    ASSERT_EQ(actual[i].payload, expected[i].payload) << "call " << i << " " << commandName(actual[i].type);
    ASSERT_EQ(actual[i].aux, expected[i].aux) << "call " << i;
    ASSERT_EQ(actual[i].tag, expected[i].tag) << "call " << i;
  }
}

}  // namespace
}  // namespace reel
