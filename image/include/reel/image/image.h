#pragma once
// An 8-bit RGBA image in memory, and PNG files. What reel writes (frame images, diffs, golden images)
// and reads (goldens, `reel compare` inputs) is always RGBA8.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "reel/runtime/result.h"

namespace reel::image {

struct Image {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4 bytes, rows top to bottom

  Image() = default;
  Image(uint32_t w, uint32_t h) : width(w), height(h), rgba(size_t{w} * h * 4) {}
  uint8_t* pixel(uint32_t x, uint32_t y) { return rgba.data() + (size_t{y} * width + x) * 4; }
  const uint8_t* pixel(uint32_t x, uint32_t y) const { return rgba.data() + (size_t{y} * width + x) * 4; }
  bool empty() const { return width == 0 || height == 0; }
};

// Errors name the file: "a.png: not a PNG file", "a.png: no such file".
Result<Image> readPng(const std::filesystem::path& path);
// Writes to a temporary name beside `path`, then renames: a reader never sees half a file.
Result<void> writePng(const std::filesystem::path& path, const Image& image);

}  // namespace reel::image
