#pragma once
// Texels as a device reads them back (any reel::Format) into the RGBA8 Image that PNGs and comparisons
// use: 8-bit formats are copied (BGRA swizzled), float formats are clamped to [0, 1] and rounded, single-
// and two-channel formats fill the missing channels with 0 and alpha with 255, depth becomes grey.

#include <span>

#include "reel/image/image.h"
#include "reel/runtime/enums.h"

namespace reel::image {

Result<Image> fromTexels(uint32_t width, uint32_t height, Format format, std::span<const std::byte> texels);

}  // namespace reel::image
