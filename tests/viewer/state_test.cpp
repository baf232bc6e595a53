// What the panels share (app/viewer_state.h), without a window: opening (and failing to open) traces,
// choosing frames, the selection as the arrow keys move it in either order and through a filter, and
// the replay request the image panel's stepping makes.

#include <gtest/gtest.h>

#include <fstream>

#include "app/viewer_state.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "test_util.h"
#include "viewer_scene.h"

namespace reel::viewer::testing {
namespace {

class ViewerStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testFolder();
    path_ = (dir_ / "scene.reel").string();
    NullDevice device;
    ASSERT_TRUE(captureScene(path_, device, 3));
    options_.device = "null";
  }
  std::filesystem::path dir_;
  std::string path_;
  ViewerOptions options_;
};

TEST_F(ViewerStateTest, ABadTraceKeepsTheReadersMessageAndAGoodOneReplacesIt) {
  ViewerState state(options_);
  const std::string bad = (dir_ / "bad.reel").string();
  std::ofstream(bad) << "not a trace";
  EXPECT_FALSE(state.openTrace(bad));
  EXPECT_EQ(state.openError, trace::TraceReader::open(bad).error().message);
  EXPECT_EQ(state.doc, nullptr);
  EXPECT_EQ(state.frame(), nullptr);

  EXPECT_TRUE(state.openTrace(path_));
  EXPECT_EQ(state.openError, "");
  ASSERT_NE(state.frame(), nullptr);
  EXPECT_EQ(state.frameNumber(), 0u) << "the first frame is shown";
  EXPECT_EQ(state.passTargets.targets().size(), 1u);
  EXPECT_EQ(state.scanner, nullptr) << "background work waits for the first frame on screen";
  state.startBackgroundWork();
  ASSERT_NE(state.scanner, nullptr);
  ASSERT_NE(state.replay, nullptr);
  state.scanner->wait();
  state.refreshSummaries();
  EXPECT_EQ(state.summariesScanned, 3u);
  EXPECT_TRUE(state.summaries[2].scanned);

  EXPECT_FALSE(state.openTrace((dir_ / "missing.reel").string()))
      << "a failed open closes the previous trace";
  EXPECT_EQ(state.doc, nullptr);
  EXPECT_NE(state.openError.find("missing.reel"), std::string::npos);
}

TEST_F(ViewerStateTest, ArrowKeysWalkTheOrderShownThroughTheFilter) {
  ViewerState state(options_);
  ASSERT_TRUE(state.openTrace(path_));
  ASSERT_TRUE(state.selectFrame(1));
  const FrameTable& table = state.frame()->table;

  state.setSorted(true);
  state.stepSelection(1);  // nothing selected: the first row
  ASSERT_TRUE(state.selected);
  EXPECT_EQ(*state.selected, table.sortedOrder()[0]);
  state.stepSelection(1);
  EXPECT_EQ(*state.selected, table.sortedOrder()[1]);
  EXPECT_TRUE(state.scrollToSelection);
  state.stepSelection(INT32_MAX);
  EXPECT_EQ(*state.selected, table.sortedOrder().back()) << "clamped at the end";

  // The same row stays selected when the order changes; steps then follow submission order.
  const uint32_t row = table.sortedOrder()[5];
  state.selectRow(row, false);
  state.setSorted(false);
  EXPECT_EQ(*state.selected, row);
  EXPECT_EQ(state.selectedVisiblePosition(), row);
  state.stepSelection(1);
  EXPECT_EQ(*state.selected, row + 1);

  // Filtered: steps go from draw to draw.
  RowFilter draws;
  draws.types.assign(state.doc->header().commands.size(), 0);
  for (const auto& c : state.doc->header().commands) {
    if (c.name == "Draw") draws.types[c.id] = 1;
  }
  state.setFilter(draws);
  state.setSorted(true);
  const auto& rows = state.visibleRows();
  ASSERT_EQ(rows.size(), SceneOptions{}.draws);
  state.selectRow(rows[2], false);
  EXPECT_EQ(state.selectedVisiblePosition(), 2u);
  state.stepSelection(1);
  EXPECT_EQ(*state.selected, rows[3]);
  state.stepSelection(-10);
  EXPECT_EQ(*state.selected, rows[0]);
  state.selectRow(table.sortedOrder()[0], false);  // not a draw: not in the filtered rows
  EXPECT_FALSE(state.selectedVisiblePosition());

  // Another frame clears the selection.
  ASSERT_TRUE(state.selectFrame(2));
  EXPECT_FALSE(state.selected);
  EXPECT_EQ(state.frameNumber(), 2u);
  EXPECT_FALSE(state.selectFrame(7)) << "no such frame";
}

TEST_F(ViewerStateTest, ReplayRequestsAreAnsweredAndTheSameRequestIsNotPostedTwice) {
  ViewerState state(options_);
  ASSERT_TRUE(state.openTrace(path_));
  state.startBackgroundWork();
  ReplayRequest request;
  request.frameIndex = 1;
  request.stopAfterPackets = 3;
  request.images.push_back({ImageSource::Kind::TargetColor, state.passTargets.targets()[0], 0});
  state.requestReplay(request);
  state.requestReplay(request);  // unchanged: not posted again
  state.replay->waitIdle();
  state.pollReplay();
  ASSERT_TRUE(state.lastReplay);
  EXPECT_EQ(state.replayGeneration, 1u);
  EXPECT_TRUE(state.replaySettled());
  bool current = false;
  const ImageReadback* r = state.readbackFor(request.images[0], &current);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(current);
  EXPECT_EQ(r->error, "");
  EXPECT_EQ(r->desc.width, SceneOptions{}.width);

  request.stopAfterPackets = 4;
  state.requestReplay(request);
  // Until the answer is polled, the previous image stays, marked as not current.
  EXPECT_FALSE(state.replaySettled()) << "a new step is pending";
  r = state.readbackFor(request.images[0], &current);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(current);
  state.replay->waitIdle();
  state.pollReplay();
  EXPECT_TRUE(state.replaySettled());
  EXPECT_EQ(state.lastReplay->request.stopAfterPackets, 4u);
  EXPECT_EQ(state.lastReplay->outcome.value().path, ReplayPath::Continued);
}

}  // namespace
}  // namespace reel::viewer::testing
