// Tests of the golden tests: a renderer that goes wrong must fail them, and bisect must name the
// command that went wrong; a change that alters nothing must pass. "Going wrong" is injected with the
// replay's packet edit (what a broken translation would do to a packet) on the traces of traces/.

#include <gtest/gtest.h>

#include <cstring>

#include "reel/image/compare.h"
#include "reel/replay/bisect.h"
#include "reel/replay/session.h"

namespace reel {
namespace {

namespace fs = std::filesystem;
const fs::path kTraces = REEL_TRACES_DIR;

struct Opened {
  std::unique_ptr<trace::TraceReader> reader;
  std::unique_ptr<replay::ReplaySession> session;
};

Opened open(const std::string& trace, replay::PacketEdit edit = {}) {
  Opened o;
  auto reader = trace::TraceReader::open((kTraces / trace).string());
  EXPECT_TRUE(reader.ok()) << reader.error().message;
  o.reader = std::make_unique<trace::TraceReader>(std::move(reader.value()));
  auto session = replay::ReplaySession::create(*o.reader, {.validate = true, .edit = std::move(edit)});
  EXPECT_TRUE(session.ok()) << session.error().message;
  o.session = std::move(session.value());
  return o;
}

image::Image golden(const std::string& name, uint64_t frame) {
  auto image = image::readPng(kTraces / "golden" / "lavapipe" / name / ("frame_" + std::to_string(frame) + ".png"));
  EXPECT_TRUE(image.ok()) << image.error().message;
  return image.ok() ? std::move(image.value()) : image::Image{};
}

// The sorted position of the n-th packet of `type` in frame `index`.
uint64_t nthOfType(trace::TraceReader& reader, size_t index, const char* type, size_t n) {
  auto frame = reader.readFrame(index);
  EXPECT_TRUE(frame.ok());
  const replay::FrameOrder order = replay::orderFrame(*frame);
  size_t seen = 0;
  for (const auto& k : order.sorted) {
    uint64_t position = k.firstPacket;
    uint64_t found = UINT64_MAX;
    frame->buckets[k.bucket].forEachInChain(k.key, [&](const trace::PacketRecord& p) {
      if (found == UINT64_MAX && reader.header().commands[p.type].name == type && seen++ == n) found = position;
      ++position;
    });
    if (found != UINT64_MAX) return found;
  }
  ADD_FAILURE() << "frame " << index << " has fewer than " << n + 1 << " " << type;
  return 0;
}

TEST(GoldenSensitivity, AnUnchangedReplayMatchesItsGolden) {
  // An edit that rewrites every packet with its own bytes changes nothing, so it must pass.
  Opened o = open("cubes.reel", [](uint64_t, uint64_t, CommandType, std::span<std::byte> payload) {
    std::vector<std::byte> same(payload.begin(), payload.end());
    std::memcpy(payload.data(), same.data(), same.size());
  });
  auto frame = o.session->replayFrame(1, UINT64_MAX, replay::TargetChoice{});
  ASSERT_TRUE(frame.ok()) << frame.error().message;
  EXPECT_TRUE(image::compare(*frame->image, golden("cubes", frame->frame)).matches);
  EXPECT_EQ(o.session->takeDeviceErrors(), std::vector<std::string>{});
}

TEST(GoldenSensitivity, FlippedBlendFailsTheGolden) {
  // A broken pipeline translation: every alpha-blended pipeline blends additively.
  Opened o = open("transparency.reel", [](uint64_t, uint64_t, CommandType type, std::span<std::byte> payload) {
    if (type != CommandType::CreatePipeline) return;
    cmd::CreatePipeline p;
    std::memcpy(&p, payload.data(), sizeof p);
    if (p.desc.blend == BlendMode::Alpha) p.desc.blend = BlendMode::Additive;
    std::memcpy(payload.data(), &p, sizeof p);
  });
  auto frame = o.session->replayFrame(1, UINT64_MAX, replay::TargetChoice{});
  ASSERT_TRUE(frame.ok()) << frame.error().message;
  const image::Comparison c = image::compare(*frame->image, golden("transparency", frame->frame));
  EXPECT_FALSE(c.matches) << c.summary();
  EXPECT_GT(c.differingPixels, 100u) << c.summary();
}

TEST(GoldenSensitivity, BrokenSortKeyFailsTheGolden) {
  // A broken key encoding: transparent draws lose their back-to-front depth (the depth field is stored
  // the other way round), so they blend in the wrong order.
  auto reader = trace::TraceReader::open((kTraces / "transparency.reel").string());
  ASSERT_TRUE(reader.ok());
  auto session = replay::ReplaySession::create(
      *reader, {.validate = true, .keyEdit = [](uint64_t, std::string_view, uint64_t key) {
                  const DrawKey k{key};
                  if (k.mode() != KeyMode::Transparent) return key;
                  return key ^ keyFieldMask(DrawKey::kDepthBits, DrawKey::kTransparentDepthShift);
                }});
  ASSERT_TRUE(session.ok()) << session.error().message;
  auto frame = (*session)->replayFrame(1, UINT64_MAX, replay::TargetChoice{});
  ASSERT_TRUE(frame.ok()) << frame.error().message;
  const image::Comparison c = image::compare(*frame->image, golden("transparency", frame->frame));
  EXPECT_FALSE(c.matches) << c.summary();
  (*session)->renderer().flushAndWait();
  EXPECT_FALSE((*session)->feeder().sortMismatches().empty()) << "the replay reports that the sort changed";
}

TEST(GoldenSensitivity, BisectNamesThePerturbedDraw) {
  // Against a clean replay of the same trace, the first differing command is exactly the one changed.
  Opened reference = open("cubes.reel");
  // The first opaque draw in sorted order is the nearest object (front to back): surely visible.
  uint64_t target = nthOfType(*reference.reader, 1, "DrawIndexed", 0);
  Opened perturbed = open("cubes.reel", [target](uint64_t frame, uint64_t position, CommandType type,
                                                 std::span<std::byte> payload) {
    if (frame != 2 || position != target || type != CommandType::DrawIndexed) return;
    cmd::DrawIndexed d;
    std::memcpy(&d, payload.data(), sizeof d);
    d.indexCount = 0;  // the object is gone
    std::memcpy(payload.data(), &d, sizeof d);
  });
  auto full = perturbed.session->replayFrame(1, UINT64_MAX, replay::TargetChoice{});
  ASSERT_TRUE(full.ok()) << full.error().message;
  const replay::TargetChoice fixed = replay::fixedTarget(*full, replay::TargetChoice{});
  auto found = replay::bisectAgainstReplay(*perturbed.session, *reference.session, 1, fixed, {});
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_TRUE(found->command.has_value()) << "the perturbed frame must differ: " << found->end.summary();
  EXPECT_EQ(*found->command, target);
  EXPECT_LE(found->probes, 20u);
}

}  // namespace
}  // namespace reel
