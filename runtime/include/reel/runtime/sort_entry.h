#pragma once
// One key of a frame as the render thread sorts it (frame.h: FrameView::sorted). The sort is a stable
// radix sort on `key`; ties keep merge order (`sequence`), so a frame's order is a function of its keys.

#include <cstdint>

namespace reel {

struct SortEntry {
  uint64_t key;
  uint32_t sequence;  // position before sorting (merge order): what ties fall back to
  uint32_t value;     // carried along, never compared: the renderer's packet offset (frame.h)
};

}  // namespace reel
