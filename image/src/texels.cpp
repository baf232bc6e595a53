#include "reel/image/texels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace reel::image {
namespace {

uint8_t unorm8(float v) {
  if (!(v > 0.0f)) return 0;  // NaN too
  if (v >= 1.0f) return 255;
  return static_cast<uint8_t>(std::lround(v * 255.0f));
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  return sign ? -value : value;
}

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

Result<Image> fromTexels(uint32_t width, uint32_t height, Format format, std::span<const std::byte> texels) {
  const uint32_t bpp = formatBytesPerPixel(format);
  if (bpp == 0) return fail("cannot convert texels of format ", static_cast<uint32_t>(format));
  const uint64_t need = uint64_t{width} * height * bpp;
  if (texels.size() < need) return fail("texels: ", texels.size(), " bytes for a ", width, "x", height, " image that needs ", need);
  Image image(width, height);
  for (uint64_t i = 0, n = uint64_t{width} * height; i < n; ++i) {
    const std::byte* p = texels.data() + i * bpp;
    uint8_t* out = image.rgba.data() + i * 4;
    switch (format) {
      case Format::RGBA8Unorm:
      case Format::RGBA8Srgb: std::memcpy(out, p, 4); break;
      case Format::BGRA8Unorm:
        out[0] = std::to_integer<uint8_t>(p[2]);
        out[1] = std::to_integer<uint8_t>(p[1]);
        out[2] = std::to_integer<uint8_t>(p[0]);
        out[3] = std::to_integer<uint8_t>(p[3]);
        break;
      case Format::RGBA16Float:
        for (int c = 0; c < 4; ++c) out[c] = unorm8(halfToFloat(load<uint16_t>(p + 2 * c)));
        break;
      case Format::RGBA32Float:
        for (int c = 0; c < 4; ++c) out[c] = unorm8(load<float>(p + 4 * c));
        break;
      case Format::RGB32Float:
        for (int c = 0; c < 3; ++c) out[c] = unorm8(load<float>(p + 4 * c));
        out[3] = 255;
        break;
      case Format::RG32Float:
        out[0] = unorm8(load<float>(p));
        out[1] = unorm8(load<float>(p + 4));
        out[2] = 0;
        out[3] = 255;
        break;
      case Format::R32Float:
        out[0] = unorm8(load<float>(p));
        out[1] = out[2] = 0;
        out[3] = 255;
        break;
      case Format::D32Float:
        out[0] = out[1] = out[2] = unorm8(load<float>(p));
        out[3] = 255;
        break;
      case Format::D24UnormS8: {
        const uint32_t v = load<uint32_t>(p) & 0xffffff;  // depth in the low 24 bits
        out[0] = out[1] = out[2] = static_cast<uint8_t>(v >> 16);
        out[3] = 255;
        break;
      }
      case Format::Undefined: return fail("cannot convert texels of an undefined format");
    }
  }
  return image;
}

}  // namespace reel::image
