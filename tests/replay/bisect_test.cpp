// Bisect (replay/include/reel/replay/bisect.h) on a trace of traces/ with one draw removed on purpose:
// resuming probes from the checkpoint names the same command as replaying each from the capture start,
// with one partial frame per probe instead of every frame up to it; against a golden image its answer is
// exactly the last command that brought the differing pixels to their final values, against a reference
// replay (another trace file too) the removed draw itself.

#include "reel/replay/bisect.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <filesystem>

#include "temp_path.h"

namespace reel {
namespace {

namespace fs = std::filesystem;
const fs::path kTraces = REEL_TRACES_DIR;
constexpr size_t kFrame = 1;  // cubes.reel's second frame, number 2

std::unique_ptr<replay::ReplaySession> openSession(const fs::path& path, replay::PacketEdit edit = {}) {
  auto session = replay::ReplaySession::open(path.string(), {.validate = true, .edit = std::move(edit)});
  EXPECT_TRUE(session.ok()) << session.error().message;
  return session.ok() ? std::move(session.value()) : nullptr;
}

// The sorted position of the first DrawIndexed of frame kFrame: the nearest cube (front to back).
uint64_t firstDraw(replay::ReplaySession& s) {
  auto frame = s.reader().readFrame(kFrame);
  EXPECT_TRUE(frame.ok());
  uint64_t position = 0;
  for (const replay::PacketRef& ref : replay::packetsInOrder(*frame, replay::orderFrame(*frame).sorted)) {
    if (s.feeder().commandType(frame->buckets[ref.bucket].packet(ref.key, ref.link).type) ==
        CommandType::DrawIndexed)
      return position;
    ++position;
  }
  ADD_FAILURE() << "no DrawIndexed";
  return 0;
}

replay::PacketEdit removeDraw(uint64_t target) {
  return [target](uint64_t frame, uint64_t position, CommandType type, std::span<std::byte> payload) {
    if (frame != 2 || position != target || type != CommandType::DrawIndexed) return;
    cmd::DrawIndexed d;
    std::memcpy(&d, payload.data(), sizeof d);
    d.indexCount = 0;
    std::memcpy(payload.data(), &d, sizeof d);
  };
}

struct Fixture {
  uint64_t target = 0;         // the removed draw
  replay::TargetChoice fixed;  // the frame's last pass's target
  image::Image golden;         // the frame's end without the change
};

Fixture prepare() {
  Fixture f;
  auto clean = openSession(kTraces / "cubes.reel");
  if (!clean) return f;
  f.target = firstDraw(*clean);
  auto end = clean->replayFrame(kFrame, UINT64_MAX, replay::TargetChoice{});
  EXPECT_TRUE(end.ok()) << end.error().message;
  if (!end.ok()) return f;
  f.fixed = replay::fixedTarget(*end, replay::TargetChoice{});
  f.golden = std::move(*end->image);
  return f;
}

image::Image after(replay::ReplaySession& s, uint64_t stop, const replay::TargetChoice& target) {
  EXPECT_TRUE(s.seek(kFrame, stop).ok());
  auto read = s.readTarget(target);
  EXPECT_TRUE(read.ok()) << read.error().message;
  return read.ok() ? std::move(read->image) : image::Image{};
}

TEST(Bisect, CheckpointsNameWhatReplaysFromTheCaptureStartNameWithOneFramePerProbe) {
  const Fixture f = prepare();
  auto resumed = openSession(kTraces / "cubes.reel", removeDraw(f.target));
  auto fromStart = openSession(kTraces / "cubes.reel", removeDraw(f.target));
  ASSERT_TRUE(resumed && fromStart);
  auto a = replay::bisectAgainstGolden(*resumed, kFrame, f.fixed, f.golden, {});
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto b = replay::bisectAgainstGolden(*fromStart, kFrame, f.fixed, f.golden, {}, {.fromCaptureStart = true});
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_TRUE(a->command.has_value()) << a->end.summary();
  EXPECT_EQ(a->command, b->command);
  EXPECT_EQ(a->probes, b->probes);
  EXPECT_LE(a->probes, static_cast<uint64_t>(std::bit_width(a->packets)));
  // Resumed: the frame before it once, then at most one partial frame per probe (none when continued).
  EXPECT_LE(a->framesReplayed, 2 + a->probes);
  // From the capture start: both frames for the end and for every probe.
  EXPECT_EQ(b->framesReplayed, 2 * (b->probes + 1));
  EXPECT_EQ(resumed->takeDeviceErrors(), std::vector<std::string>{});
}

TEST(Bisect, AgainstAGoldenItNamesTheLastWriterOfTheDifferingPixels) {
  const Fixture f = prepare();
  auto session = openSession(kTraces / "cubes.reel", removeDraw(f.target));
  ASSERT_TRUE(session);
  auto found = replay::bisectAgainstGolden(*session, kFrame, f.fixed, f.golden, {});
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_TRUE(found->command.has_value());
  EXPECT_EQ(found->answer, replay::BisectAnswer::LastWriterOfDifferingPixels);
  const uint64_t c = *found->command;
  // The differing pixels all hold their final values after command c, and not all of them before it.
  const image::Image end = after(*session, UINT64_MAX, f.fixed);
  auto finalAt = [&](const image::Image& now) {
    size_t stillToWrite = 0;
    for (size_t i = 0; i < size_t{end.width} * end.height; ++i) {
      const bool differs = std::memcmp(&end.rgba[i * 4], &f.golden.rgba[i * 4], 4) != 0;
      stillToWrite += differs && std::memcmp(&now.rgba[i * 4], &end.rgba[i * 4], 4) != 0;
    }
    return stillToWrite;
  };
  EXPECT_EQ(finalAt(after(*session, c + 1, f.fixed)), 0u) << "after command " << c;
  EXPECT_GT(finalAt(after(*session, c, f.fixed)), 0u) << "before command " << c;
}

TEST(Bisect, AgainstAReferenceTraceItNamesTheFirstDifferingCommand) {
  const Fixture f = prepare();
  // The reference is another file: the same capture under another name, its frame found by number.
  const fs::path copy = testing::tempPath("reference.reel");
  fs::copy_file(kTraces / "cubes.reel", copy, fs::copy_options::overwrite_existing);
  auto session = openSession(kTraces / "cubes.reel", removeDraw(f.target));
  auto reference = openSession(copy);
  ASSERT_TRUE(session && reference);
  auto found = replay::bisectAgainstReplay(*session, *reference, kFrame, f.fixed, {});
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->answer, replay::BisectAnswer::FirstDifferingCommand);
  EXPECT_EQ(found->command, f.target);

  auto elsewhere = openSession(kTraces / "stress_small.reel");  // frame 1 only
  ASSERT_TRUE(elsewhere);
  auto missing = replay::bisectAgainstReplay(*session, *elsewhere, kFrame, f.fixed, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("has no frame 2"), std::string::npos) << missing.error().message;
}

}  // namespace
}  // namespace reel
