#pragma once
// Where a bucket's keys go in the frame, before any key is compared: the render thread sorts by (order,
// key). Buckets of different key types cannot be ordered by their keys (an integer-keyed post bucket's
// small keys would sort before almost every DrawKey), so each declares its stage (BucketConfig::order).
// Values between the named ones are allowed (static_cast); buckets of one order sort by key alone, as do
// all buckets of a trace recorded before bucket order existed (they read as Scene).

#include <cstdint>

namespace reel {

enum class BucketOrder : uint8_t { First = 0, Shadow = 64, Scene = 128, Post = 192, Last = 255 };

}  // namespace reel
