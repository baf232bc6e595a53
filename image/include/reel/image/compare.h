#pragma once
// Comparing two images under a tolerance: a pixel differs when any channel differs by more than
// `threshold`; the images match when the share of differing pixels is at most `maxDiffFraction`.
// The defaults (0, 0) ask for identical images.

#include <cstdint>
#include <string>

#include "reel/image/image.h"

namespace reel::image {

struct Tolerance {
  uint32_t threshold = 0;        // per-channel difference allowed, 0..255
  double maxDiffFraction = 0.0;  // share of pixels allowed to differ beyond threshold, 0..1
};

struct Comparison {
  bool sameSize = false;
  uint64_t pixels = 0;
  uint64_t differingPixels = 0;  // beyond the threshold
  uint32_t maxDifference = 0;    // largest per-channel difference anywhere
  double psnr = 0.0;             // dB over RGBA; +infinity when identical
  bool matches = false;          // sameSize and differingPixels / pixels <= maxDiffFraction
  Image diff;                    // differing pixels in red (brighter = larger), others as dimmed grey

  double differingFraction() const { return pixels ? static_cast<double>(differingPixels) / pixels : 0.0; }
  std::string summary() const;  // "match: 0 of 65536 pixels differ, max difference 0, PSNR inf dB"
};

Comparison compare(const Image& actual, const Image& expected, const Tolerance& tolerance = {});

}  // namespace reel::image
