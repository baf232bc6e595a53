#pragma once
// Getting pixels of a frame back to the CPU without stalling the render thread: the app asks, from any
// thread, for a texture's contents as they are at the end of frame N (Device::requestReadback). The
// device copies the texture when it ends frame N and calls back, on the render thread, once that frame's
// work is finished; nothing waits for the GPU early.
//
// (device.h shows a request.)

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "reel/runtime/enums.h"
#include "reel/runtime/handle.h"
#include "reel/runtime/result.h"

namespace reel {

struct ReadbackImage {
  uint64_t frame = 0;
  TextureHandle texture;
  uint32_t width = 0;
  uint32_t height = 0;
  Format format = Format::Undefined;
  std::vector<std::byte> pixels;  // mip 0, tightly packed rows, the texture's own format
};

// Runs on the render thread. A failed result says why (texture destroyed, frame already past, device lost).
using ReadbackCallback = std::function<void(Result<ReadbackImage>)>;

}  // namespace reel
