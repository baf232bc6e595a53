#include "reel/runtime/draw_key.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace reel {

std::span<const KeyFieldLayout> KeyTraits<DrawKey>::layout() {
  using K = DrawKey;
  constexpr int8_t kAll = -1, kOpaque = static_cast<int8_t>(KeyMode::Opaque),
                   kTransparent = static_cast<int8_t>(KeyMode::Transparent),
                   kCommand = static_cast<int8_t>(KeyMode::Command);
  static constexpr KeyFieldLayout kLayout[] = {
      {"viewport", K::kViewportShift, K::kViewportBits, kAll, false},
      {"layer", K::kLayerShift, K::kLayerBits, kAll, false},
      {"translucency", K::kTranslucencyShift, K::kTranslucencyBits, kAll, false},
      {"command", K::kCommandShift, K::kCommandBits, kAll, false},
      {"material", K::kOpaqueMaterialShift, K::kMaterialBits, kOpaque, false},
      {"pass", K::kOpaquePassShift, K::kPassBits, kOpaque, false},
      {"depth", K::kOpaqueDepthShift, K::kDepthBits, kOpaque, false},
      {"depth", K::kTransparentDepthShift, K::kDepthBits, kTransparent, true},
      {"material", K::kTransparentMaterialShift, K::kMaterialBits, kTransparent, false},
      {"pass", K::kTransparentPassShift, K::kPassBits, kTransparent, false},
      {"priority", K::kPriorityShift, K::kPriorityBits, kCommand, false},
  };
  return kLayout;
}

std::string KeyTraits<DrawKey>::format(uint64_t bits) {
  return formatKeyWithLayout(bits, layout());
}

std::string formatKeyWithLayout(uint64_t bits, std::span<const KeyFieldLayout> layout) {
  auto extract = [bits](const KeyFieldLayout& f) -> uint64_t {
    if (f.bits == 0 || f.shift >= 64) return 0;
    const uint64_t mask = f.bits >= 64 ? ~0ull : (1ull << f.bits) - 1;
    const uint64_t v = (bits >> f.shift) & mask;
    return f.inverted ? mask - v : v;
  };
  // The mode selects which of the overlapping fields apply.
  int8_t mode = -1;
  bool hasSelector = false;
  uint64_t command = 0, translucency = 0;
  for (const KeyFieldLayout& f : layout) {
    if (std::strcmp(f.name, "command") == 0) command = extract(f), hasSelector = true;
    if (std::strcmp(f.name, "translucency") == 0) translucency = extract(f), hasSelector = true;
  }
  if (hasSelector) {
    mode = static_cast<int8_t>(command             ? KeyMode::Command
                               : translucency == 0 ? KeyMode::Opaque
                                                   : KeyMode::Transparent);
  }
  std::string out;
  char buf[48];
  for (const KeyFieldLayout& f : layout) {
    if (f.mode != -1 && f.mode != mode) continue;
    if (!out.empty()) out += ' ';
    out += f.name;
    out += '=';
    const uint64_t v = extract(f);
    if (std::strcmp(f.name, "translucency") == 0 && v < 4) {
      out += translucencyName(static_cast<Translucency>(v));
      continue;
    }
    std::snprintf(buf, sizeof buf, "%" PRIu64, v);
    out += buf;
  }
  return out;
}

}  // namespace reel
