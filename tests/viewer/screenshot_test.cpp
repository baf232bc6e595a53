// reel-viewer --screenshot under xvfb-run: the window is the UI, and its image panel shows exactly the
// pixels a replay of the same frame up to the same command gives. The viewer writes, beside the PNG, a
// JSON file saying where it drew the replayed image (--screenshot-info); the test crops the PNG there
// and compares every pixel with a replay of its own (Renderer + replay feeder + Vulkan device). A wrong
// rectangle, a wrong zoom, a wrong command or a wrong target all make the comparison fail.

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <set>

#include "model/frame_table.h"
#include "reel/capture/capture.h"
#include "reel/image/compare.h"
#include "reel/image/image.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "test_util.h"
#include "viewer_scene.h"

namespace reel::viewer::testing {
namespace {

struct Rect {
  long long x = 0, y = 0, width = 0, height = 0;
};

std::optional<Rect> rectOf(const std::string& object) {
  Rect r;
  const auto x = jsonNumber(object, "x"), y = jsonNumber(object, "y"), w = jsonNumber(object, "width"),
             h = jsonNumber(object, "height");
  if (!x || !y || !w || !h) return std::nullopt;
  r.x = *x, r.y = *y, r.width = *w, r.height = *h;
  return r;
}

class ViewerScreenshot : public ::testing::Test {
 protected:
  void SetUp() override {
    xvfb_ = findXvfbRun();
    if (xvfb_.empty())
      GTEST_SKIP() << "xvfb-run is not installed: screenshots need an X server (apt install xvfb)";
    dir_ = testFolder();
  }

  struct Shot {
    CommandResult run;
    image::Image png;
    std::string info;
  };
  // `program` is reel-viewer itself or `reel view`, which hands every argument on to it.
  Shot screenshot(const std::string& trace, const std::string& args,
                  const std::string& program = REEL_VIEWER_PATH) {
    Shot s;
    const std::string png = (dir_ / ("shot" + std::to_string(shots_) + ".png")).string();
    const std::string info = (dir_ / ("shot" + std::to_string(shots_) + ".json")).string();
    ++shots_;
    s.run = runUnderXvfb(xvfb_, "-a -s '-screen 0 1600x1200x24' " + program + " '" + trace + "' " + args +
                                    " --screenshot " + png + " --screenshot-info " + info +
                                    " --screenshot-timeout 100");
    auto read = image::readPng(png);
    if (read) s.png = std::move(read.value());
    s.info = readText(info);
    return s;
  }

  // The pixels of the viewer's image panel, one per replayed pixel.
  static image::Image panelPixels(const Shot& shot, std::string* why) {
    return imagePixels(shot, jsonObject(shot.info, "image").value_or(""), why);
  }
  // The pixels of an image the viewer drew, from its entry in the info: where ("rect"), at which zoom,
  // and how large the image is.
  static image::Image imagePixels(const Shot& shot, const std::string& imageInfo, std::string* why) {
    const std::optional<Rect> r = rectOf(jsonObject(imageInfo, "rect").value_or(""));
    const long long zoom = jsonNumber(imageInfo, "zoom").value_or(0);
    const long long w = jsonNumber(imageInfo, "image_width").value_or(0);
    const long long h = jsonNumber(imageInfo, "image_height").value_or(0);
    if (!r || zoom < 1 || w < 1 || h < 1) {
      *why = "no image rectangle in the info: " + imageInfo + " in " + shot.info;
      return {};
    }
    if (r->x < 0 || r->y < 0 || r->x + r->width > shot.png.width || r->y + r->height > shot.png.height ||
        r->width != w * zoom || r->height != h * zoom) {
      *why = "image rectangle outside the screenshot or not width x zoom: " + imageInfo;
      return {};
    }
    image::Image out(static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    // Every screen pixel of a zoomed image pixel must be that pixel.
    for (uint32_t y = 0; y < out.height; ++y) {
      for (uint32_t x = 0; x < out.width; ++x) {
        const uint8_t* first =
            shot.png.pixel(static_cast<uint32_t>(r->x + x * zoom), static_cast<uint32_t>(r->y + y * zoom));
        for (long long dy = 0; dy < zoom; ++dy) {
          for (long long dx = 0; dx < zoom; ++dx) {
            const uint8_t* p = shot.png.pixel(static_cast<uint32_t>(r->x + x * zoom + dx),
                                              static_cast<uint32_t>(r->y + y * zoom + dy));
            if (std::memcmp(p, first, 4) != 0) {
              *why = "screen pixels of image pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                     ") differ";
              return {};
            }
          }
        }
        std::memcpy(out.pixel(x, y), first, 4);
      }
    }
    return out;
  }

