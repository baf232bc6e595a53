#include "reel/image/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace reel::image {

Comparison compare(const Image& actual, const Image& expected, const Tolerance& tolerance) {
  Comparison result;
  result.sameSize = actual.width == expected.width && actual.height == expected.height &&
                    actual.rgba.size() == expected.rgba.size();
  if (!result.sameSize) {
    result.pixels = uint64_t{expected.width} * expected.height;
    result.differingPixels = result.pixels;
    result.maxDifference = 255;
    result.psnr = 0.0;
    return result;
  }
  result.pixels = uint64_t{actual.width} * actual.height;
  result.diff = Image(actual.width, actual.height);
  double squaredError = 0.0;
  for (uint64_t i = 0; i < result.pixels; ++i) {
    const uint8_t* a = actual.rgba.data() + i * 4;
    const uint8_t* e = expected.rgba.data() + i * 4;
    uint32_t pixelMax = 0;
    for (int c = 0; c < 4; ++c) {
      const int d = std::abs(int{a[c]} - int{e[c]});
      pixelMax = std::max(pixelMax, static_cast<uint32_t>(d));
      squaredError += double(d) * d;
    }
    result.maxDifference = std::max(result.maxDifference, pixelMax);
    uint8_t* out = result.diff.rgba.data() + i * 4;
    if (pixelMax > tolerance.threshold) {
      ++result.differingPixels;
      out[0] = static_cast<uint8_t>(std::min(255u, 96u + pixelMax * 2));
      out[1] = out[2] = 0;
    } else {
      // The expected image, dimmed, so that the red stands out on where it is.
      const uint8_t grey = static_cast<uint8_t>((int{e[0]} * 77 + int{e[1]} * 150 + int{e[2]} * 29) >> 10);
      out[0] = out[1] = out[2] = grey;
    }
    out[3] = 255;
  }
  const double mse = squaredError / (double(result.pixels) * 4.0);
  result.psnr = mse == 0.0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(255.0 * 255.0 / mse);
  result.matches = result.differingFraction() <= tolerance.maxDiffFraction;
  return result;
}

std::string Comparison::summary() const {
  char buf[256];
  if (!sameSize) {
    std::snprintf(buf, sizeof buf, "differ: the images have different sizes");
    return buf;
  }
  char psnrText[32] = "inf";
  if (!std::isinf(psnr)) std::snprintf(psnrText, sizeof psnrText, "%.2f", psnr);
  std::snprintf(buf, sizeof buf, "%s: %llu of %llu pixels differ (%.4f%%), max difference %u, PSNR %s dB",
                matches ? "match" : "differ", static_cast<unsigned long long>(differingPixels),
                static_cast<unsigned long long>(pixels), differingFraction() * 100.0, maxDifference, psnrText);
  return buf;
}

}  // namespace reel::image
