#pragma once
// Texels as Device::readTexture returns them (tightly packed rows in the texture's own format) turned
// into an RGBA8 image to look at: colour formats exactly as reel::image::fromTexels turns them (what
// `reel replay` writes to PNGs, so that the image panel and reel's PNGs agree); depth as grey stretched
// over the range the image holds, near dark and far bright, so that a depth buffer whose values sit
// close to 1 does not look uniformly white.

#include <cstdint>
#include <span>

#include "reel/image/image.h"
#include "reel/runtime/enums.h"
#include "reel/runtime/result.h"

namespace reel::viewer {

Result<image::Image> texelsToImage(std::span<const std::byte> texels, uint32_t width, uint32_t height,
                                   Format format);

}  // namespace reel::viewer