  // A replay of the trace's frame up to `stop` sorted packets, the scene's color target read back.
  static image::Image expected(const std::string& trace, size_t frame, uint64_t stop, uint32_t texture,
                               uint32_t width = SceneOptions{}.width,
                               uint32_t height = SceneOptions{}.height) {
    auto device = vulkanDevice();
    EXPECT_TRUE(device) << device.error().message;
    if (!device) return {};
    auto texels = directReplay(trace, *device.value(), frame, stop, texture);
    EXPECT_TRUE(texels) << texels.error().message;
    if (!texels) return {};
    image::Image img = rgbaImage(texels.value(), width, height);
    for (size_t i = 3; i < img.rgba.size(); i += 4) img.rgba[i] = 255;  // the panel shows colors opaque
    return img;
  }

  struct Scene {
    std::string path;
    uint32_t color = 0;
    uint32_t tiles = 0;
    size_t packets = 0;  // of frame 1
  };
  Scene captured() {
    Scene s;
    s.path = (dir_ / "scene.reel").string();
    const SceneHandles handles = sceneHandles();
    s.color = handles.color;
    s.tiles = handles.tiles;
    NullDevice device;
    const auto ok = captureScene(s.path, device, 3);
    EXPECT_TRUE(ok) << ok.error().message;
    auto reader = trace::TraceReader::open(s.path);
    if (reader) s.packets = reader->readFrame(1)->packetCount();
    return s;
  }

