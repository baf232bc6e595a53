// readBuffer / readTexture return what was written, by every path that writes; requestReadback delivers a
// frame's image once the GPU has finished it.
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <numeric>

#include "fixture.h"
#include "reel/runtime/frame.h"

namespace reel::test {
namespace {

std::vector<std::byte> pattern(size_t size, uint32_t seed) {
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = std::byte((i * 131 + seed * 17 + (i >> 8)) & 0xff);
  return bytes;
}

TEST_F(VulkanTest, BufferInitialContentsInEveryDomain) {
  const auto bytes = pattern(1000, 1);
  BufferHandle buffers[3];
  for (uint32_t d = 0; d < 3; ++d) {
    buffers[d] = resources().createBuffer(
        {.size = bytes.size(), .usage = buffer_usage::kStorage, .domain = static_cast<MemoryDomain>(d)},
        bytes);
  }
  const BufferHandle zeroed = resources().createBuffer({.size = 256, .usage = buffer_usage::kUniform});
  frame();
  for (BufferHandle b : buffers) {
    auto read = readBuffer(b);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(*read, bytes);
  }
  auto read = readBuffer(zeroed);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, std::vector<std::byte>(256)) << "a buffer created without contents is zeroed";
}

TEST_F(VulkanTest, WriteUpdateAndCopyBufferLandInOrder) {
  const BufferHandle a = resources().createBuffer({.size = 200000, .usage = buffer_usage::kStorage});
  const BufferHandle b = resources().createBuffer({.size = 200000, .usage = buffer_usage::kStorage});
  auto expected = std::vector<std::byte>(200000);
  // A resource request (before the frame's commands), then sorted commands in key order.
  const auto head = pattern(100, 2);
  resources().writeBuffer(a, 8, head);
  std::copy(head.begin(), head.end(), expected.begin() + 8);
  const auto small = pattern(64, 3);  // vkCmdUpdateBuffer
  bucket().addWithData<cmd::UpdateBuffer>(0, small.data(), uint32_t(small.size())).buffer = a;
  std::copy(small.begin(), small.end(), expected.begin());
  const auto large = pattern(150000, 4);  // over 64 KiB: through the upload arena
  auto& update = bucket().addWithData<cmd::UpdateBuffer>(1, large.data(), uint32_t(large.size()));
  update.buffer = a;
  update.offset = 40000;
  std::copy(large.begin(), large.end(), expected.begin() + 40000);
  const auto odd = pattern(7, 5);  // not a multiple of 4: also through the arena
  auto& oddUpdate = bucket().addWithData<cmd::UpdateBuffer>(2, odd.data(), uint32_t(odd.size()));
  oddUpdate.buffer = a;
  oddUpdate.offset = 3;
  std::copy(odd.begin(), odd.end(), expected.begin() + 3);
  auto& copy = bucket().add<cmd::CopyBuffer>(3);
  copy.source = a;
  copy.destination = b;
  copy.size = 200000;
  frame();
  auto readA = readBuffer(a);
  auto readB = readBuffer(b);
  ASSERT_TRUE(readA.ok() && readB.ok());
  EXPECT_EQ(*readA, expected);
  EXPECT_EQ(*readB, expected);
}

TEST_F(VulkanTest, TextureContentsRegionsAndMips) {
  const uint32_t size = 16;
  std::vector<uint32_t> texels(size * size);
  for (uint32_t i = 0; i < texels.size(); ++i) {
    texels[i] = rgba8(uint8_t(i), uint8_t(i * 3), uint8_t(255 - i));
  }
  const TextureHandle plain = resources().createTexture({.width = size,
                                                         .height = size,
                                                         .mipLevels = 1,
                                                         .format = Format::RGBA8Unorm,
                                                         .usage = texture_usage::kSampled},
                                                        std::as_bytes(std::span(texels)));
  // A uniform color: every mip of the generated chain is that color exactly.
  const std::vector<uint32_t> flat(size * size, rgba8(10, 200, 30, 255));
  const TextureHandle mipped = resources().createTexture({.width = size,
                                                          .height = size,
                                                          .mipLevels = 5,
                                                          .format = Format::RGBA8Unorm,
                                                          .usage = texture_usage::kSampled},
                                                         std::as_bytes(std::span(flat)));
  const TextureHandle empty = resources().createTexture({.width = 8,
                                                         .height = 8,
                                                         .mipLevels = 1,
                                                         .format = Format::RGBA8Unorm,
                                                         .usage = texture_usage::kSampled});
  frame();
  auto read = readTexture(plain);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->size(), texels.size() * 4);
  EXPECT_EQ(std::memcmp(read->data(), texels.data(), read->size()), 0);
  for (uint32_t mip = 0; mip < 5; ++mip) {
    auto m = readTexture(mipped, mip);
    ASSERT_TRUE(m.ok()) << m.error().message;
    const uint32_t w = size >> mip;
    ASSERT_EQ(m->size(), size_t{w} * w * 4);
    EXPECT_EQ(pixel(*m, w, w - 1, w - 1), rgba8(10, 200, 30, 255)) << "mip " << mip;
  }
  EXPECT_FALSE(readTexture(mipped, 5).ok()) << "mip 5 does not exist";
  auto zero = readTexture(empty);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, std::vector<std::byte>(8 * 8 * 4)) << "a texture created without contents is zeroed";

  // A region written with WriteTexture, then copied into another texture with CopyTexture.
  const std::vector<uint32_t> region(3 * 2, rgba8(1, 2, 3, 4));
  resources().writeTexture(plain, 0, 5, 6, 3, 2, std::as_bytes(std::span(region)));
  auto& copy = bucket().add<cmd::CopyTexture>(0);
  copy.source = plain;
  copy.destination = empty;
  copy.sourceX = 4;
  copy.sourceY = 5;
  copy.width = 4;
  copy.height = 3;
  frame();
  read = readTexture(plain);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(pixel(*read, size, 5, 6), rgba8(1, 2, 3, 4));
  EXPECT_EQ(pixel(*read, size, 7, 7), rgba8(1, 2, 3, 4));
  EXPECT_EQ(pixel(*read, size, 4, 6), texels[6 * size + 4]) << "outside the region: untouched";
  zero = readTexture(empty);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(pixel(*zero, 8, 0, 0), texels[5 * size + 4]);
  EXPECT_EQ(pixel(*zero, 8, 1, 1), rgba8(1, 2, 3, 4));
  EXPECT_EQ(pixel(*zero, 8, 4, 0), 0u) << "outside the copied rectangle: still zero";
}

