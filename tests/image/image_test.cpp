#include "reel/image/image.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>

#include "reel/image/compare.h"

namespace reel::image {
namespace {

Image gradient(uint32_t w, uint32_t h) {
  Image image(w, h);
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t* p = image.pixel(x, y);
      p[0] = static_cast<uint8_t>(x * 255 / (w - 1));
      p[1] = static_cast<uint8_t>(y * 255 / (h - 1));
      p[2] = static_cast<uint8_t>((x + y) & 0xff);
      p[3] = 255;
    }
  }
  return image;
}

std::filesystem::path tempDir() {
  auto dir = std::filesystem::temp_directory_path() / ("reel_image_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Png, RoundTripsExactly) {
  const Image image = gradient(37, 19);
  const auto path = tempDir() / "g.png";
  ASSERT_TRUE(writePng(path, image).ok());
  auto back = readPng(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->width, 37u);
  EXPECT_EQ(back->height, 19u);
  EXPECT_EQ(back->rgba, image.rgba);
}

TEST(Png, BadFilesGiveOneClearErrorNamingTheFile) {
  const auto dir = tempDir();
  auto missing = readPng(dir / "missing.png");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, (dir / "missing.png").string() + ": no such file");
  EXPECT_NE(readPng(dir).error().message.find("is a directory"), std::string::npos);
  std::ofstream(dir / "text.png") << "hello";
  EXPECT_NE(readPng(dir / "text.png").error().message.find("not a PNG"), std::string::npos);
  // A real PNG cut in half.
  const auto whole = dir / "whole.png";
  ASSERT_TRUE(writePng(whole, gradient(64, 64)).ok());
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir / "cut.png", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto cut = readPng(dir / "cut.png");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("cut.png: corrupt PNG"), std::string::npos) << cut.error().message;
}

TEST(Png, WriteToAnUnwritableFolderFailsAndLeavesNothing) {
  auto result = writePng("/proc/reel_cannot_write_here/x.png", gradient(4, 4));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("x.png"), std::string::npos);
}

TEST(Compare, IdenticalImagesMatchWithInfinitePsnr) {
  const Image a = gradient(16, 16);
  const Comparison c = compare(a, a);
  EXPECT_TRUE(c.matches);
  EXPECT_EQ(c.differingPixels, 0u);
  EXPECT_EQ(c.maxDifference, 0u);
  EXPECT_TRUE(std::isinf(c.psnr));
  EXPECT_EQ(c.summary(), "match: 0 of 256 pixels differ (0.0000%), max difference 0, PSNR inf dB");
}

TEST(Compare, ThresholdAndFractionDecide) {
  const Image expected = gradient(10, 10);
  Image actual = expected;
  actual.pixel(3, 3)[1] += 2;     // small difference
  actual.pixel(7, 1)[2] ^= 0x80;  // large difference
  Comparison exact = compare(actual, expected);
  EXPECT_FALSE(exact.matches);
  EXPECT_EQ(exact.differingPixels, 2u);
  EXPECT_EQ(exact.maxDifference, 128u);
  EXPECT_NEAR(exact.psnr, 10 * std::log10(255.0 * 255.0 / ((4.0 + 128.0 * 128.0) / 400.0)), 1e-9);
  EXPECT_EQ(exact.diff.pixel(3, 3)[0], 100u) << "differing pixels are red, brighter when larger";
  EXPECT_EQ(exact.diff.pixel(7, 1)[0], 255u);

  const Comparison loose = compare(actual, expected, {.threshold = 2});
  EXPECT_EQ(loose.differingPixels, 1u);
  EXPECT_FALSE(loose.matches);
  EXPECT_TRUE(compare(actual, expected, {.threshold = 2, .maxDiffFraction = 0.01}).matches);
  EXPECT_FALSE(compare(actual, expected, {.threshold = 2, .maxDiffFraction = 0.009}).matches);
}

TEST(Compare, DifferentSizesNeverMatch) {
  const Comparison c = compare(gradient(8, 8), gradient(8, 9), {.threshold = 255, .maxDiffFraction = 1.0});
  EXPECT_FALSE(c.sameSize);
  EXPECT_FALSE(c.matches);
}

}  // namespace
}  // namespace reel::image

#include "reel/image/texels.h"

namespace reel::image {
namespace {

TEST(Texels, ConvertsEveryFormatToRgba8) {
  const std::byte bgra[4] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
  auto a = fromTexels(1, 1, Format::BGRA8Unorm, bgra);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->rgba, (std::vector<uint8_t>{3, 2, 1, 4}));
  const float rgba32[4] = {0.0f, 0.5f, 1.5f, -1.0f};
  auto b = fromTexels(1, 1, Format::RGBA32Float, std::as_bytes(std::span(rgba32)));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->rgba, (std::vector<uint8_t>{0, 128, 255, 0}));
  const uint16_t half[4] = {0x3c00, 0x3800, 0x0000, 0xbc00};  // 1, 0.5, 0, -1
  auto c = fromTexels(1, 1, Format::RGBA16Float, std::as_bytes(std::span(half)));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->rgba, (std::vector<uint8_t>{255, 128, 0, 0}));
  const float depth = 0.25f;
  auto d = fromTexels(1, 1, Format::D32Float, std::as_bytes(std::span(&depth, 1)));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->rgba, (std::vector<uint8_t>{64, 64, 64, 255}));
}

TEST(Texels, RefusesTooFewBytes) {
  const std::byte two[2] = {};
  auto r = fromTexels(1, 1, Format::RGBA8Unorm, two);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("needs 4"), std::string::npos);
}

}  // namespace
}  // namespace reel::image

namespace reel::image {
namespace {

// Reads `path` on another thread; fails the test (and ends the process, whose reading thread cannot be
// stopped) if that takes more than a few seconds, instead of hanging the suite.
Result<Image> readPngWithin5s(const std::filesystem::path& path) {
  auto reading = std::async(std::launch::async, [path] { return readPng(path); });
  if (reading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "readPng(" << path << ") did not return within 5 s";
    std::fflush(stdout);
    std::_Exit(1);
  }
  return reading.get();
}

TEST(PngFile, AFifoIsRefusedWithoutBlocking) {
  const auto fifo = tempDir() / "fifo.png";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto read = readPngWithin5s(fifo);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find(fifo.string() + ": not a regular file"), std::string::npos)
      << read.error().message;
}

TEST(PngFile, AnEndlessDeviceIsRefusedWithoutReadingIt) {
  const auto read = readPngWithin5s("/dev/zero");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("/dev/zero: not a regular file"), std::string::npos)
      << read.error().message;
}

TEST(PngFile, ALargeFileOfSomethingElseIsRefusedByItsSignature) {
  const auto path = tempDir() / "not_a.png";
  {
    std::ofstream file(path, std::ios::binary);
    file << std::string(1 << 20, 'x');
  }
  const auto read = readPng(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find(path.string() + ": not a PNG file"), std::string::npos)
      << read.error().message;
}

}  // namespace
}  // namespace reel::image
