// The windowed path's scaling: a present keeps the source's aspect ratio (letterbox), centred.

#include "swapchain.h"

#include <gtest/gtest.h>

namespace reel::vk {
namespace {

TEST(Letterbox, WiderTargetGetsBarsLeftAndRight) {
  const BlitRect r = letterbox({128, 128}, {960, 540});
  EXPECT_EQ(r.y0, 0);
  EXPECT_EQ(r.y1, 540);
  EXPECT_EQ(r.x1 - r.x0, 540);
  EXPECT_EQ(r.x0, (960 - 540) / 2);
}

TEST(Letterbox, TallerTargetGetsBarsAboveAndBelow) {
  const BlitRect r = letterbox({1280, 720}, {800, 800});
  EXPECT_EQ(r.x0, 0);
  EXPECT_EQ(r.x1, 800);
  EXPECT_EQ(r.y1 - r.y0, 450);
  EXPECT_EQ(r.y0, 175);
}

TEST(Letterbox, SameAspectFillsTheTarget) {
  const BlitRect r = letterbox({640, 360}, {1920, 1080});
  EXPECT_EQ(r.x0, 0);
  EXPECT_EQ(r.y0, 0);
  EXPECT_EQ(r.x1, 1920);
  EXPECT_EQ(r.y1, 1080);
}

TEST(Letterbox, ExtremeShapesStayInsideAndAtLeastOnePixel) {
  const BlitRect thin = letterbox({4096, 1}, {100, 100});
  EXPECT_GE(thin.y1 - thin.y0, 1);
  EXPECT_EQ(thin.x1 - thin.x0, 100);
  const BlitRect tall = letterbox({1, 4096}, {300, 7});
  EXPECT_GE(tall.x1 - tall.x0, 1);
  EXPECT_GE(tall.x0, 0);
  EXPECT_LE(tall.x1, 300);
  EXPECT_EQ(tall.y1 - tall.y0, 7);
  const BlitRect empty = letterbox({0, 10}, {100, 100});
  EXPECT_EQ(empty.x1 - empty.x0, 0);
}

}  // namespace
}  // namespace reel::vk
