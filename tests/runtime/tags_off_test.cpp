// An app may compile its own code with REEL_ENABLE_TAGS=0 (this file is built that way: see
// CMakeLists.txt) against the library built with tags on: REEL_TAG then records nothing, and packets
// keep one layout, so the library reads what this file recorded.
#if REEL_ENABLE_TAGS
#error "tags_off_test.cpp must be compiled with REEL_ENABLE_TAGS=0"
#endif

#include <gtest/gtest.h>

#include <cstring>

#include "reel/runtime/null_device.h"
#include "reel/runtime/renderer.h"

namespace reel {
namespace {

TEST(TagsOff, AnAppWithTagsCompiledOutRecordsPacketsTheLibraryReads) {
  NullDevice device;
  Renderer renderer(device);
  auto& bucket = renderer.createBucket<uint32_t>("untagged");
  for (uint32_t i = 0; i < 3; ++i) {
    auto& draw = bucket.add<cmd::Draw>(i, sizeof(uint32_t));
    draw.vertexCount = 10 + i;
    draw.firstVertex = i;
    std::memcpy(bucket.aux(draw).data(), &i, sizeof i);
    REEL_TAG(bucket, &draw, "compiled out");
  }
  renderer.kick();
  renderer.flushAndWait();

  std::vector<uint32_t> vertexCounts, auxValues;
  for (const NullDevice::Call& call : device.calls()) {
    if (call.kind != NullDevice::Call::Kind::Command) continue;
    vertexCounts.push_back(call.as<cmd::Draw>().vertexCount);
    ASSERT_EQ(call.aux.size(), sizeof(uint32_t));
    uint32_t value = 0;
    std::memcpy(&value, call.aux.data(), sizeof value);
    auxValues.push_back(value);
    EXPECT_EQ(call.tag, "") << "REEL_TAG recorded a tag although tags are compiled out";
  }
  EXPECT_EQ(vertexCounts, (std::vector<uint32_t>{10, 11, 12}));
  EXPECT_EQ(auxValues, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(device.takeErrors(), std::vector<std::string>{});
}

}  // namespace
}  // namespace reel
