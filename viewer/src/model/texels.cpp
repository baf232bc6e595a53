#include "model/texels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "reel/image/texels.h"

namespace reel::viewer {

Result<image::Image> texelsToImage(std::span<const std::byte> texels, uint32_t width, uint32_t height,
                                   Format format) {
  if (!isDepthFormat(format)) return image::fromTexels(width, height, format, texels);
  const uint64_t need = uint64_t{width} * height * 4;
  if (texels.size() != need) {
    return fail(width, "x", height, " depth texels need ", need, " bytes, the readback has ", texels.size());
  }
  const size_t n = size_t{width} * height;
  std::vector<float> depth(n);
  for (size_t i = 0; i < n; ++i) {
    if (format == Format::D32Float) {
      std::memcpy(&depth[i], texels.data() + i * 4, 4);
    } else {
      uint32_t packed;  // D24S8 comes back as 32-bit words, depth in the low 24 bits
      std::memcpy(&packed, texels.data() + i * 4, 4);
      depth[i] = static_cast<float>(packed & 0xffffffu) / 16777215.0f;
    }
  }
  float lo = INFINITY, hi = -INFINITY;
  for (const float d : depth) {
    if (std::isfinite(d)) lo = std::min(lo, d), hi = std::max(hi, d);
  }
  // One value everywhere (a cleared buffer): show it as it is.
  const float base = hi > lo ? lo : 0.0f, range = hi > lo ? hi - lo : 1.0f;
  image::Image out(width, height);
  for (size_t i = 0; i < n; ++i) {
    const float v = std::isfinite(depth[i]) ? std::clamp((depth[i] - base) / range, 0.0f, 1.0f) : 0.0f;
    const auto g = static_cast<uint8_t>(std::lround(v * 255.0f));
    out.rgba[i * 4 + 0] = out.rgba[i * 4 + 1] = out.rgba[i * 4 + 2] = g;
    out.rgba[i * 4 + 3] = 255;
  }
  return out;
}

}  // namespace reel::viewer
