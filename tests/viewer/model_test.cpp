// The viewer's model, without a window: what the panels show must be what the trace and the render
// thread say.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "model/filter.h"
#include "model/frame_scan.h"
#include "model/frame_stats.h"
#include "model/frame_table.h"
#include "model/key_fields.h"
#include "model/packet_fields.h"
#include "model/render_targets.h"
#include "model/texels.h"
#include "model/trace_document.h"
#include "reel/capture/capture.h"
#include "reel/image/texels.h"
#include "reel/replay/session.h"
#include "reel/runtime/null_device.h"
#include "reel/trace/reader.h"
#include "test_util.h"
#include "viewer_scene.h"

namespace reel::viewer::testing {
namespace {

constexpr uint32_t kFrames = 4;

// One capture of the scene (null device) for every test of the suite.
class ViewerModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("reel_viewer_model_" + std::to_string(::getpid())));
    std::filesystem::create_directories(*dir_);
    NullDevice device;
    const auto ok = captureScene(tracePath(), device, kFrames);
    ASSERT_TRUE(ok) << ok.error().message;
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string tracePath() { return (*dir_ / "scene.reel").string(); }

  static trace::TraceReader open() {
    auto reader = trace::TraceReader::open(tracePath());
    EXPECT_TRUE(reader) << reader.error().message;
    return std::move(reader.value());
  }
  static uint16_t typeId(const trace::TraceHeader& header, std::string_view name) {
    for (const auto& c : header.commands) {
      if (c.name == name) return c.id;
    }
    ADD_FAILURE() << "no command " << name;
    return 0;
  }

  static std::filesystem::path* dir_;
};
std::filesystem::path* ViewerModel::dir_ = nullptr;

TEST_F(ViewerModel, SortedOrderHashEqualsTheRenderThreadsInEveryFrame) {
  trace::TraceReader reader = open();
  ASSERT_EQ(reader.frameCount(), kFrames);
  bool sortingMovedSomething = false;
  for (size_t i = 0; i < reader.frameCount(); ++i) {
    auto frame = reader.readFrame(i);
    ASSERT_TRUE(frame) << frame.error().message;
    const FrameTable table = FrameTable::build(frame.value());
    EXPECT_EQ(table.sortedOrderHash(), frame->sortedOrderHash) << "frame " << i;
    EXPECT_EQ(table.size(), frame->packetCount());
    // The two orders are permutations of each other.
    std::vector<uint32_t> sorted(table.sortedOrder().begin(), table.sortedOrder().end());
    for (uint32_t p = 0; p < sorted.size(); ++p) {
      EXPECT_EQ(table.sortedPosition(sorted[p]), p);
      sortingMovedSomething |= sorted[p] != p;
    }
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t p = 0; p < sorted.size(); ++p) ASSERT_EQ(sorted[p], p);
  }
  EXPECT_TRUE(sortingMovedSomething) << "the scene is meant to be recorded out of key order";
}

