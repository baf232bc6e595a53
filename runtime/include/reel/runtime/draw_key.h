#pragma once
// The 64-bit draw key (Ericson, "Order your graphics draw calls around!"; seed 001). Sorting the keys
// as unsigned integers orders a frame: viewport, then view layer, then translucency, then either custom
// commands by priority or draws by material/depth.
//
//  63   61 60    57 56  55  54  53                                                              0
//  +------+--------+------+---+-----------------------------------------------------------------+
//  | vp 3 | layer 4| tr 2 |cmd|                        mode bits (54)                           |
//  +------+--------+------+---+-----------------------------------------------------------------+
//  mode bits, by mode:
//   opaque      (tr = opaque, cmd = 0): | material 20 | pass 4 | depth 30 (front to back)         |
//   transparent (tr != opaque, cmd = 0): | depth 30 (back to front, stored inverted) | material 20 | pass 4 |
//   command     (cmd = 1):              | priority 32 | 0 (22)                                   |
//
// Custom commands (cmd = 1) sort after every draw of their (viewport, layer, translucency) group, in
// priority order: put a render pass's begin in an earlier layer than its draws and its end in the
// group after them, or chain commands with CommandBucket::append.

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace reel {

enum class Translucency : uint8_t { Opaque = 0, Normal = 1, Additive = 2, Subtractive = 3 };
const char* translucencyName(Translucency t);

enum class KeyMode : uint8_t { Opaque, Transparent, Command };

// A material as the key stores it: id + pass (the low bits, for multi-pass materials).
struct MaterialId {
  uint32_t id = 0;
  uint32_t pass = 0;
  friend constexpr bool operator==(MaterialId, MaterialId) = default;
};

// Where a field lives in a key: what the trace header records so that old keys still decode.
// `mode` restricts the field to keys of that mode; `inverted` means the stored value is max - value.
struct KeyFieldLayout {
  const char* name;
  uint8_t shift;
  uint8_t bits;
  int8_t mode;  // -1: every key; else a KeyMode
  bool inverted;
};

struct DecodedDrawKey {
  uint32_t viewport = 0;
  uint32_t layer = 0;
  Translucency translucency = Translucency::Opaque;
  bool command = false;
  MaterialId material;   // draws only
  uint32_t depth = 0;    // draws only, as given to encode (not inverted)
  uint32_t priority = 0; // commands only
  friend constexpr bool operator==(const DecodedDrawKey&, const DecodedDrawKey&) = default;
};

constexpr uint64_t keyFieldMask(uint32_t bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
constexpr uint64_t keyFieldMask(uint32_t bits, uint32_t shift) { return keyFieldMask(bits) << shift; }

struct DrawKey {
  // ---- the bit field: shift and width of every field, side by side ----
  static constexpr uint32_t kViewportBits = 3, kViewportShift = 61;
  static constexpr uint32_t kLayerBits = 4, kLayerShift = 57;
  static constexpr uint32_t kTranslucencyBits = 2, kTranslucencyShift = 55;
  static constexpr uint32_t kCommandBits = 1, kCommandShift = 54;
  // opaque
  static constexpr uint32_t kMaterialBits = 20, kPassBits = 4, kDepthBits = 30;
  static constexpr uint32_t kOpaqueMaterialShift = 34, kOpaquePassShift = 30, kOpaqueDepthShift = 0;
  // transparent
  static constexpr uint32_t kTransparentDepthShift = 24, kTransparentMaterialShift = 4, kTransparentPassShift = 0;
  // command
  static constexpr uint32_t kPriorityBits = 32, kPriorityShift = 22;

  static_assert(kViewportShift + kViewportBits == 64);
  static_assert((keyFieldMask(kViewportBits, kViewportShift) & keyFieldMask(kLayerBits, kLayerShift)) == 0);
  static_assert(kLayerShift == kTranslucencyShift + kTranslucencyBits);
  static_assert(kTranslucencyShift == kCommandShift + kCommandBits);
  static_assert(kOpaqueMaterialShift == kOpaquePassShift + kPassBits && kOpaquePassShift == kOpaqueDepthShift + kDepthBits);
  static_assert(kOpaqueMaterialShift + kMaterialBits == kCommandShift);
  static_assert(kTransparentDepthShift + kDepthBits == kCommandShift);
  static_assert(kTransparentMaterialShift == kTransparentPassShift + kPassBits &&
                kTransparentDepthShift == kTransparentMaterialShift + kMaterialBits);
  static_assert(kPriorityShift + kPriorityBits == kCommandShift);

  static constexpr uint32_t kMaxViewport = keyFieldMask(kViewportBits), kMaxLayer = keyFieldMask(kLayerBits);
  static constexpr uint32_t kMaxMaterial = keyFieldMask(kMaterialBits), kMaxPass = keyFieldMask(kPassBits);
  static constexpr uint32_t kMaxDepth = keyFieldMask(kDepthBits);

  uint64_t bits = 0;

  friend constexpr bool operator==(DrawKey, DrawKey) = default;

  // ---- encode / decode ----
  // Values past a field's width are clamped to its maximum (depth) or asserted against in debug builds.
  static constexpr DrawKey draw(uint32_t viewport, uint32_t layer, Translucency translucency, MaterialId material,
                                uint32_t depth) {
    uint64_t k = header(viewport, layer, translucency, false);
    const uint64_t d = depth > kMaxDepth ? kMaxDepth : depth;
    const uint64_t m = material.id & kMaxMaterial, p = material.pass & kMaxPass;
    if (translucency == Translucency::Opaque) {
      k |= m << kOpaqueMaterialShift | p << kOpaquePassShift | d << kOpaqueDepthShift;
    } else {
      k |= (kMaxDepth - d) << kTransparentDepthShift | m << kTransparentMaterialShift | p << kTransparentPassShift;
    }
    return DrawKey{k};
  }
  static constexpr DrawKey command(uint32_t viewport, uint32_t layer, Translucency translucency, uint32_t priority) {
    return DrawKey{header(viewport, layer, translucency, true) | uint64_t(priority) << kPriorityShift};
  }

  constexpr DecodedDrawKey decode() const {
    DecodedDrawKey d;
    d.viewport = field(kViewportBits, kViewportShift);
    d.layer = field(kLayerBits, kLayerShift);
    d.translucency = static_cast<Translucency>(field(kTranslucencyBits, kTranslucencyShift));
    d.command = field(kCommandBits, kCommandShift) != 0;
    if (d.command) {
      d.priority = field(kPriorityBits, kPriorityShift);
    } else if (d.translucency == Translucency::Opaque) {
      d.material = {field(kMaterialBits, kOpaqueMaterialShift), field(kPassBits, kOpaquePassShift)};
      d.depth = field(kDepthBits, kOpaqueDepthShift);
    } else {
      d.depth = kMaxDepth - field(kDepthBits, kTransparentDepthShift);
      d.material = {field(kMaterialBits, kTransparentMaterialShift), field(kPassBits, kTransparentPassShift)};
    }
    return d;
  }
  static constexpr DrawKey encode(const DecodedDrawKey& d) {
    return d.command ? command(d.viewport, d.layer, d.translucency, d.priority)
                     : draw(d.viewport, d.layer, d.translucency, d.material, d.depth);
  }

  constexpr KeyMode mode() const {
    if (field(kCommandBits, kCommandShift)) return KeyMode::Command;
    return field(kTranslucencyBits, kTranslucencyShift) == 0 ? KeyMode::Opaque : KeyMode::Transparent;
  }

  // Maps a view-space depth in [0, 1] to the key's depth field.
  static constexpr uint32_t quantizeDepth(float depth01) {
    if (!(depth01 > 0.0f)) return 0;
    if (depth01 >= 1.0f) return kMaxDepth;
    return static_cast<uint32_t>(depth01 * static_cast<float>(kMaxDepth));
  }

 private:
  static constexpr uint64_t header(uint32_t viewport, uint32_t layer, Translucency t, bool isCommand) {
    return (uint64_t(viewport) & keyFieldMask(kViewportBits)) << kViewportShift |
           (uint64_t(layer) & keyFieldMask(kLayerBits)) << kLayerShift |
           (uint64_t(static_cast<uint8_t>(t)) & keyFieldMask(kTranslucencyBits)) << kTranslucencyShift |
           uint64_t(isCommand ? 1 : 0) << kCommandShift;
  }
  constexpr uint32_t field(uint32_t width, uint32_t shift) const {
    return static_cast<uint32_t>((bits >> shift) & keyFieldMask(width));
  }
};

// ---- key traits: how a bucket stores, decodes and describes its key type ----
// Every bucket stores keys as 64-bit integers; KeyTraits maps the typed key to and from them, names the
// key type, describes its bit layout (for the trace header) and prints it.
template <typename Key>
struct KeyTraits;

template <>
struct KeyTraits<DrawKey> {
  static constexpr const char* kName = "DrawKey";
  static constexpr uint64_t toBits(DrawKey k) { return k.bits; }
  static constexpr DrawKey fromBits(uint64_t b) { return DrawKey{b}; }
  static std::span<const KeyFieldLayout> layout();
  static std::string format(uint64_t bits);
  // The material a draw key binds, or false for a custom command key.
  static constexpr bool material(uint64_t bits, MaterialId& out) {
    const DecodedDrawKey d = DrawKey{bits}.decode();
    out = d.material;
    return !d.command;
  }
};

// Plain integer keys (a shadow map's depth-only bucket, a post-process bucket's sequence number).
template <typename UInt>
  requires std::is_unsigned_v<UInt>
struct KeyTraits<UInt> {
  static constexpr const char* kName = sizeof(UInt) == 8 ? "u64" : sizeof(UInt) == 4 ? "u32" : sizeof(UInt) == 2 ? "u16" : "u8";
  static constexpr uint64_t toBits(UInt k) { return k; }
  static constexpr UInt fromBits(uint64_t b) { return static_cast<UInt>(b); }
  static std::span<const KeyFieldLayout> layout() {
    static constexpr KeyFieldLayout kLayout[] = {{"value", 0, sizeof(UInt) * 8, -1, false}};
    return kLayout;
  }
  static std::string format(uint64_t bits) { return "value=" + std::to_string(bits); }
  static constexpr bool material(uint64_t, MaterialId&) { return false; }
};

// Decodes a key with a layout read from a trace (any key type, any version), "name=value ..." per field
// that applies to the key's mode. Fields named "command" and "translucency" select the mode.
std::string formatKeyWithLayout(uint64_t bits, std::span<const KeyFieldLayout> layout);

}  // namespace reel
