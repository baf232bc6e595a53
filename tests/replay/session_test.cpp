// ReplaySession on the default device (lavapipe in CI, validation on): going back restarts the replay
// on the same renderer, and the frames it replays again come out bit for bit as the first time.

#include "reel/replay/session.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "reel/image/compare.h"

namespace reel {
namespace {

namespace fs = std::filesystem;
const fs::path kTraces = REEL_TRACES_DIR;

class SessionRestart : public ::testing::TestWithParam<const char*> {};

TEST_P(SessionRestart, FramesReplayedAgainAreTheSameBits) {
  auto reader = trace::TraceReader::open((kTraces / GetParam()).string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto session = replay::ReplaySession::create(*reader, {.validate = true});
  ASSERT_TRUE(session.ok()) << session.error().message;
  replay::ReplaySession& s = **session;
  const size_t last = reader->frameCount() - 1;
  std::vector<image::Image> passes;
  for (int pass = 0; pass < 3; ++pass) {
    // Pass 1 and 2 go back to the first frame: a restart, resources created again from the trace.
    auto first = s.replayFrame(0, UINT64_MAX, replay::TargetChoice{});
    ASSERT_TRUE(first.ok()) << first.error().message;
    auto result = s.replayFrame(last, UINT64_MAX, replay::TargetChoice{});
    ASSERT_TRUE(result.ok()) << result.error().message;
    ASSERT_TRUE(result->image.has_value());
    passes.push_back(std::move(*result->image));
  }
  for (int pass = 1; pass < 3; ++pass) {
    const image::Comparison diff = image::compare(passes[pass], passes[0]);
    EXPECT_TRUE(diff.sameSize);
    EXPECT_EQ(diff.differingPixels, 0u) << "pass " << pass << " differs from the first";
  }
  EXPECT_EQ(s.takeDeviceErrors(), std::vector<std::string>{});
  EXPECT_TRUE(s.feeder().sortMismatches().empty()) << "the sort order changed on a later pass";
}

// compute: a dispatch writes a buffer that a later draw reads (GPU-written state must start over);
// post: an offscreen target sampled by a later pass; default_from_start: its first frame creates every
// resource (a restart must have destroyed them first).
INSTANTIATE_TEST_SUITE_P(Traces, SessionRestart,
                         ::testing::Values("compute.reel", "post.reel", "default_from_start.reel"),
                         [](const auto& param) {
                           const std::string file = param.param;
                           return file.substr(0, file.find('.'));
                         });

}  // namespace
}  // namespace reel