TEST_F(VulkanTest, DepthTextureReadsBackItsClearValue) {
  const Target target = makeTarget(8, 8, true);
  auto& begin = bucket().add<cmd::BeginRenderPass>(0);
  begin.target = target.target;
  begin.clearDepth = 0.25f;
  bucket().add<cmd::EndRenderPass>(1);
  frame();
  auto depth = readTexture(target.depth);
  ASSERT_TRUE(depth.ok()) << depth.error().message;
  ASSERT_EQ(depth->size(), 8u * 8 * 4);
  float d;
  std::memcpy(&d, depth->data() + 4 * 9, 4);
  EXPECT_EQ(d, 0.25f);
}

TEST_F(VulkanTest, ReadOfADeadHandleFails) {
  const BufferHandle buffer = resources().createBuffer({.size = 16, .usage = buffer_usage::kUniform});
  frame();
  resources().destroy(buffer);
  frame();
  auto read = readBuffer(buffer);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("not live"), std::string::npos) << read.error().message;
  EXPECT_FALSE(readTexture(TextureHandle{}).ok());
}

TEST_F(VulkanTest, RequestedReadbacksDeliverTheImageOfEachFrame) {
  const Target target = makeTarget(4, 4);
  std::mutex mutex;
  std::vector<std::pair<uint64_t, uint32_t>> delivered;  // frame, first pixel
  std::vector<std::string> failures;
  auto callback = [&](Result<ReadbackImage> image) {
    std::lock_guard lock(mutex);
    if (!image) {
      failures.push_back(image.error().message);
      return;
    }
    EXPECT_EQ(image->width, 4u);
    EXPECT_EQ(image->format, Format::RGBA8Unorm);
    delivered.push_back({image->frame, pixel(image->pixels, 4, 3, 3)});
  };
  for (uint32_t f = 0; f < 5; ++f) {
    const float clear[4] = {float(f) / 4.0f, 0, 1, 1};
    beginPass(0, target.target, LoadOp::Clear, clear);
    bucket().add<cmd::EndRenderPass>(1);
    device().requestReadback(target.color, renderer().recordingFrame(), callback);
    renderer().kick();
  }
  renderer().flushAndWait();
  // Too late: frame 2 has ended.
  device().requestReadback(target.color, 2, callback);
  renderer().kick();
  renderer().flushAndWait();
  std::lock_guard lock(mutex);
  ASSERT_EQ(delivered.size(), 5u);
  for (uint32_t f = 0; f < 5; ++f) {
    EXPECT_EQ(delivered[f].first, f);
    EXPECT_EQ(delivered[f].second, rgba8(uint8_t(std::lround(f / 4.0 * 255)), 0, 255, 255)) << "frame " << f;
  }
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("had ended"), std::string::npos) << failures[0];
}

