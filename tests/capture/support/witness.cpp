#include "witness.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace reel::testing {
namespace {

std::vector<std::byte> copyOf(std::span<const std::byte> bytes) {
  return {bytes.begin(), bytes.end()};
}
std::vector<std::byte> copyOf(const std::byte* data, size_t size) {
  return {data, data + size};
}

bool sameBytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// A bucket that takes packets as bytes: those entry points are protected, for a replay's own buckets
// (replay::RecordedBucket is the real one; this minimal replay does not link reel::replay).
class BytesBucket final : public CommandBucketBase {
 public:
  explicit BytesBucket(std::string name) : CommandBucketBase(std::move(name), "u64", BucketConfig{}) {}
  using CommandBucketBase::addBytes;
  using CommandBucketBase::addSharedBytes;
  using CommandBucketBase::appendBytes;
  using CommandBucketBase::createSharedBytes;
  using CommandBucketBase::tagBytes;
  std::span<const KeyFieldLayout> keyLayout() const override { return KeyTraits<uint64_t>::layout(); }
  std::string formatKey(uint64_t bits) const override { return KeyTraits<uint64_t>::format(bits); }
  bool keyMaterial(uint64_t, MaterialId&) const override { return false; }
};

}  // namespace

void Witness::onFrameStart(const FrameStart& start) {
  if (start.frame == snapshotFrame_) {
    snapshot_.clear();
    start.live->forEach([&](const LiveResources::Entry& entry) {
      WitnessResource r;
      r.createType = entry.createType;
      r.create = entry.payload;
      r.code = entry.aux;
      if (entry.createType == CommandType::CreateBuffer) {
        auto bytes = start.device->readBuffer(BufferHandle{entry.handle});
        if (bytes) r.contents.push_back(bytes.value());
      } else if (entry.createType == CommandType::CreateTexture) {
        cmd::CreateTexture create;
        std::memcpy(&create, entry.payload.data(), sizeof create);
        for (uint32_t mip = 0; mip < std::max(1u, create.desc.mipLevels); ++mip) {
          auto texels = start.device->readTexture(create.texture, mip);
          if (texels) r.contents.push_back(texels.value());
        }
      }
      snapshot_.push_back(std::move(r));
    });
  }
}

void Witness::onFrame(const FrameView& view) {
  WitnessFrame& w = frames_[view.frame];
  w = WitnessFrame{};
  w.number = view.frame;
  w.sortedOrderHash = view.sortedOrderHash;
  if (view.requests) {
    for (const uint32_t offset : view.requests->requests) {
      const PacketHeader& h = view.requests->header(offset);
      const auto type = static_cast<CommandType>(h.type);
      w.requests.push_back(WitnessRequest{h.type,
                                          copyOf(view.requests->payload(offset), commandInfo(type).size),
                                          copyOf(view.requests->aux(h))});
    }
  }
  // Keys come from the sorted entries (indexed back by sequence), packets from the merged order: the
  // runtime's own view of the frame, not a second walk of the key blocks.
  std::vector<uint64_t> keyOf(view.mergedPackets.size());
  for (const SortEntry& e : view.sorted) keyOf[e.sequence] = e.key;
  w.buckets.resize(view.buckets.size());
  for (size_t b = 0; b < view.buckets.size(); ++b) {
    w.buckets[b].name = view.buckets[b].bucket->name();
    w.buckets[b].keyType = view.buckets[b].bucket->keyTypeName();
  }
  for (size_t i = 0; i < view.mergedPackets.size(); ++i) {
    WitnessBucket& bucket = w.buckets[view.mergedBuckets[i]];
    bucket.keys.push_back(keyOf[i]);
    bucket.passes.push_back(view.passOf(static_cast<uint32_t>(i)));
    auto& chain = bucket.chains.emplace_back();
    FrameView::forEachInChain(*view.buckets[view.mergedBuckets[i]].stream, view.mergedPackets[i],
                              [&](const PacketView& p) {
                                WitnessPacket packet;
                                packet.type = static_cast<uint16_t>(p.type);
                                packet.payload = copyOf(p.payload);
                                packet.aux = copyOf(p.aux);
                                packet.identity = p.payload.data();
                                if (p.tag) {
                                  packet.tagged = true;
                                  packet.file = p.tag->file ? p.tag->file : "";
                                  packet.function = p.tag->function ? p.tag->function : "";
                                  packet.line = p.tag->line;
                                  packet.message = std::string(p.tag->message());
                                }
                                chain.push_back(std::move(packet));
                              });
  }
}