TEST_F(ViewerModel, SortedOrderIsThePacketOrderTheDeviceExecutes) {
  trace::TraceReader reader = open();
  NullDevice device(true);
  {
    auto session = replay::ReplaySession::create(reader, device, {});
    ASSERT_TRUE(session) << session.error().message;
    for (size_t i = 0; i < reader.frameCount(); ++i) ASSERT_TRUE(session.value()->replayFrame(i));
    session.value()->renderer().flushAndWait();
  }
  // The device's calls, frame by frame, without the resource requests.
  std::vector<std::vector<const NullDevice::Call*>> executed(reader.frameCount());
  int64_t current = -1;
  for (const NullDevice::Call& call : device.calls()) {
    if (call.kind == NullDevice::Call::Kind::BeginFrame) current = static_cast<int64_t>(call.frame);
    if (call.kind != NullDevice::Call::Kind::Command || commandInfo(call.type).queue != CommandQueue::Sorted)
      continue;
    ASSERT_GE(current, 0);
    executed[static_cast<size_t>(current)].push_back(&call);
  }
  for (size_t i = 0; i < reader.frameCount(); ++i) {
    auto frame = reader.readFrame(i);
    ASSERT_TRUE(frame);
    const FrameTable table = FrameTable::build(frame.value());
    ASSERT_EQ(executed[i].size(), table.size()) << "frame " << i;
    for (uint32_t p = 0; p < table.size(); ++p) {
      const trace::PacketRecord packet = packetOf(frame.value(), table.row(table.sortedOrder()[p]));
      const NullDevice::Call& call = *executed[i][p];
      ASSERT_EQ(commandName(call.type), reader.header().command(packet.type)->name)
          << "frame " << i << " position " << p;
      ASSERT_EQ(call.payload.size(), packet.payload.size());
      EXPECT_EQ(std::memcmp(call.payload.data(), packet.payload.data(), packet.payload.size()), 0);
      ASSERT_EQ(call.aux.size(), packet.aux.size());
      if (!packet.aux.empty()) {
        EXPECT_EQ(std::memcmp(call.aux.data(), packet.aux.data(), packet.aux.size()), 0);
      }
    }
  }
}

TEST(ViewerKeyFields, DecodeDrawKeysAsTheRuntimeDoes) {
  const auto layout = KeyTraits<DrawKey>::layout();
  const DrawKey keys[] = {DrawKey::draw(2, 5, Translucency::Opaque, {77, 3}, 12345),
                          DrawKey::draw(1, 9, Translucency::Additive, {1000, 2}, 999),
                          DrawKey::command(7, 15, Translucency::Normal, 0xdeadbeef)};
  for (const DrawKey key : keys) {
    const DecodedDrawKey d = key.decode();
    std::vector<KeyField> fields;
    decodeKey(key.bits, layout, fields);
    std::map<std::string, uint64_t> byName;
    for (const KeyField& f : fields) byName[std::string(f.name)] = f.value;
    EXPECT_EQ(byName["viewport"], d.viewport);
    EXPECT_EQ(byName["layer"], d.layer);
    EXPECT_EQ(byName["translucency"], static_cast<uint64_t>(d.translucency));
    EXPECT_EQ(byName["command"], d.command ? 1u : 0u);
    if (d.command) {
      EXPECT_EQ(byName["priority"], d.priority);
      EXPECT_FALSE(keyField(key.bits, layout, "material")) << "a command key has no material";
    } else {
      EXPECT_EQ(byName["material"], d.material.id);
      EXPECT_EQ(byName["pass"], d.material.pass);
      EXPECT_EQ(byName["depth"], d.depth) << "transparent depth is stored inverted and decoded back";
      EXPECT_FALSE(keyField(key.bits, layout, "priority"));
    }
    EXPECT_EQ(byName.size(), fields.size()) << "one field of each name applies";
  }
  const KeyFieldLayout plain[] = {{"value", 0, 16, -1, false}};
  EXPECT_EQ(keyField(0xbeef, plain, "value"), 0xbeefu);
  EXPECT_EQ(keyMode(0xbeef, plain), -1);
}

TEST(ViewerFilterParse, ConditionsOperatorsValuesAndErrors) {
  auto c = parseKeyConditions(
      " material=7, layer<2 depth>=0x10 pass!=1 priority<=3 viewport>0 translucency==normal");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->size(), 7u);
  EXPECT_EQ((*c)[0].field, "material");
  EXPECT_EQ((*c)[0].op, KeyCondition::Op::Eq);
  EXPECT_EQ((*c)[0].value, 7u);
  EXPECT_EQ((*c)[1].op, KeyCondition::Op::Lt);
  EXPECT_EQ((*c)[2].op, KeyCondition::Op::Ge);
  EXPECT_EQ((*c)[2].value, 16u);
  EXPECT_EQ((*c)[3].op, KeyCondition::Op::Ne);
  EXPECT_EQ((*c)[4].op, KeyCondition::Op::Le);
  EXPECT_EQ((*c)[5].op, KeyCondition::Op::Gt);
  EXPECT_EQ((*c)[6].value, 1u);
  EXPECT_TRUE((*c)[1].matches(1));
  EXPECT_FALSE((*c)[1].matches(2));
  EXPECT_TRUE(parseKeyConditions("")->empty());
  for (const char* bad :
       {"material", "=3", "material=", "material=abc", "material~3", "depth=0x", "layer<-1"}) {
    auto r = parseKeyConditions(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.error().message.find('\''), std::string::npos) << "names the token: " << r.error().message;
    }
  }
}