// Capture reads resources from a FrameObserver: before a frame begins (onFrameStart), and in the middle
// of one whose resource requests are recorded but not submitted (onFrame): the device submits what the
// frame has so far, waits, and reads after it.
class ReadingObserver final : public FrameObserver {
 public:
  ReadingObserver(BufferHandle b, TextureHandle t) : buffer_(b), texture_(t) {}
  void onFrameStart(const FrameStart& start) override {
    if (start.frame != 1) return;
    device_ = start.device;
    before = device_->readBuffer(buffer_).value();
    texture = device_->readTexture(texture_, 0).value();
  }
  void onFrame(const FrameView& frame) override {
    if (frame.frame == 1) during = device_->readBuffer(buffer_).value();
  }
  std::vector<std::byte> before, during, texture;

 private:
  Device* device_ = nullptr;
  BufferHandle buffer_;
  TextureHandle texture_;
};

TEST_F(VulkanTest, ReadsFromAnObserverSeeEveryEarlierWrite) {
  const auto first = pattern(64, 9), second = pattern(16, 10);
  const BufferHandle buffer = resources().createBuffer({.size = 64, .usage = buffer_usage::kStorage});
  const TextureHandle texture = resources().createTexture({.width = 2,
                                                           .height = 2,
                                                           .mipLevels = 1,
                                                           .format = Format::RGBA8Unorm,
                                                           .usage = texture_usage::kSampled});
  bucket().addWithData<cmd::UpdateBuffer>(0, first.data(), 64).buffer = buffer;
  renderer().kick();  // frame 0 writes the buffer
  ReadingObserver observer(buffer, texture);
  ObserverRegistration reading = renderer().addObserver(observer);
  resources().writeBuffer(buffer, 48, second);  // frame 1's request, applied before onFrame
  bucket().add<cmd::Draw>(0);                   // and a sorted command after the mid-frame flush
  renderer().kick();
  renderer().flushAndWait();
  reading.reset();
  EXPECT_EQ(observer.before, first);
  auto expected = first;
  std::copy(second.begin(), second.end(), expected.begin() + 48);
  EXPECT_EQ(observer.during, expected);
  EXPECT_EQ(observer.texture, std::vector<std::byte>(16));
  // The frame's draw came after the flush, in a new command buffer, and was reported (no pass open).
  EXPECT_EQ(countContaining(takeErrors(), "Draw: a draw outside a render pass"), 1u);
}

}  // namespace
}  // namespace reel::test
