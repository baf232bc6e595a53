#include "reel/runtime/command_bucket.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "reel/runtime/frame.h"

namespace reel {
namespace {

std::vector<KeyEntry> keysOf(const BucketStream& stream) {
  std::vector<KeyEntry> out;
  for (uint32_t b = 0; b < stream.keyBlockCount(); ++b) {
    for (uint32_t i = 0; i < stream.keyBlockFill(b); ++i) out.push_back(stream.keyBlock(b)[i]);
  }
  return out;
}

std::vector<PacketView> chainOf(const BucketStream& stream, uint32_t packet) {
  std::vector<PacketView> out;
  FrameView::forEachInChain(stream, packet, [&](const PacketView& p) { out.push_back(p); });
  return out;
}

TEST(CommandBucket, AddRecordsZeroedAlignedPacketsWithKeys) {
  CommandBucket<DrawKey> bucket("test");
  auto& draw = bucket.add<cmd::Draw>(DrawKey::draw(0, 1, Translucency::Opaque, {3, 0}, 10));
  EXPECT_EQ(draw.vertexCount, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&draw) % 8, 0u);
  draw.vertexCount = 36;
  auto& dispatch = bucket.add<cmd::Dispatch>(DrawKey::command(0, 2, Translucency::Opaque, 5));
  dispatch.groupsX = 4;

  const BucketStream& stream = bucket.handOver();
  const auto keys = keysOf(stream);
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].key, DrawKey::draw(0, 1, Translucency::Opaque, {3, 0}, 10).bits);
  const auto chain = chainOf(stream, keys[0].packet);
  ASSERT_EQ(chain.size(), 1u);
  EXPECT_EQ(chain[0].type, CommandType::Draw);
  cmd::Draw copy;
  std::memcpy(&copy, chain[0].payload.data(), sizeof copy);
  EXPECT_EQ(copy.vertexCount, 36u);
  EXPECT_EQ(chainOf(stream, keys[1].packet)[0].type, CommandType::Dispatch);
}

TEST(CommandBucket, AppendChainsUnderOneKeyAndAuxDataFollowsThePacket) {
  CommandBucket<uint32_t> bucket("chain");
  const float uniforms[4] = {1, 2, 3, 4};
  auto& update = bucket.addWithData<cmd::UpdateBuffer>(7, uniforms, sizeof uniforms);
  update.offset = 64;
  auto& draw = bucket.append<cmd::DrawIndexed>(&update);
  draw.indexCount = 6;
  auto& second = bucket.append<cmd::DrawIndexed>(&draw);
  second.indexCount = 12;

  const BucketStream& stream = bucket.handOver();
  const auto keys = keysOf(stream);
  ASSERT_EQ(keys.size(), 1u) << "appended packets have no key of their own";
  const auto chain = chainOf(stream, keys[0].packet);
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0].type, CommandType::UpdateBuffer);
  ASSERT_EQ(chain[0].aux.size(), sizeof uniforms);
  EXPECT_EQ(std::memcmp(chain[0].aux.data(), uniforms, sizeof uniforms), 0);
  EXPECT_EQ(chain[1].type, CommandType::DrawIndexed);
  EXPECT_EQ(chain[2].type, CommandType::DrawIndexed);
  cmd::DrawIndexed last;
  std::memcpy(&last, chain[2].payload.data(), sizeof last);
  EXPECT_EQ(last.indexCount, 12u);
}

TEST(CommandBucket, SharedPacketIsReferencedByManyKeysWithTheirOwnChains) {
  CommandBucket<uint32_t> bucket("shared");
  auto& viewport = bucket.createShared<cmd::SetViewport>();
  viewport.width = 640;
  for (uint32_t k = 0; k < 3; ++k) {
    PacketHeader& ref = bucket.addShared(k, viewport);
    auto& draw = bucket.append<cmd::Draw>(ref);
    draw.vertexCount = 3 * (k + 1);
  }
  const BucketStream& stream = bucket.handOver();
  const auto keys = keysOf(stream);
  ASSERT_EQ(keys.size(), 3u);
  for (uint32_t k = 0; k < 3; ++k) {
    const auto chain = chainOf(stream, keys[k].packet);
    ASSERT_EQ(chain.size(), 2u);
    EXPECT_EQ(chain[0].type, CommandType::SetViewport);
    cmd::SetViewport v;
    std::memcpy(&v, chain[0].payload.data(), sizeof v);
    EXPECT_EQ(v.width, 640.f);
    cmd::Draw d;
    std::memcpy(&d, chain[1].payload.data(), sizeof d);
    EXPECT_EQ(d.vertexCount, 3 * (k + 1));
  }
}