void expectFrameEquals(const WitnessFrame& expected, const trace::FrameRecord& actual) {
  EXPECT_EQ(actual.number, expected.number);
  EXPECT_EQ(actual.sortedOrderHash, expected.sortedOrderHash) << "frame " << expected.number;
  ASSERT_EQ(actual.requests.size(), expected.requests.size()) << "frame " << expected.number;
  for (size_t i = 0; i < expected.requests.size(); ++i) {
    EXPECT_EQ(actual.requests[i].type, expected.requests[i].type)
        << "frame " << expected.number << " request " << i;
    EXPECT_TRUE(sameBytes(actual.requests[i].payload, expected.requests[i].payload))
        << "frame " << expected.number << " request " << i << ": "
        << ::testing::PrintToString(
               std::vector<std::byte>(actual.requests[i].payload.begin(), actual.requests[i].payload.end()))
        << " vs " << ::testing::PrintToString(expected.requests[i].payload);
    EXPECT_TRUE(sameBytes(actual.requests[i].aux, expected.requests[i].aux)) << "request " << i;
  }
  ASSERT_EQ(actual.buckets.size(), expected.buckets.size()) << "frame " << expected.number;
  for (size_t b = 0; b < expected.buckets.size(); ++b) {
    const WitnessBucket& we = expected.buckets[b];
    const trace::BucketRecord& ra = actual.buckets[b];
    const std::string where = "frame " + std::to_string(expected.number) + " bucket " + we.name;
    EXPECT_EQ(ra.index, b) << where;
    EXPECT_EQ(ra.name, we.name) << where;
    EXPECT_EQ(ra.keyType, we.keyType) << where;
    ASSERT_EQ(std::vector<uint64_t>(ra.keys().begin(), ra.keys().end()), we.keys) << where;
    // Links that share a packet in the runtime share a body in the trace, and only those.
    std::map<const void*, uint32_t> bodyOf;
    std::map<uint32_t, const void*> identityOf;
    for (size_t k = 0; k < we.keys.size(); ++k) {
      ASSERT_EQ(ra.pass(k), we.passes[k]) << where << " key " << k;
      ASSERT_EQ(ra.chainLength(k), we.chains[k].size()) << where << " key " << k;
      for (size_t l = 0; l < we.chains[k].size(); ++l) {
        const WitnessPacket& pe = we.chains[k][l];
        const trace::PacketRecord pa = ra.packet(k, l);
        const std::string at = where + " key " + std::to_string(k) + " link " + std::to_string(l);
        EXPECT_EQ(pa.type, pe.type) << at;
        EXPECT_TRUE(sameBytes(pa.payload, pe.payload)) << at;
        EXPECT_TRUE(sameBytes(pa.aux, pe.aux)) << at;
        ASSERT_EQ(pa.tag != nullptr, pe.tagged) << at;
        if (pa.tag) {
          EXPECT_EQ(pa.tag->file, pe.file) << at;
          EXPECT_EQ(pa.tag->function, pe.function) << at;
          EXPECT_EQ(pa.tag->line, pe.line) << at;
          EXPECT_EQ(pa.tag->message, pe.message) << at;
        }
        auto [body, newBody] = bodyOf.try_emplace(pe.identity, pa.body);
        EXPECT_EQ(body->second, pa.body) << at << ": the runtime shares this packet, the trace does not";
        auto [identity, newIdentity] = identityOf.try_emplace(pa.body, pe.identity);
        EXPECT_EQ(identity->second, pe.identity) << at << ": the trace shares a body the runtime did not";
      }
    }
  }
}

void expectFrameEquals(const trace::FrameRecord& expected, const trace::FrameRecord& actual) {
  EXPECT_EQ(actual.number, expected.number);
  EXPECT_EQ(actual.sortedOrderHash, expected.sortedOrderHash);
  ASSERT_EQ(actual.requests.size(), expected.requests.size());
  for (size_t i = 0; i < expected.requests.size(); ++i) {
    EXPECT_EQ(actual.requests[i].type, expected.requests[i].type);
    EXPECT_TRUE(sameBytes(actual.requests[i].payload, expected.requests[i].payload));
    EXPECT_TRUE(sameBytes(actual.requests[i].aux, expected.requests[i].aux));
  }
  ASSERT_EQ(actual.buckets.size(), expected.buckets.size());
  for (size_t b = 0; b < expected.buckets.size(); ++b) {
    const trace::BucketRecord& e = expected.buckets[b];
    const trace::BucketRecord& a = actual.buckets[b];
    EXPECT_EQ(a.name, e.name);
    ASSERT_EQ(std::vector<uint64_t>(a.keys().begin(), a.keys().end()),
              std::vector<uint64_t>(e.keys().begin(), e.keys().end()));
    for (size_t k = 0; k < e.keyCount(); ++k) {
      ASSERT_EQ(a.chainLength(k), e.chainLength(k));
      for (size_t l = 0; l < e.chainLength(k); ++l) {
        const trace::PacketRecord pe = e.packet(k, l), pa = a.packet(k, l);
        EXPECT_EQ(pa.type, pe.type);
        EXPECT_TRUE(sameBytes(pa.payload, pe.payload));
        EXPECT_TRUE(sameBytes(pa.aux, pe.aux));
        EXPECT_EQ(pa.body, pe.body);
        EXPECT_EQ(pa.shared, pe.shared);
        ASSERT_EQ(pa.tag != nullptr, pe.tag != nullptr);
        if (pa.tag) {
          EXPECT_EQ(pa.tag->message, pe.tag->message);
        }
      }
    }
  }
}

