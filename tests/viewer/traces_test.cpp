// Every trace in traces/ (the golden suite's captures of the sample app): the viewer's model reads each
// frame as the render thread ordered it, and reel-viewer shows each with its image panel equal to
// `reel replay --stop-at` of the same frame, command and target.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "model/frame_passes.h"
#include "model/frame_scan.h"
#include "model/frame_stats.h"
#include "model/frame_table.h"
#include "model/render_targets.h"
#include "model/stepping_replay.h"
#include "model/texels.h"
#include "model/trace_document.h"
#include "reel/image/compare.h"
#include "reel/image/image.h"
#include "reel/image/texels.h"
#include "test_util.h"

namespace reel::viewer::testing {
namespace {

std::vector<std::string> traceNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(REEL_TRACES_DIR, ec)) {
    if (entry.path().extension() == ".reel") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string tracePath(const std::string& name) {
  return std::string(REEL_TRACES_DIR) + "/" + name + ".reel";
}

class ViewerTraces : public ::testing::TestWithParam<std::string> {};

TEST_P(ViewerTraces, EveryFrameOpensInSortedOrderWithStatsAndResources) {
  auto doc = TraceDocument::open(tracePath(GetParam()));
  ASSERT_TRUE(doc) << doc.error().message;
  TraceDocument& d = *doc.value();
  EXPECT_EQ(d.warnings(), std::vector<std::string>{});
  ASSERT_GT(d.frameCount(), 0u);
  FrameScanner scanner(d.path(), d.indexSummaries());
  for (size_t i = 0; i < d.frameCount(); ++i) {
    auto frame = d.load(i);
    ASSERT_TRUE(frame) << frame.error().message;
    const LoadedFrame& f = *frame.value();
    EXPECT_EQ(f.table.sortedOrderHash(), f.record.sortedOrderHash) << "frame " << f.record.number;
    EXPECT_EQ(f.table.size(), f.record.packetCount());
    const FrameStats stats = computeStats(f.record, f.table, d.header());
    uint64_t counted = 0;
    for (const TypeStats& t : stats.types) counted += t.count;
    EXPECT_EQ(counted, f.table.size());
    EXPECT_FALSE(PassTargets(f.record, f.table, d.header()).targets().empty())
        << "every sample frame renders";
  }
  scanner.wait();
  EXPECT_EQ(scanner.error(), "");
  for (const FrameSummary& s : scanner.summaries()) {
    EXPECT_TRUE(s.scanned);
    EXPECT_EQ(s.error, "");
    EXPECT_GT(s.packets, 0u);
    EXPECT_FALSE(scanner.aliveAt(s.number).empty()) << "frame " << s.number << " has resources";
  }
}

// Stepping as the image panel does (continued forward, restored backward) through the last frame, at its
// start, in the middle and at the end, against reel's replay session starting over at each check.
TEST_P(ViewerTraces, SteppingMatchesReelsReplay) {
  const std::string path = tracePath(GetParam());
  auto doc = TraceDocument::open(path);
  ASSERT_TRUE(doc) << doc.error().message;
  const size_t last = doc.value()->frameCount() - 1;
  auto frame = doc.value()->load(last);
  ASSERT_TRUE(frame);
  const LoadedFrame& f = *frame.value();
  const PassTargets targets(f.record, f.table, doc.value()->header());
  auto session = SteppingReplay::open(path, DeviceChoice{"", true});  // validation on
  ASSERT_TRUE(session) << session.error().message;
  ASSERT_TRUE(session.value()->rasterizes()) << session.value()->deviceNote();
  ReferenceReplay reference(path, "", true);

  const uint64_t n = f.table.size();
  std::vector<uint64_t> stops;
  for (const uint64_t from : {uint64_t{1}, n / 3, 2 * n / 3, n > 8 ? n - 7 : uint64_t{1}}) {
    for (uint64_t s = std::max<uint64_t>(from, 1); s < from + 8 && s <= n; ++s) stops.push_back(s);
  }
  stops.push_back(n / 2);  // and back
  for (size_t i = 0; i < stops.size(); ++i) {
    const uint64_t stop = stops[i];
    const auto target = targets.targetAt(static_cast<uint32_t>(stop - 1));
    ASSERT_TRUE(target);
    ReplayRequest request;
    request.frameIndex = last;
    request.stopAfterPackets = stop;
    request.images.push_back({ImageSource::Kind::TargetColor, *target, 0});
    auto out = session.value()->run(request);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(out->deviceErrors, std::vector<std::string>{}) << "stop " << stop;
    EXPECT_EQ(out->sortMismatches, std::vector<std::string>{});
    ASSERT_EQ(out->images.size(), 1u);
    ASSERT_EQ(out->images[0].error, "") << "stop " << stop;
    // Checked at the end of each window and after the step back (each check replays from the start). A
    // continued step that went wrong would stay wrong in the steps after it, up to the window's end.
    const bool check =
        i + 1 == stops.size() || i % 8 == 7 || (i + 1 < stops.size() && stops[i + 1] != stop + 1);
    if (!check) continue;
    const ImageReadback& got = out->images[0];
    // A depth-only target (a shadow map's) gives its depth texture: its texels are compared as reel
    // writes depth (image::fromTexels), not as the panel scales it to the range it holds.
    auto shown = got.depth ? image::fromTexels(got.desc.width, got.desc.height, got.desc.format, got.texels)
                           : texelsToImage(got.texels, got.desc.width, got.desc.height, got.desc.format);
    ASSERT_TRUE(shown) << shown.error().message;
    const image::Image want =
        got.depth ? reference.texture(last, stop, got.texture) : reference.target(last, stop, *target);
    const image::Comparison c = image::compare(shown.value(), want);
    EXPECT_TRUE(c.matches) << "after " << stop << " of " << n << " packets (" << replayPathName(out->path)
                           << "): " << c.summary();
  }
}

TEST_P(ViewerTraces, ImagePanelEqualsReelReplayStopAt) {
  const std::string xvfb = findXvfbRun();
  if (xvfb.empty())
    GTEST_SKIP() << "xvfb-run is not installed: screenshots need an X server (apt install xvfb)";
  const auto dir = testFolder();
  const std::string path = tracePath(GetParam());
  auto doc = TraceDocument::open(path);
  ASSERT_TRUE(doc) << doc.error().message;
  const size_t last = doc.value()->frameCount() - 1;
  const uint64_t number = doc.value()->frameNumber(last);
  auto frame = doc.value()->load(last);
  ASSERT_TRUE(frame);
  // A command two thirds into the sorted frame: some of it drawn, some not.
  const uint64_t select = frame.value()->table.size() * 2 / 3;

  const std::string png = (dir / "shot.png").string(), info = (dir / "shot.json").string();
  const CommandResult run = runUnderXvfb(
      xvfb, "-a -s '-screen 0 1600x1200x24' " + std::string(REEL_VIEWER_PATH) + " " + path + " --frame " +
                std::to_string(number) + " --sorted --select " + std::to_string(select) + " --screenshot " +
                png + " --screenshot-info " + info + " --screenshot-timeout 100");
  ASSERT_EQ(run.exitCode, 0) << run.output;
  auto shot = image::readPng(png);
  ASSERT_TRUE(shot) << shot.error().message;
  const std::string json = readText(info);
  const std::string imageInfo = jsonObject(json, "image").value_or("");
  ASSERT_EQ(jsonString(imageInfo, "error"), "") << json;
  const std::string source = jsonString(imageInfo, "source").value_or("");
  // "render_target#3.1 color 0 (texture#7.1)": the same target for reel replay, as rt:3.0; a depth-only
  // target, "render_target#2.1 depth (texture#9.1)", as the texture, tex:9.
  const size_t hash = source.find('#'), dot = source.find('.');
  ASSERT_TRUE(source.starts_with("render_target#") && dot != std::string::npos) << source;
  const std::string slot = source.substr(hash + 1, dot - hash - 1);
  const auto attachment = source.find("color ");
  std::string replayTarget;
  if (attachment != std::string::npos) {
    replayTarget = "rt:" + slot + "." + source.substr(attachment + 6, 1);
  } else {
    const size_t texture = source.find("(texture#");
    ASSERT_TRUE(source.find(" depth ") != std::string::npos && texture != std::string::npos) << source;
    replayTarget = "tex:" + source.substr(texture + 9, source.find('.', texture) - texture - 9);
  }

  const std::string out = (dir / "replay").string();
  const CommandResult replay =
      runCommand(std::string(REEL_CLI_PATH) + " replay " + path + " --frames " + std::to_string(number) +
                 " --stop-at " + std::to_string(select + 1) + " --target " + replayTarget + " --out " + out);
  ASSERT_EQ(replay.exitCode, 0) << replay.output;
  auto expected = image::readPng(out + "/frame_" + std::to_string(number) + ".png");
  ASSERT_TRUE(expected) << expected.error().message << "\n" << replay.output;
  for (size_t i = 3; i < expected->rgba.size(); i += 4)
    expected->rgba[i] = 255;  // the panel shows colors opaque
  if (attachment == std::string::npos) {
    // A depth-only target: the panel scales depth to the range it holds (texelsToImage), reel writes it
    // as it is. The texels the viewer's replay reads back give reel's image, and scaled the panel's.
    auto session = SteppingReplay::open(path, DeviceChoice{"", false});
    ASSERT_TRUE(session) << session.error().message;
    const PassTargets targets(frame.value()->record, frame.value()->table, doc.value()->header());
    const auto target = targets.targetAt(static_cast<uint32_t>(select));
    ASSERT_TRUE(target);
    ReplayRequest request;
    request.frameIndex = last;
    request.stopAfterPackets = select + 1;
    request.images.push_back({ImageSource::Kind::TargetDepth, *target, 0});
    auto got = session.value()->run(request);
    ASSERT_TRUE(got && got->images.size() == 1 && got->images[0].error.empty());
    const ImageReadback& depth = got->images[0];
    auto raw = image::fromTexels(depth.desc.width, depth.desc.height, depth.desc.format, depth.texels);
    ASSERT_TRUE(raw) << raw.error().message;
    EXPECT_TRUE(image::compare(raw.value(), expected.value()).matches) << "the texels reel replay wrote";
    auto scaled = texelsToImage(depth.texels, depth.desc.width, depth.desc.height, depth.desc.format);
    ASSERT_TRUE(scaled) << scaled.error().message;
    expected = std::move(scaled.value());
  }

  // The panel's pixels, one per image pixel (the viewer says where and at which zoom it drew them).
  const auto rect = jsonObject(imageInfo, "rect").value_or("");
  const long long x0 = jsonNumber(rect, "x").value_or(-1), y0 = jsonNumber(rect, "y").value_or(-1);
  const long long zoom = jsonNumber(imageInfo, "zoom").value_or(0);
  const long long w = jsonNumber(imageInfo, "image_width").value_or(0),
                  h = jsonNumber(imageInfo, "image_height").value_or(0);
  ASSERT_EQ(w, expected->width);
  ASSERT_EQ(h, expected->height);
  ASSERT_GE(zoom, 1);
  ASSERT_TRUE(x0 >= 0 && y0 >= 0 && x0 + w * zoom <= shot->width && y0 + h * zoom <= shot->height)
      << imageInfo;
  image::Image panel(static_cast<uint32_t>(w), static_cast<uint32_t>(h));
  for (uint32_t y = 0; y < panel.height; ++y) {
    for (uint32_t x = 0; x < panel.width; ++x) {
      std::memcpy(panel.pixel(x, y),
                  shot->pixel(static_cast<uint32_t>(x0 + x * zoom), static_cast<uint32_t>(y0 + y * zoom)), 4);
    }
  }
  const image::Comparison c = image::compare(panel, expected.value());
  EXPECT_TRUE(c.matches) << c.summary();
}

INSTANTIATE_TEST_SUITE_P(Traces, ViewerTraces, ::testing::ValuesIn(traceNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ViewerTraces);

// The passes tab's model on frame 0 of a golden trace, once the background scan has read the trace.
class ViewerPasses : public ::testing::Test {
 protected:
  void open(const std::string& trace) {
    auto doc = TraceDocument::open(tracePath(trace));
    ASSERT_TRUE(doc) << doc.error().message;
    doc_ = std::move(doc.value());
    scanner_ = std::make_unique<FrameScanner>(doc_->path(), doc_->indexSummaries());
    scanner_->wait();
    auto frame = doc_->load(0);
    ASSERT_TRUE(frame) << frame.error().message;
    frame_ = frame.value();
  }
  FrameGraphBuilder::TargetLookup targets() const {
    return scannedTargets(*scanner_, doc_->header(), frame_->record.number);
  }
  FramePasses passes() const { return framePasses(frame_->record, doc_->header(), targets()); }
  TransientMap transients() const {
    return transientMap(passes(), scannedTextures(*scanner_, doc_->header(), frame_->record.number));
  }

 private:
  std::unique_ptr<TraceDocument> doc_;
  std::unique_ptr<FrameScanner> scanner_;
  const LoadedFrame* frame_ = nullptr;
};

// The deferred scene's declared passes: each pass's name and what its render graph says it waits for,
// from what the passes' packets bind, copy and draw into.
TEST_F(ViewerPasses, TheDeferredScenesPassesWaitForWhatTheyRead) {
  ASSERT_NO_FATAL_FAILURE(open("deferred_declared"));
  const std::vector<PassRow> passes = this->passes().rows;
  std::vector<std::string> names;
  for (const PassRow& p : passes) names.push_back(p.name);
  ASSERT_EQ(names, (std::vector<std::string>{"deferred: G-buffer", "deferred: lighting (compute)",
                                             "deferred: bright pass", "deferred: blur", "deferred", "hud"}));
  auto after = [&](size_t pass) { return passes[pass].graph.dependsOn; };
  EXPECT_EQ(passes[0].graph.writes.size(), 6u)
      << "three colors and depth, the camera's and the lights' uploads";
  EXPECT_EQ(after(0), std::vector<uint32_t>{});
  EXPECT_EQ(after(1), std::vector<uint32_t>{0}) << "lighting samples the G-buffer";
  EXPECT_EQ(passes[1].desc.queue, QueueClass::AsyncCompute);
  EXPECT_TRUE(passes[1].desc.target.isNull());
  EXPECT_EQ(after(2), std::vector<uint32_t>{1}) << "the bright pass reads the lit buffer";
  EXPECT_EQ(after(3), std::vector<uint32_t>{2}) << "the blur samples the bright pass";
  const std::vector<uint32_t> composite = after(4);
  EXPECT_TRUE(std::find(composite.begin(), composite.end(), 1u) != composite.end()) << "the lit buffer";
  EXPECT_TRUE(std::find(composite.begin(), composite.end(), 3u) != composite.end()) << "the blurred bloom";
  EXPECT_EQ(after(5), std::vector<uint32_t>{4}) << "the HUD draws over the view's target";
  for (const PassRow& p : passes) EXPECT_GT(p.graph.packets, 0u) << p.name;
}

// deferred_occlusion: the occlusion (compute) and the shadow map (graphics) both follow the G-buffer and
// not each other, so the sync diagram puts them on two queues side by side; the lighting waits for both.
TEST_F(ViewerPasses, TheOcclusionAndTheShadowMapRunOnTwoQueuesSideBySide) {
  ASSERT_NO_FATAL_FAILURE(open("deferred_occlusion"));
  const std::vector<PassRow> passes = this->passes().rows;
  std::vector<std::string> names;
  for (const PassRow& p : passes) names.push_back(p.name);
  ASSERT_EQ(names, (std::vector<std::string>{"deferred: G-buffer", "deferred: ambient occlusion (compute)",
                                             "deferred: sun shadow map", "deferred: lighting (compute)",
                                             "deferred: bright pass", "deferred: blur", "deferred", "hud"}));
  auto after = [&](size_t pass) { return passes[pass].graph.dependsOn; };
  EXPECT_EQ(after(1), std::vector<uint32_t>{0}) << "the occlusion samples the G-buffer";
  EXPECT_EQ(after(2), std::vector<uint32_t>{0})
      << "the shadow map: the sun's camera, uploaded in the G-buffer pass";
  EXPECT_EQ(after(3), (std::vector<uint32_t>{0, 1, 2})) << "the lighting reads all three";
  EXPECT_EQ(passQueue(passes[1].desc, passes[1].graph), QueueClass::AsyncCompute);
  EXPECT_EQ(passQueue(passes[2].desc, passes[2].graph), QueueClass::Graphics);
  EXPECT_EQ(passQueue(passes[3].desc, passes[3].graph), QueueClass::AsyncCompute);
}

// The aliasing map of the deferred scene's transient targets marks the one a replay stores DONT_CARE: the
// G-buffer's depth (its colors are read by the lighting, the bright and blur targets by the passes after
// them), as `reel replay` counts it.
TEST_F(ViewerPasses, TheTransientMapMarksTheTargetStoredDontCare) {
  ASSERT_NO_FATAL_FAILURE(open("deferred_transient"));
  const TransientMap map = transients();
  ASSERT_EQ(map.textures.size(), 6u);
  const std::optional<RenderTargetDesc> gbuffer = targets()(passes().rows.at(0).desc.target);
  ASSERT_TRUE(gbuffer);
  for (const TransientRow& row : map.textures) {
    EXPECT_EQ(row.discarded, row.life.texture == gbuffer->depth.value)
        << formatHandle(TextureHandle{row.life.texture});
  }
}

}  // namespace
}  // namespace reel::viewer::testing