TEST_F(ViewerModel, FiltersByTypeBucketTagAndKeyFields) {
  trace::TraceReader reader = open();
  auto frame = reader.readFrame(1);
  ASSERT_TRUE(frame);
  const trace::TraceHeader& header = reader.header();
  const FrameTable table = FrameTable::build(frame.value());
  const uint16_t draw = typeId(header, "Draw");

  // Brute force over the rows, in sorted order, for each filter.
  auto expected = [&](auto&& pass) {
    std::vector<uint32_t> out;
    for (uint32_t p = 0; p < table.size(); ++p) {
      const uint32_t id = table.sortedOrder()[p];
      const Row& row = table.row(id);
      if (pass(row, packetOf(frame.value(), row), keyOf(frame.value(), row))) out.push_back(id);
    }
    return out;
  };
  auto isDrawKey = [&](const Row& row) { return frame->buckets[row.bucket].keyType == "DrawKey"; };

  RowFilter types;
  types.types.assign(header.commands.size(), 0);
  types.types[draw] = 1;
  const auto draws = applyFilter(types, frame.value(), table, header, true);
  EXPECT_EQ(draws.size(), SceneOptions{}.draws);
  EXPECT_EQ(draws,
            expected([&](const Row&, const trace::PacketRecord& p, uint64_t) { return p.type == draw; }));

  RowFilter tag;
  tag.tagText = "QUAD 3";
  const auto tagged = applyFilter(tag, frame.value(), table, header, false);
  ASSERT_EQ(tagged.size(), 1u) << "case-insensitive, one quad of that number";
  EXPECT_EQ(packetOf(frame.value(), table.row(tagged[0])).tag->message, "quad 3");

  RowFilter material;
  material.key = parseKeyConditions("material=1").value();
  const auto m1 = applyFilter(material, frame.value(), table, header, true);
  EXPECT_EQ(m1, expected([&](const Row& row, const trace::PacketRecord&, uint64_t key) {
              const DecodedDrawKey d = DrawKey{key}.decode();
              return isDrawKey(row) && !d.command && d.material.id == 1;
            }));
  EXPECT_EQ(m1.size(), 3u * 2) << "two quads of material 1, chains of three packets";

  RowFilter transparent;
  transparent.key = parseKeyConditions("translucency=normal").value();
  EXPECT_EQ(applyFilter(transparent, frame.value(), table, header, true).size(), 3u)
      << "the blended quad's chain";

  RowFilter layer;
  layer.key = parseKeyConditions("layer<1").value();
  EXPECT_EQ(applyFilter(layer, frame.value(), table, header, true),
            expected([&](const Row& row, const trace::PacketRecord&, uint64_t key) {
              return isDrawKey(row) && DrawKey{key}.decode().layer < 1;
            }))
      << "keys without a layer field (the u32 bucket) never pass";

  RowFilter both = types;
  both.key = material.key;
  EXPECT_EQ(applyFilter(both, frame.value(), table, header, true).size(), 2u);

  RowFilter bucket;
  bucket.buckets.assign(frame->buckets.size(), 0);
  for (size_t b = 0; b < frame->buckets.size(); ++b) bucket.buckets[b] = frame->buckets[b].name == "copies";
  const auto copies = applyFilter(bucket, frame.value(), table, header, false);
  EXPECT_EQ(copies.size(), SceneOptions{}.copies + 1);
  for (size_t i = 1; i < copies.size(); ++i) EXPECT_LT(copies[i - 1], copies[i]) << "submission order kept";

  RowFilter none;
  const auto all = applyFilter(none, frame.value(), table, header, true);
  EXPECT_EQ(all, std::vector<uint32_t>(table.sortedOrder().begin(), table.sortedOrder().end()));
}

