#pragma once
// Where a key goes in the frame before any key is compared: the render thread sorts by (pass, order,
// key).
//
// Pass: the declared pass a key names (CommandBucket::add(PassId, key); ResourceContext::declarePass).
// Passes run in the order they were declared; keys that name none (PassId{}, what add(key) records)
// sort after every declared pass, so a frame that declares no pass sorts exactly as before passes existed.
//
// Order: buckets of different key types cannot be ordered by their keys (an integer-keyed post bucket's
// small keys would sort before almost every DrawKey), so each declares its stage (BucketConfig::order).
// Values between the named ones are allowed (static_cast); buckets of one order sort by key alone, as do
// all buckets of a trace recorded before bucket order existed (they read as Scene).

#include <cstdint>

namespace reel {

enum class BucketOrder : uint8_t { First = 0, Shadow = 64, Scene = 128, Post = 192, Last = 255 };

// A frame's declared pass, numbered from 0 in declaration order every frame.
struct PassId {
  static constexpr uint16_t kNone = 0xFFFF;      // no declared pass: sorts after every declared pass
  static constexpr uint32_t kMaxPasses = kNone;  // passes a frame may declare

  uint16_t value = kNone;
  constexpr bool declared() const { return value != kNone; }
  friend constexpr bool operator==(PassId, PassId) = default;
};

// The 24 bits above a key in the frame's sort (radix_sort.h's major): pass, then bucket order.
constexpr uint32_t sortPrefix(uint16_t pass, BucketOrder order) {
  return uint32_t{pass} << 8 | static_cast<uint8_t>(order);
}
constexpr uint16_t passOfPrefix(uint32_t prefix) {
  return static_cast<uint16_t>(prefix >> 8);
}

}  // namespace reel