TEST(CommandBucket, TagCarriesSourceLocationAndMessage) {
  CommandBucket<uint32_t> bucket("tags");
  auto& draw = bucket.add<cmd::Draw>(1);
  REEL_TAG(bucket, &draw, "the crate");
  const int line = __LINE__ - 1;
  const BucketStream& stream = bucket.handOver();
  const auto chain = chainOf(stream, keysOf(stream)[0].packet);
  ASSERT_NE(chain[0].tag, nullptr);
  EXPECT_EQ(chain[0].tag->message(), "the crate");
  EXPECT_EQ(chain[0].tag->line, static_cast<uint32_t>(line));
  EXPECT_NE(std::string(chain[0].tag->file).find("command_bucket_test.cpp"), std::string::npos);
}

TEST(CommandBucket, LargePacketsAndAuxLargerThanABlock) {
  CommandBucket<uint32_t> bucket("big");
  std::vector<std::byte> data(100'000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 31);
  bucket.addWithData<cmd::UpdateBuffer>(1, data.data(), static_cast<uint32_t>(data.size()));
  bucket.add<cmd::Draw>(2);
  const BucketStream& stream = bucket.handOver();
  const auto keys = keysOf(stream);
  ASSERT_EQ(keys.size(), 2u);
  const auto chain = chainOf(stream, keys[0].packet);
  ASSERT_EQ(chain[0].aux.size(), data.size());
  EXPECT_EQ(std::memcmp(chain[0].aux.data(), data.data(), data.size()), 0);
}

TEST(CommandBucket, ConcurrentAddLosesAndCorruptsNothing) {
  CommandBucket<uint64_t> bucket("mt");
  constexpr uint32_t kThreads = 4, kPerThread = 50'000;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&bucket, t] {
      for (uint32_t i = 0; i < kPerThread; ++i) {
        const uint64_t id = uint64_t{t} << 32 | i;
        auto& draw = bucket.add<cmd::DrawInstanced>(id, i % 5 == 0 ? 24 : 0);
        draw.vertexCount = t;
        draw.instanceCount = i;
        draw.firstVertex = ~t;
        draw.firstInstance = ~i;
        if (i % 5 == 0) std::memset(bucket.aux(draw).data(), static_cast<int>(t + 1), 24);
      }
    });
  }
  for (auto& th : threads) th.join();

  const BucketStream& stream = bucket.handOver();
  const auto keys = keysOf(stream);
  ASSERT_EQ(keys.size(), size_t{kThreads} * kPerThread);
  std::vector<std::vector<bool>> seen(kThreads, std::vector<bool>(kPerThread));
  std::vector<uint32_t> lastOfThread(kThreads, 0);
  for (const KeyEntry& k : keys) {
    const uint32_t t = static_cast<uint32_t>(k.key >> 32), i = static_cast<uint32_t>(k.key);
    ASSERT_LT(t, kThreads);
    ASSERT_LT(i, kPerThread);
    ASSERT_FALSE(seen[t][i]) << "duplicate packet";
    seen[t][i] = true;
    if (i > 0) {
      ASSERT_GT(i, lastOfThread[t]) << "one thread's packets keep their order";
    }
    lastOfThread[t] = i;
    const auto chain = chainOf(stream, k.packet);
    ASSERT_EQ(chain.size(), 1u);
    cmd::DrawInstanced d;
    std::memcpy(&d, chain[0].payload.data(), sizeof d);
    ASSERT_EQ(d.vertexCount, t);
    ASSERT_EQ(d.instanceCount, i);
    ASSERT_EQ(d.firstVertex, ~t);
    ASSERT_EQ(d.firstInstance, ~i);
    if (i % 5 == 0) {
      ASSERT_EQ(chain[0].aux.size(), 24u);
      for (std::byte b : chain[0].aux) ASSERT_EQ(b, std::byte(t + 1));
    }
  }
}

TEST(CommandBucket, HandOverStartsAnEmptyStreamUnlessRetained) {
  CommandBucket<uint32_t> bucket("frames");
  bucket.add<cmd::Draw>(1);
  BucketStream& first = bucket.handOver();
  EXPECT_EQ(first.keyCount(), 1u);
  EXPECT_EQ(bucket.recordingStream().keyCount(), 0u);
  bucket.add<cmd::Draw>(2);
  bucket.add<cmd::Draw>(3);
  bucket.setRetained(true);
  BucketStream& second = bucket.handOver();
  BucketStream& third = bucket.handOver();
  EXPECT_EQ(&second, &third) << "a retained bucket submits the same recording again";
  EXPECT_EQ(third.keyCount(), 2u);
  EXPECT_EQ(third.references.load(), 2u);
}

}  // namespace
}  // namespace reel
