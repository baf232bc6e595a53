// The command map (reel/trace/command_map.h): which commands of a trace this build replays, and as
// which type. Ids may differ from this build's (another order in commands.inc); names, sizes and
// layouts may not, and each mismatch has its own message.

#include "reel/trace/command_map.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "reel/capture/capture.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "rewrite.h"
#include "scene.h"
#include "witness.h"

namespace reel::testing {
namespace {

using trace::CommandDesc;
using trace::CommandMap;
using trace::TraceHeader;

// A header whose table lists this build's commands, command `order[i]` under id i.
TraceHeader headerOf(const std::vector<CommandType>& order) {
  TraceHeader h;
  for (size_t id = 0; id < order.size(); ++id) {
    const CommandInfo& c = commandInfo(order[id]);
    h.commands.push_back(
        CommandDesc{static_cast<uint16_t>(id), c.name, c.queue, c.size, c.layoutHash, c.fields});
  }
  return h;
}

std::vector<CommandType> thisBuildsOrder() {
  std::vector<CommandType> order;
  for (const CommandInfo& c : commandTable()) order.push_back(c.type);
  return order;
}

TEST(CommandMap, ATraceOfThisBuildMapsEveryCommandToItself) {
  const CommandMap map = CommandMap::fromHeader(headerOf(thisBuildsOrder()));
  ASSERT_EQ(map.size(), size_t{kCommandTypeCount});
  for (uint16_t id = 0; id < map.size(); ++id) {
    EXPECT_EQ(map[id], static_cast<CommandType>(id));
    EXPECT_EQ(map.mismatch(id), CommandMap::Mismatch::None);
    auto type = map.map(id);
    ASSERT_TRUE(type) << type.error().message;
    EXPECT_EQ(type.value(), static_cast<CommandType>(id));
  }
}

TEST(CommandMap, RenumberedCommandsMapByName) {
  std::vector<CommandType> order = thisBuildsOrder();
  std::reverse(order.begin(), order.end());
  const CommandMap map = CommandMap::fromHeader(headerOf(order));
  for (uint16_t id = 0; id < map.size(); ++id) {
    EXPECT_EQ(map[id], order[id]) << commandName(order[id]);
    EXPECT_TRUE(map.map(id)) << commandName(order[id]);
  }
}

TEST(CommandMap, ACommandWithAnotherNameSizeOrLayoutDoesNotReplayAndSaysWhy) {
  TraceHeader h = headerOf(thisBuildsOrder());
  const uint16_t draw = static_cast<uint16_t>(CommandType::Draw);
  const uint16_t bind = static_cast<uint16_t>(CommandType::BindPipeline);
  const uint16_t copy = static_cast<uint16_t>(CommandType::CopyBuffer);
  h.commands[draw].layoutHash ^= 1;
  h.commands[bind].size += 4;
  h.commands[copy].name = "CopyBufferRegions";
  const CommandMap map = CommandMap::fromHeader(h);

  EXPECT_EQ(map[draw], CommandType::Count);
  EXPECT_EQ(map.mismatch(draw), CommandMap::Mismatch::LayoutDiffers);
  EXPECT_EQ(map.map(draw).error().message,
            "command Draw was captured with a layout this build of reel does not have");

  EXPECT_EQ(map[bind], CommandType::Count);
  EXPECT_EQ(map.mismatch(bind), CommandMap::Mismatch::SizeDiffers);
  EXPECT_EQ(map.map(bind).error().message,
            "command BindPipeline was captured " +
                std::to_string(commandInfo(CommandType::BindPipeline).size + 4) +
                " bytes long; this build of reel has it " +
                std::to_string(commandInfo(CommandType::BindPipeline).size) + " bytes long");

  EXPECT_EQ(map[copy], CommandType::Count);
  EXPECT_EQ(map.mismatch(copy), CommandMap::Mismatch::UnknownName);
  EXPECT_EQ(map.map(copy).error().message,
            "command CopyBufferRegions is not a command of this build of reel");

  // The others still replay.
  EXPECT_EQ(map[static_cast<uint16_t>(CommandType::DrawIndexed)], CommandType::DrawIndexed);
}

TEST(CommandMap, AnIdOutsideTheTableDoesNotReplay) {
  const CommandMap map = CommandMap::fromHeader(headerOf({CommandType::Draw}));
  EXPECT_EQ(map[0], CommandType::Draw);
  EXPECT_EQ(map[1], CommandType::Count);
  EXPECT_EQ(map[65535], CommandType::Count);
  EXPECT_EQ(map.map(7).error().message, "command id 7 is not in the header's command table");
}

// Through the writer and the reader: the test scene (every command, key type and resource kind)
// captured, then rewritten with its ids moved one place on. The rewritten trace reads cleanly, every packet
// carries another id but the same name and bytes, and the map sends it to the command of its name.
TEST(CommandMap, ARenumberedTraceMapsEveryPacketToTheCommandOfItsName) {
  TempDir dir;
  const std::string original = dir.path("scene.reel"), renumbered = dir.path("renumbered.reel");
  {
    NullDevice device(false);
    Renderer renderer(device);
    Scene scene(renderer);
    auto capture = capture::Capture::start(renderer, {.path = original, .handleSignals = false});
    ASSERT_TRUE(capture) << capture.error().message;
    for (int f = 0; f < 3; ++f) scene.frame();
    ASSERT_TRUE(capture.value()->finish());
  }
  ASSERT_TRUE(rewriteTrace(original, renumbered, {.renumber = rotatedIds}));
  auto a = trace::TraceReader::open(original);
  auto b = trace::TraceReader::open(renumbered);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(b->warnings(), std::vector<std::string>{});
  const CommandMap mapA = CommandMap::fromHeader(a->header());
  const CommandMap mapB = CommandMap::fromHeader(b->header());
  const size_t count = a->header().commands.size();
  ASSERT_EQ(b->header().commands.size(), count);
  for (uint16_t id = 1; id < count; ++id) {
    const uint16_t moved = rotatedIds(id, static_cast<uint16_t>(count));
    EXPECT_EQ(b->header().commands[moved].name, a->header().commands[id].name);
    EXPECT_EQ(mapB[moved], mapA[id]) << a->header().commands[id].name;
  }
  // The trace really moved: a Draw is no longer under Draw's id.
  EXPECT_NE(b->header().commands[static_cast<uint16_t>(CommandType::Draw)].name, "Draw");

  auto expectSamePacket = [&](uint16_t typeA, std::span<const std::byte> payloadA, uint16_t typeB,
                              std::span<const std::byte> payloadB) {
    EXPECT_NE(typeA, typeB);
    EXPECT_EQ(a->header().command(typeA)->name, b->header().command(typeB)->name);
    EXPECT_EQ(mapA[typeA], mapB[typeB]);
    EXPECT_TRUE(std::ranges::equal(payloadA, payloadB));
  };
  ASSERT_EQ(b->frameCount(), a->frameCount());
  size_t packets = 0;
  for (size_t i = 0; i < a->frameCount(); ++i) {
    auto fa = a->readFrame(i);
    auto fb = b->readFrame(i);
    ASSERT_TRUE(fa && fb);
    ASSERT_EQ(fa->requests.size(), fb->requests.size());
    for (size_t r = 0; r < fa->requests.size(); ++r) {
      if (fa->requests[r].type == 0) continue;  // id 0 keeps its place (rewrite.h)
      expectSamePacket(fa->requests[r].type, fa->requests[r].payload, fb->requests[r].type,
                       fb->requests[r].payload);
    }
    ASSERT_EQ(fa->buckets.size(), fb->buckets.size());
    for (size_t k = 0; k < fa->buckets.size(); ++k) {
      const trace::BucketRecord& ba = fa->buckets[k];
      const trace::BucketRecord& bb = fb->buckets[k];
      ASSERT_EQ(ba.linkCount(), bb.linkCount());
      for (size_t key = 0; key < ba.keyCount(); ++key) {
        for (size_t l = 0; l < ba.chainLength(key); ++l) {
          const trace::PacketRecord pa = ba.packet(key, l), pb = bb.packet(key, l);
          expectSamePacket(pa.type, pa.payload, pb.type, pb.payload);
          ++packets;
        }
      }
    }
  }
  EXPECT_GT(packets, 100u);
}

}  // namespace
}  // namespace reel::testing