// A frame whose numbers are known: eight draws alternating between two materials and their pipelines.
TEST(ViewerStats, CountsEveryTypeAndTheStateChangesSortingSaves) {
  const auto dir = testFolder();
  const std::string path = (dir / "stats.reel").string();
  {
    NullDevice device;
    Renderer renderer(device);
    auto& bucket = renderer.createBucket<DrawKey>("world");
    capture::CaptureOptions o;
    o.path = path;
    o.handleSignals = false;
    auto capture = capture::Capture::start(renderer, o);
    ASSERT_TRUE(capture) << capture.error().message;
    ResourceContext& rc = renderer.resources();
    const std::byte code[16] = {};
    const ShaderHandle shader = rc.createShader({ShaderStage::Vertex}, code);
    PipelineDesc desc{};
    desc.vertexShader = shader;
    const PipelineHandle pipelines[2] = {rc.createPipeline(desc), rc.createPipeline(desc)};
    for (uint32_t i = 0; i < 8; ++i) {
      auto& bind = bucket.add<cmd::BindPipeline>(DrawKey::draw(0, 0, Translucency::Opaque, {i % 2, 0}, i));
      bind.pipeline = pipelines[i % 2];
      bucket.append<cmd::Draw>(&bind).vertexCount = 3;
    }
    renderer.kick();
    ASSERT_TRUE(capture.value()->finish());
  }
  auto reader = trace::TraceReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto frame = reader->readFrame(0);
  ASSERT_TRUE(frame);
  const FrameTable table = FrameTable::build(frame.value());
  const FrameStats s = computeStats(frame.value(), table, reader->header());
  EXPECT_EQ(s.packets, 16u);
  EXPECT_EQ(s.keys, 8u);
  ASSERT_EQ(s.types.size(), 2u);
  for (const TypeStats& t : s.types) {
    EXPECT_EQ(t.count, 8u) << t.name;
    EXPECT_EQ(t.payloadBytes, 8u * (t.name == "Draw" ? sizeof(cmd::Draw) : sizeof(cmd::BindPipeline)))
        << t.name;
    EXPECT_EQ(t.auxBytes, 0u);
  }
  EXPECT_EQ(s.payloadBytes, 8u * (sizeof(cmd::Draw) + sizeof(cmd::BindPipeline)));
  ASSERT_EQ(s.states.size(), 1u);
  EXPECT_EQ(s.states[0].name, "BindPipeline");
  EXPECT_EQ(s.states[0].packets, 8u);
  EXPECT_EQ(s.states[0].changesSorted, 2u) << "sorted by material: pipeline 0 four times, then pipeline 1";
  EXPECT_EQ(s.states[0].changesSubmission, 8u) << "recorded alternating";
  EXPECT_EQ(s.materialKeys, 8u);
  EXPECT_EQ(s.materialChangesSorted, 1u);
  EXPECT_EQ(s.materialChangesSubmission, 7u);
}

TEST_F(ViewerModel, StatsOfTheSceneAddUpToItsPackets) {
  trace::TraceReader reader = open();
  auto frame = reader.readFrame(2);
  ASSERT_TRUE(frame);
  const FrameTable table = FrameTable::build(frame.value());
  const FrameStats s = computeStats(frame.value(), table, reader.header());
  uint64_t count = 0, bytes = 0;
  std::map<std::string, uint64_t> counted;
  for (const Row& row : table.rows()) {
    const trace::PacketRecord p = packetOf(frame.value(), row);
    ++counted[std::string(reader.header().command(p.type)->name)];
    bytes += p.payload.size() + p.aux.size();
  }
  for (const TypeStats& t : s.types) {
    EXPECT_EQ(t.count, counted[t.name]) << t.name;
    count += t.count;
  }
  EXPECT_EQ(count, table.size());
  EXPECT_EQ(s.payloadBytes + s.auxBytes, bytes);
  EXPECT_EQ(s.sharedLinks, 2u) << "the viewport shared by two keys";
  for (size_t i = 1; i < s.types.size(); ++i) EXPECT_GE(s.types[i - 1].count, s.types[i].count);
}