  std::string xvfb_;
  std::filesystem::path dir_;
  int shots_ = 0;
};

TEST_F(ViewerScreenshot, ImagePanelShowsTheReplayAfterTheSelectedSortedCommand) {
  const Scene scene = captured();
  ASSERT_GT(scene.packets, 12u);
  const uint64_t select = scene.packets - 6;  // in the middle of the quads: some drawn, some not yet
  const Shot shot = screenshot(scene.path, "--frame 1 --sorted --select " + std::to_string(select));
  ASSERT_EQ(shot.run.exitCode, 0) << shot.run.output;
  EXPECT_EQ(shot.png.width, 1280u);
  EXPECT_EQ(shot.png.height, 800u);
  EXPECT_EQ(jsonNumber(shot.info, "frame"), 1);
  EXPECT_EQ(jsonNumber(shot.info, "selected_sorted"), static_cast<long long>(select));
  EXPECT_EQ(jsonString(shot.info, "open_error"), "");
  const auto imageInfo = jsonObject(shot.info, "image");
  ASSERT_TRUE(imageInfo) << shot.info;
  EXPECT_EQ(jsonNumber(*imageInfo, "stop_after_packets"), static_cast<long long>(select + 1));
  EXPECT_NE(jsonString(*imageInfo, "source")->find("color 0 (texture#"), std::string::npos) << *imageInfo;
  EXPECT_EQ(jsonString(*imageInfo, "error"), "");

  std::string why;
  const image::Image panel = panelPixels(shot, &why);
  ASSERT_FALSE(panel.empty()) << why;
  const image::Image want = expected(scene.path, 1, select + 1, scene.color);
  const image::Comparison c = image::compare(panel, want);
  EXPECT_TRUE(c.matches) << c.summary();

  // The image is not the frame's end: the quads after the selection are missing from it.
  const image::Image end = expected(scene.path, 1, UINT64_MAX, scene.color);
  EXPECT_FALSE(image::compare(panel, end).matches) << "the selection must matter";

  // The panels are all there and the UI drew into them (not a blank window).
  for (const char* panelName : {"Frames", "Image after command", "Inspector", "Resources", "Stats"}) {
    const auto panels = jsonObject(shot.info, "panels");
    ASSERT_TRUE(panels);
    const auto rect = jsonObject(*panels, panelName);
    ASSERT_TRUE(rect) << panelName << " missing: " << *panels;
  }
}

TEST_F(ViewerScreenshot, ReelViewIsTheViewerWithTheSameArguments) {
  const Scene scene = captured();
  const std::string args = "--frame 1 --sorted --select 7";
  const Shot direct = screenshot(scene.path, args);
  const Shot viaReel = screenshot(scene.path, args, std::string(REEL_CLI_PATH) + " view");
  ASSERT_EQ(direct.run.exitCode, 0) << direct.run.output;
  ASSERT_EQ(viaReel.run.exitCode, 0) << viaReel.run.output;
  EXPECT_EQ(jsonNumber(viaReel.info, "selected_sorted"), 7);
  EXPECT_EQ(jsonNumber(viaReel.info, "frame"), 1);
  // The whole window differs in the times it shows; the replayed image must not.
  std::string why;
  const image::Image viaReelPanel = panelPixels(viaReel, &why);
  ASSERT_FALSE(viaReelPanel.empty()) << why;
  const image::Image directPanel = panelPixels(direct, &why);
  ASSERT_FALSE(directPanel.empty()) << why;
  const image::Comparison c = image::compare(viaReelPanel, directPanel);
  EXPECT_TRUE(c.matches) << c.summary();
  // A flag reel-viewer does not know is its error, with its exit code for bad input.
  const CommandResult bad =
      runCommand(std::string(REEL_CLI_PATH) + " view '" + scene.path + "' --no-such-flag");
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("--no-such-flag"), std::string::npos) << bad.output;
}

TEST_F(ViewerScreenshot, SubmissionOrderSelectionReplaysUpToThatPacketsSortedPosition) {
  const Scene scene = captured();
  // Submission position 5 of frame 1: the viewer maps it to its sorted position, and replays to there.
  auto reader = trace::TraceReader::open(scene.path);
  ASSERT_TRUE(reader);
  auto frame = reader->readFrame(1);
  ASSERT_TRUE(frame);
  const FrameTable table = FrameTable::build(frame.value());
  const uint32_t sorted = table.sortedPosition(5);
  const Shot shot = screenshot(scene.path, "--frame 1 --select 5 --target 0");
  ASSERT_EQ(shot.run.exitCode, 0) << shot.run.output;
  EXPECT_EQ(jsonNumber(shot.info, "selected_row"), 5);
  EXPECT_EQ(jsonNumber(shot.info, "selected_sorted"), static_cast<long long>(sorted));
  std::string why;
  const image::Image panel = panelPixels(shot, &why);
  ASSERT_FALSE(panel.empty()) << why;
  EXPECT_TRUE(image::compare(panel, expected(scene.path, 1, sorted + 1, scene.color)).matches);
}

TEST_F(ViewerScreenshot, ResourcesPanelShowsATextureAsTheReplayLeavesIt) {
  const Scene scene = captured();
  // After the second of frame 1's tile copies (they sort first: their u32 keys are small).
  const std::string name = "texture#" + std::to_string(scene.tiles & 0xfffff);
  const Shot shot = screenshot(scene.path, "--frame 1 --sorted --select 1 --resource " + name);
  ASSERT_EQ(shot.run.exitCode, 0) << shot.run.output;
  const std::string resource = jsonObject(shot.info, "resource").value_or("");
  EXPECT_EQ(jsonString(resource, "name"), name + ".1");
  const size_t images = resource.find("\"images\": [{");
  ASSERT_NE(images, std::string::npos) << resource;
  const std::string first = resource.substr(images + 12);
  EXPECT_EQ(jsonString(first, "source"), "mip 0 " + name + ".1");
  std::string why;
  const image::Image shown = imagePixels(shot, first, &why);
  ASSERT_FALSE(shown.empty()) << why;
  const image::Image want = expected(scene.path, 1, 2, scene.tiles, 32, 32);
  EXPECT_TRUE(image::compare(shown, want).matches) << image::compare(shown, want).summary();
  EXPECT_FALSE(image::compare(shown, expected(scene.path, 1, 1, scene.tiles, 32, 32)).matches)
      << "one copy fewer leaves another image";

  const Shot missing = screenshot(scene.path, "--frame 1 --resource texture#77");
  ASSERT_EQ(missing.run.exitCode, 0) << missing.run.output;
  EXPECT_NE(jsonString(jsonObject(missing.info, "resource").value_or(""), "error")->find("texture#77"),
            std::string::npos)
      << missing.info;
}

// The Stats panel opened on its passes tab (--stats-tab): the deferred scene's six declared passes, and an
// arrow in the sync diagram for each dependency of its render graph, across queues where it crosses them,
// and the aliasing map of the frame's transient textures.
TEST_F(ViewerScreenshot, StatsPanelDrawsTheFramesPassesAndTheirDependencies) {
  const std::string trace = std::string(REEL_TRACES_DIR) + "/deferred_declared.reel";
  const Shot shot = screenshot(trace, "--frame 1 --stats-tab passes --device null");
  ASSERT_EQ(shot.run.exitCode, 0) << shot.run.output;
  const auto stats = jsonObject(shot.info, "stats");
  ASSERT_TRUE(stats) << shot.info;
  EXPECT_NE(stats->find("\"tab\": \"passes\""), std::string::npos) << *stats;
  EXPECT_EQ(jsonNumber(*stats, "passes").value_or(-1), 6) << *stats;
  // G-buffer <- lighting <- bright <- blur; the view after lighting and blur; the HUD after the view.
  EXPECT_GE(jsonNumber(*stats, "dependencies").value_or(-1), 6) << *stats;
  // The lighting (a compute pass that prefers async compute) on its own lane: the G-buffer's arrow into it
  // and its arrows out of it (to the bright pass and the view) are semaphore waits between queues.
  EXPECT_EQ(jsonNumber(*stats, "queues").value_or(-1), 2) << *stats;
  EXPECT_EQ(jsonNumber(*stats, "semaphores").value_or(-1), 3) << *stats;

  EXPECT_EQ(jsonNumber(*stats, "transients").value_or(-1), 0) << "no transient texture: " << *stats;

  // The same frames with transient targets: six (the G-buffer's four, bright, blur); the aliasing map puts
  // bright and blur (64 x 64 RGBA16F, 32 KiB each) on the memory of two G-buffer targets and marks the
  // one stored DONT_CARE.
  const Shot transient = screenshot(std::string(REEL_TRACES_DIR) + "/deferred_transient.reel",
                                    "--frame 1 --stats-tab passes --device null");
  ASSERT_EQ(transient.run.exitCode, 0) << transient.run.output;
  const auto map = jsonObject(transient.info, "stats");
  ASSERT_TRUE(map) << transient.info;
  EXPECT_EQ(jsonNumber(*map, "transients").value_or(-1), 6) << *map;
  EXPECT_EQ(jsonNumber(*map, "aliased_bytes_saved").value_or(-1), 2 * 64 * 64 * 8) << *map;
  // Stored DONT_CARE, as `reel replay` counts it: the G-buffer's depth, which nothing reads after its pass.
  EXPECT_EQ(jsonNumber(*map, "stores_discarded").value_or(-1), 1) << *map;

  const Shot other = screenshot(trace, "--frame 1");
  EXPECT_NE(jsonObject(other.info, "stats").value_or("").find("\"tab\": \"per type\""), std::string::npos)
      << other.info;
  const Shot bad = screenshot(trace, "--stats-tab nonsense");
  EXPECT_EQ(bad.run.exitCode, 2) << bad.run.output;
  EXPECT_NE(bad.run.output.find("--stats-tab: 'nonsense'"), std::string::npos) << bad.run.output;
}

// A frame whose draw binds a pipeline the trace never created: the Vulkan device reports it (as it
// reports validation messages under REEL_VALIDATE=1), and the screenshot fails with the message.
TEST_F(ViewerScreenshot, DeviceErrorsInTheReplayFailTheScreenshot) {
  const std::string path = (dir_ / "foreign_pipeline.reel").string();
  {
    NullDevice device(false);
    Renderer renderer(device);
    auto capture = capture::Capture::start(renderer, {.path = path, .handleSignals = false});
    ASSERT_TRUE(capture) << capture.error().message;
    ResourceContext& rc = renderer.resources();
    const TextureHandle color = rc.createTexture(
        {16, 16, 1, Format::RGBA8Unorm, texture_usage::kColorTarget | texture_usage::kTransferSrc});
    RenderTargetDesc desc{};
    desc.colorCount = 1;
    desc.colors[0] = color;
    const RenderTargetHandle target = rc.createRenderTarget(desc);
    auto& world = renderer.createBucket<DrawKey>("world");
    auto& begin = world.add<cmd::BeginRenderPass>(DrawKey::command(0, 0, Translucency::Opaque, 0));
    begin.target = target;
    auto& bind = world.add<cmd::BindPipeline>(DrawKey::draw(0, 1, Translucency::Opaque, {1, 0}, 10));
    bind.pipeline = PipelineHandle::make(77, 1);  // never created
    auto& draw = world.append<cmd::Draw>(&bind);
    draw.vertexCount = 3;
    world.add<cmd::EndRenderPass>(DrawKey::command(0, 2, Translucency::Subtractive, 0xffffffff));
    renderer.kick();
    ASSERT_TRUE((*capture)->finish());
  }
  const Shot shot = screenshot(path, "--frame 0 --sorted --select 2");
  EXPECT_EQ(shot.run.exitCode, 1) << shot.run.output;
  EXPECT_NE(shot.run.output.find("reel-viewer: device: "), std::string::npos) << shot.run.output;
  EXPECT_NE(shot.info.find("\"device_errors\": [\""), std::string::npos) << shot.info;
}

TEST_F(ViewerScreenshot, ABadFileShowsTheReadersErrorInTheWindow) {
  const std::string bad = (dir_ / "bad.reel").string();
  {
    std::ofstream out(bad, std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>((i * 131) & 0xff));
  }
  const auto readerError = trace::TraceReader::open(bad);
  ASSERT_FALSE(readerError);
  const Shot shot = screenshot(bad, "--frame 3 --select 2");
  // Drawn (the PNG shows the error window), then exit 2 with the reader's one line naming the file.
  ASSERT_EQ(shot.run.exitCode, 2) << "a bad file is shown, not a crash: " << shot.run.output;
  EXPECT_NE(shot.run.output.find("reel-viewer: " + readerError.error().message + "\n"), std::string::npos)
      << shot.run.output;
  EXPECT_EQ(shot.png.width, 1280u);
  EXPECT_EQ(shot.png.height, 800u);
  EXPECT_EQ(jsonString(shot.info, "open_error"), readerError.error().message);
  const auto panels = jsonObject(shot.info, "panels");
  ASSERT_TRUE(panels);
  const auto box = jsonObject(*panels, "Cannot open the trace");
  ASSERT_TRUE(box) << "the error window is drawn: " << *panels;
  const auto r = rectOf(*box);
  ASSERT_TRUE(r);
  // Text was drawn in the error window: its pixels are not all one colour.
  std::set<uint32_t> colours;
  for (long long y = r->y + 24; y < r->y + r->height - 4 && y < shot.png.height; ++y) {
    for (long long x = r->x + 4; x < r->x + r->width - 4 && x < shot.png.width; ++x) {
      const uint8_t* p = shot.png.pixel(static_cast<uint32_t>(x), static_cast<uint32_t>(y));
      colours.insert(uint32_t{p[0]} << 16 | uint32_t{p[1]} << 8 | p[2]);
    }
  }
  EXPECT_GT(colours.size(), 2u) << "the error window holds text";
  EXPECT_EQ(jsonObject(*panels, "Commands"), std::nullopt) << "no trace panels without a trace";

  const std::string missing = (dir_ / "missing.reel").string();
  const Shot none = screenshot(missing, "");
  ASSERT_EQ(none.run.exitCode, 2) << none.run.output;
  EXPECT_NE(jsonString(none.info, "open_error")->find("cannot open"), std::string::npos) << none.info;
  EXPECT_NE(none.run.output.find("reel-viewer: " + missing + ": cannot open"), std::string::npos)
      << none.run.output;
  // `reel view` hands the exit code and the line on.
  const Shot viaReel = screenshot(missing, "", std::string(REEL_CLI_PATH) + " view");
  EXPECT_EQ(viaReel.run.exitCode, 2) << viaReel.run.output;
  EXPECT_NE(viaReel.run.output.find(missing + ": cannot open"), std::string::npos) << viaReel.run.output;
}

}  // namespace
}  // namespace reel::viewer::testing
