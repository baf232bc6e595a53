// The compatibility corpus (traces/compat/): traces written by earlier versions of reel, which every
// later version must read. Each reads without a warning, whole (its index intact, its capture ended),
// and every record in it decodes and prints, as `reel verify` and `reel dump` read it.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "reel/trace/reader.h"

namespace reel::testing {
namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(REEL_COMPAT_TRACES_DIR, ec)) {
    if (entry.path().extension() == ".reel") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(CompatCorpus, HoldsTracesOfMoreThanOneKind) {
  EXPECT_GE(corpus().size(), 3u) << REEL_COMPAT_TRACES_DIR;
}

TEST(CompatCorpus, EveryTraceReadsWholeAndEveryRecordDecodes) {
  for (const std::string& path : corpus()) {
    SCOPED_TRACE(path);
    auto reader = trace::TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().message;
    EXPECT_EQ(reader->warnings(), std::vector<std::string>{});
    EXPECT_TRUE(reader->hasIndex());
    EXPECT_TRUE(reader->complete());
    const trace::TraceHeader& h = reader->header();
    EXPECT_EQ(h.formatMajor, 1u);
    EXPECT_FALSE(h.reelVersion.empty());
    ASSERT_GT(reader->frameCount(), 0u);

    auto resources = reader->readResources();
    ASSERT_TRUE(resources) << resources.error().message;
    for (const trace::ResourcesRecord& r : resources.value()) {
      for (const trace::LiveResourceRecord& live : r.resources)
        EXPECT_NE(h.formatPacket(live.createType, live.create).find(' '), std::string::npos);
    }
    auto markers = reader->readMarkers();
    EXPECT_TRUE(markers) << markers.error().message;
    auto end = reader->readCaptureEnd();
    ASSERT_TRUE(end) << end.error().message;
    ASSERT_TRUE(end->has_value());
    EXPECT_EQ(end->value().frames, reader->frameCount());

    size_t packets = 0;
    for (size_t i = 0; i < reader->frameCount(); ++i) {
      auto frame = reader->readFrame(i);
      ASSERT_TRUE(frame) << frame.error().message;
      for (const trace::RequestRecord& r : frame->requests) EXPECT_NE(h.command(r.type), nullptr);
      for (const trace::BucketRecord& b : frame->buckets) {
        EXPECT_NE(h.keyLayout(b.keyType), nullptr) << b.keyType;
        for (size_t k = 0; k < b.keyCount(); ++k) {
          b.forEachInChain(k, [&](const trace::PacketRecord& p) {
            ASSERT_NE(h.command(p.type), nullptr);
            EXPECT_EQ(h.formatPacket(p.type, p.payload).rfind(h.command(p.type)->name, 0), 0u);
            ++packets;
          });
        }
      }
    }
    EXPECT_GT(packets, 0u);
  }
}

}  // namespace
}  // namespace reel::testing
