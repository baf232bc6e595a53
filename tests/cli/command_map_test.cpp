// One command map for every tool (reel/trace/command_map.h): `reel verify` says that a trace replays
// exactly when `reel replay` replays it. A trace whose commands were renumbered (as a build with another
// order in commands.inc writes it) verifies without a note and replays to the images of the original; a
// trace with one command's layout changed gets, from both, the same message naming that command.
// (tests/viewer/command_map_test.cpp holds the viewer's side.)

#include <gtest/gtest.h>

#include "cli_test_util.h"
#include "rewrite.h"

namespace reel::test {
namespace {

const std::string kCubes = std::string(REEL_TRACES_DIR) + "/cubes.reel";
// cubes draws its 300 cubes with DrawIndexed.
const std::string kChangedLayoutMessage =
    "command DrawIndexed was captured with a layout this build of reel does not have";

TEST(CliCommandMap, ARenumberedTraceVerifiesWithoutANoteAndReplaysToTheSameImages) {
  const auto dir = testFolder();
  const std::string renumbered = (dir / "renumbered.reel").string();
  auto ok = testing::rewriteTrace(kCubes, renumbered, {.renumber = testing::rotatedIds});
  ASSERT_TRUE(ok) << ok.error().message;

  RunResult r = runReel("verify " + renumbered);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": ok: 2 frames, 2440 packets"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("note:"), std::string::npos) << r.out;

  r = runReel("replay " + kCubes + " --out " + (dir / "original").string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  r = runReel("replay " + renumbered + " --out " + (dir / "renumbered").string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  r = runReel("compare " + (dir / "renumbered").string() + " " + (dir / "original").string() +
              " --threshold 0");
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("match: 0 of 2 images differ"), std::string::npos) << r.out;
}

TEST(CliCommandMap, AChangedLayoutGetsTheSameMessageFromVerifyAndReplay) {
  const auto dir = testFolder();
  for (const bool renumber : {false, true}) {
    SCOPED_TRACE(renumber ? "renumbered too" : "ids as they were");
    const std::string changed = (dir / (renumber ? "changed_renumbered.reel" : "changed.reel")).string();
    testing::TraceEdit edit{.changeLayoutOf = "DrawIndexed"};
    if (renumber) edit.renumber = testing::rotatedIds;
    auto ok = testing::rewriteTrace(kCubes, changed, edit);
    ASSERT_TRUE(ok) << ok.error().message;

    // verify reads every frame (exit 0: the file is sound) and notes the one command it would not replay.
    RunResult r = runReel("verify " + changed);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("note: " + changed + ": " + kChangedLayoutMessage + "\n"), std::string::npos)
        << r.out;
    size_t notes = 0;
    for (size_t at = r.out.find("note:"); at != std::string::npos; at = r.out.find("note:", at + 1)) ++notes;
    EXPECT_EQ(notes, 1u) << r.out;

    r = runReel("replay " + changed + " --out " + (dir / "out").string());
    EXPECT_NE(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.err.find(kChangedLayoutMessage), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace reel::test