TEST_F(ViewerModel, PacketFieldsByNameWithHandlesAndAux) {
  trace::TraceReader reader = open();
  auto frame = reader.readFrame(0);
  ASSERT_TRUE(frame);
  const trace::TraceHeader& header = reader.header();
  const uint16_t createTarget = typeId(header, "CreateRenderTarget");
  const auto request = std::find_if(frame->requests.begin(), frame->requests.end(),
                                    [&](const trace::RequestRecord& r) { return r.type == createTarget; });
  ASSERT_NE(request, frame->requests.end());
  const auto fields = header.command(createTarget)->fields;
  const auto rows = flattenFields(fields, request->payload);
  std::map<std::string, FieldRow> byName;
  for (const FieldRow& r : rows) byName[r.name] = r;
  ASSERT_TRUE(byName.count("target"));
  EXPECT_EQ(byName["target"].handleKind, ResourceKind::RenderTarget);
  EXPECT_TRUE(byName["desc"].isStruct);
  EXPECT_EQ(byName["desc.colorCount"].value, "1");
  EXPECT_EQ(byName["desc.colorCount"].depth, 1);
  EXPECT_EQ(byName["desc.colors[0]"].handleKind, ResourceKind::Texture);
  EXPECT_NE(byName["desc.colors[0]"].handle, 0u);
  EXPECT_EQ(byName["desc.colors[1]"].value, "null");
  EXPECT_EQ(readField(fields, request->payload, "desc.colorCount"), 1u);
  EXPECT_FALSE(readField(fields, request->payload, "desc.nothing"));
  const auto refs = handleRefs(fields, request->payload);
  ASSERT_EQ(refs.size(), 3u) << "the target, its color and its depth; null handles are not references";
  EXPECT_EQ(refs[0].field, "target");
  EXPECT_EQ(refs[1].field, "desc.colors[0]");
  EXPECT_EQ(refs[2].field, "desc.depth");
  EXPECT_EQ(handleName(ResourceKind::Texture, refs[1].handle),
            "texture#" + std::to_string(refs[1].handle & 0xfffff) + ".1");
  // A field table longer than the bytes: what lies past them prints as "?".
  const auto cut = flattenFields(fields, request->payload.first(8));
  EXPECT_EQ(cut.back().value, "?");

  // Aux data: a push constant block of floats.
  const uint16_t push = typeId(header, "PushConstants");
  const FrameTable table = FrameTable::build(frame.value());
  std::optional<trace::PacketRecord> pushPacket;
  for (const Row& row : table.rows()) {
    const trace::PacketRecord p = packetOf(frame.value(), row);
    if (p.type == push) {
      pushPacket = p;
      break;
    }
  }
  ASSERT_TRUE(pushPacket);
  ASSERT_EQ(pushPacket->aux.size(), 48u);
  EXPECT_EQ(floatLineCount(48), 3u);
  EXPECT_EQ(hexLineCount(48), 3u);
  float first;
  std::memcpy(&first, pushPacket->aux.data(), sizeof first);
  char expect[32];
  std::snprintf(expect, sizeof expect, "%14.6g", static_cast<double>(first));
  EXPECT_NE(floatLine(pushPacket->aux, 0).find(expect), std::string::npos) << floatLine(pushPacket->aux, 0);
  const std::byte bytes[] = {std::byte{0x41}, std::byte{0x00}, std::byte{0xff}};
  EXPECT_EQ(hexLine(bytes, 0), "00000000  41 00 ff" + std::string(13 * 3 + 1, ' ') + "  |A..|");
  EXPECT_EQ(hexLine(bytes, 1), "");
}