Result<void> replayTrace(trace::TraceReader& reader, Renderer& renderer) {
  const trace::TraceHeader& header = reader.header();
  for (uint16_t id = 0; id < header.commands.size(); ++id) {
    if (!header.matchesRuntime(id)) return fail("command ", id, " has another layout in the trace");
  }
  // Frame 0: every resource alive at the capture start, its contents as initial data.
  auto snapshots = reader.readResources();
  if (!snapshots) return snapshots.error();
  for (const trace::ResourcesRecord& snapshot : snapshots.value()) {
    for (const trace::LiveResourceRecord& r : snapshot.resources) {
      std::span<const std::byte> aux = r.code;
      if (!r.contents.empty() && r.contents[0].mip == 0) aux = r.contents[0].bytes;
      if (auto ok = renderer.resources().replayRequest(static_cast<CommandType>(r.createType), r.create, aux);
          !ok) {
        return ok.error();
      }
    }
  }
  renderer.kick();

  // The tag strings must outlive the frames that point at them.
  static std::deque<std::string> strings;
  for (size_t i = 0; i < reader.frameCount(); ++i) {
    auto frame = reader.readFrame(i);
    if (!frame) return frame.error();
    for (const trace::RequestRecord& r : frame->requests) {
      if (auto ok = renderer.resources().replayRequest(static_cast<CommandType>(r.type), r.payload, r.aux);
          !ok) {
        return ok.error();
      }
    }
    for (const trace::BucketRecord& b : frame->buckets) {
      while (renderer.bucketCount() <= b.index)
        renderer.adoptBucket(std::make_unique<BytesBucket>(std::string(b.name)));
      auto& bucket = static_cast<BytesBucket&>(renderer.bucket(b.index));
      std::map<uint32_t, PacketHeader*> shared;
      for (size_t k = 0; k < b.keyCount(); ++k) {
        PacketHeader* previous = nullptr;
        b.forEachInChain(k, [&](const trace::PacketRecord& p) {
          const auto type = static_cast<CommandType>(p.type);
          PacketHeader* link;
          if (previous == nullptr && p.shared) {
            auto [it, inserted] = shared.try_emplace(p.body, nullptr);
            if (inserted) it->second = &bucket.createSharedBytes(type, p.payload, p.aux);
            link = &bucket.addSharedBytes(b.key(k), *it->second, PassId{b.pass(k)});
          } else if (previous == nullptr) {
            link = &bucket.addBytes(b.key(k), type, p.payload, p.aux, PassId{b.pass(k)});
          } else {
            link = &bucket.appendBytes(*previous, type, p.payload, p.aux);
          }
          if (p.tag) {
            const char* file = strings.emplace_back(p.tag->file).c_str();
            const char* function = strings.emplace_back(p.tag->function).c_str();
            bucket.tagBytes(*link, SourceLocation{file, function, p.tag->line}, p.tag->message);
          }
          previous = link;
        });
      }
    }
    renderer.kick();
  }
  renderer.flushAndWait();
  return {};
}

std::vector<const NullDevice::Call*> commandsOfFrame(const NullDevice& device, uint64_t frame) {
  std::vector<const NullDevice::Call*> out;
  for (const auto& call : device.calls()) {
    if (call.kind == NullDevice::Call::Kind::Command && call.frame == frame) out.push_back(&call);
  }
  return out;
}

TempDir::TempDir() {
  std::random_device random;
  const auto base = std::filesystem::temp_directory_path();
  dir_ = (base / ("reel-test-" + std::to_string(::getpid()) + "-" + std::to_string(random()))).string();
  std::filesystem::create_directories(dir_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::vector<std::byte> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(bytes.size());
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

void writeFile(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace reel::testing