TEST_F(ViewerModel, ScannerCountsEveryFrameAndTracksResourceLifetimes) {
  auto doc = TraceDocument::open(tracePath());
  ASSERT_TRUE(doc) << doc.error().message;
  const auto index = doc.value()->indexSummaries();
  ASSERT_EQ(index.size(), kFrames);
  FrameScanner scanner(tracePath(), index);
  scanner.wait();
  EXPECT_TRUE(scanner.done());
  EXPECT_EQ(scanner.error(), "");
  const auto summaries = scanner.summaries();
  trace::TraceReader reader = open();
  for (size_t i = 0; i < kFrames; ++i) {
    auto frame = reader.readFrame(i);
    ASSERT_TRUE(frame);
    EXPECT_TRUE(summaries[i].scanned);
    EXPECT_EQ(summaries[i].number, i);
    EXPECT_EQ(summaries[i].packets, frame->packetCount());
    EXPECT_EQ(summaries[i].requests, frame->requests.size());
    EXPECT_GT(summaries[i].messageBytes, summaries[i].payloadBytes)
        << "the message holds the payloads and more";
  }
  auto temporaries = [&](uint64_t number) {
    size_t n = 0;
    for (const ResourceInfo& r : scanner.aliveAt(number)) {
      if ((r.kind == ResourceKind::Texture || r.kind == ResourceKind::Sampler) && r.createdFrame == 1) ++n;
    }
    return n;
  };
  EXPECT_EQ(temporaries(0), 0u);
  EXPECT_EQ(temporaries(1), 2u) << "a texture and a sampler created in frame 1";
  EXPECT_EQ(temporaries(2), 2u) << "destroyed in frame 2: alive during its commands";
  EXPECT_EQ(temporaries(3), 0u);
  const auto frame0 = scanner.aliveAt(0);
  std::map<ResourceKind, size_t> kinds;
  for (const ResourceInfo& r : frame0) ++kinds[r.kind];
  EXPECT_EQ(kinds[ResourceKind::Texture], 4u);
  EXPECT_EQ(kinds[ResourceKind::RenderTarget], 1u);
  EXPECT_EQ(kinds[ResourceKind::Pipeline], 2u);
  EXPECT_EQ(kinds[ResourceKind::Shader], 2u);
  EXPECT_EQ(kinds[ResourceKind::Buffer], 1u);
  for (size_t i = 1; i < frame0.size(); ++i)
    EXPECT_LE(frame0[i - 1].kind, frame0[i].kind) << "kinds in order";
}

TEST(ViewerScan, CaptureStartResourcesComeFirst) {
  const auto dir = testFolder();
  const std::string path = (dir / "mid.reel").string();
  NullDevice device;
  ASSERT_TRUE(captureScene(path, device, 4, 2));
  auto doc = TraceDocument::open(path);
  ASSERT_TRUE(doc) << doc.error().message;
  ASSERT_EQ(doc.value()->frameCount(), 2u);
  FrameScanner scanner(path, doc.value()->indexSummaries());
  scanner.wait();
  const auto alive = scanner.aliveAt(2);
  size_t atStart = 0;
  for (const ResourceInfo& r : alive) atStart += r.atCaptureStart;
  EXPECT_EQ(atStart, alive.size()) << "everything alive in frame 2 existed when the capture started";
  EXPECT_EQ(alive.size(), 12u) << "10 of frame 0 and the 2 temporaries of frame 1";
  EXPECT_EQ(scanner.aliveAt(3).size(), 10u);
}

TEST_F(ViewerModel, PassTargetsFollowTheSortedOrder) {
  trace::TraceReader reader = open();
  auto frame = reader.readFrame(1);
  ASSERT_TRUE(frame);
  const FrameTable table = FrameTable::build(frame.value());
  const PassTargets targets(frame.value(), table, reader.header());
  ASSERT_EQ(targets.targets().size(), 1u);
  const uint32_t target = targets.targets()[0];
  EXPECT_EQ(targets.targetAt(0), target);
  EXPECT_EQ(targets.targetAt(static_cast<uint32_t>(table.size()) - 1), target);
  EXPECT_EQ(findTarget(targets.targets(), "0"), target);
  EXPECT_EQ(findTarget(targets.targets(), handleName(ResourceKind::RenderTarget, target)), target);
  EXPECT_EQ(findTarget(targets.targets(), "#" + std::to_string(target & 0xfffff)), target);
  EXPECT_FALSE(findTarget(targets.targets(), "1"));
  EXPECT_FALSE(findTarget(targets.targets(), "render_target#999"));
}

TEST(ViewerTexels, ColourAsReelWritesItDepthStretched) {
  // Colour formats: exactly what reel::image::fromTexels (and so `reel replay`'s PNGs) gives.
  const std::byte bgra[] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
  const float r32 = 0.25f;
  const std::span<const std::byte> r32Bytes(reinterpret_cast<const std::byte*>(&r32), sizeof r32);
  const std::pair<Format, std::span<const std::byte>> cases[] = {
      {Format::BGRA8Unorm, bgra}, {Format::RGBA8Unorm, bgra}, {Format::R32Float, r32Bytes}};
  for (const auto& [format, texels] : cases) {
    auto ours = texelsToImage(texels, 1, 1, format);
    auto reels = image::fromTexels(1, 1, format, texels);
    ASSERT_TRUE(ours);
    ASSERT_TRUE(reels);
    EXPECT_EQ(ours->rgba, reels->rgba) << static_cast<int>(format);
  }
  auto swizzled = texelsToImage(bgra, 1, 1, Format::BGRA8Unorm);
  EXPECT_EQ(swizzled->rgba, (std::vector<uint8_t>{3, 2, 1, 4}));

  const float depth[3] = {0.5f, 0.75f, 1.0f};
  auto img = texelsToImage(std::as_bytes(std::span(depth)), 3, 1, Format::D32Float);
  ASSERT_TRUE(img);
  EXPECT_EQ(img->pixel(0, 0)[0], 0) << "the nearest depth present is black";
  EXPECT_EQ(img->pixel(1, 0)[0], 128);
  EXPECT_EQ(img->pixel(2, 0)[0], 255);
  EXPECT_EQ(img->pixel(1, 0)[3], 255);
  const uint32_t d24[2] = {0xff000000u, 0x00ffffffu};  // stencil bits ignored
  img = texelsToImage(std::as_bytes(std::span(d24)), 2, 1, Format::D24UnormS8);
  ASSERT_TRUE(img);
  EXPECT_EQ(img->pixel(0, 0)[0], 0);
  EXPECT_EQ(img->pixel(1, 0)[0], 255);
  const float cleared[2] = {1.0f, 1.0f};
  img = texelsToImage(std::as_bytes(std::span(cleared)), 2, 1, Format::D32Float);
  EXPECT_EQ(img->pixel(0, 0)[0], 255) << "one value everywhere shows as it is";

  EXPECT_FALSE(texelsToImage(bgra, 2, 1, Format::RGBA8Unorm)) << "too few bytes for 2x1";
  EXPECT_FALSE(texelsToImage(bgra, 2, 1, Format::D32Float));
}

TEST(ViewerDocument, ABadFileFailsWithTheReadersOwnMessage) {
  const auto dir = testFolder();
  const std::string garbage = (dir / "garbage.reel").string();
  {
    std::ofstream out(garbage, std::ios::binary);
    out << "this is not a trace at all, just some text long enough to be read";
  }
  const std::string empty = (dir / "empty.reel").string();
  std::ofstream(empty).close();
  for (const std::string& path : {garbage, empty, (dir / "missing.reel").string()}) {
    auto doc = TraceDocument::open(path);
    auto reader = trace::TraceReader::open(path);
    ASSERT_FALSE(doc) << path;
    ASSERT_FALSE(reader);
    EXPECT_EQ(doc.error().message, reader.error().message);
    EXPECT_NE(doc.error().message.find(path), std::string::npos) << "names the file";
  }
}

}  // namespace
}  // namespace reel::viewer::testing
