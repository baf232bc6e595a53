#include "reel/runtime/draw_key.h"

#include <gtest/gtest.h>

#include <random>

namespace reel {
namespace {

TEST(DrawKey, OpaqueRoundTripsEveryFieldAtItsEdges) {
  for (uint32_t viewport : {0u, 1u, DrawKey::kMaxViewport}) {
    for (uint32_t layer : {0u, 5u, DrawKey::kMaxLayer}) {
      for (uint32_t material : {0u, 1u, 12345u, DrawKey::kMaxMaterial}) {
        for (uint32_t pass : {0u, 3u, DrawKey::kMaxPass}) {
          for (uint32_t depth : {0u, 1u, DrawKey::kMaxDepth / 2, DrawKey::kMaxDepth}) {
            const DrawKey key = DrawKey::draw(viewport, layer, Translucency::Opaque, {material, pass}, depth);
            const DecodedDrawKey d = key.decode();
            EXPECT_EQ(d.viewport, viewport);
            EXPECT_EQ(d.layer, layer);
            EXPECT_EQ(d.translucency, Translucency::Opaque);
            EXPECT_FALSE(d.command);
            EXPECT_EQ(d.material, (MaterialId{material, pass}));
            EXPECT_EQ(d.depth, depth);
            EXPECT_EQ(key.mode(), KeyMode::Opaque);
            EXPECT_EQ(DrawKey::encode(d), key);
          }
        }
      }
    }
  }
}

TEST(DrawKey, TransparentAndCommandRoundTrip) {
  for (Translucency t : {Translucency::Normal, Translucency::Additive, Translucency::Subtractive}) {
    for (uint32_t depth : {0u, 77u, DrawKey::kMaxDepth}) {
      const DrawKey key = DrawKey::draw(DrawKey::kMaxViewport, 2, t, {DrawKey::kMaxMaterial, 1}, depth);
      const DecodedDrawKey d = key.decode();
      EXPECT_EQ(d.translucency, t);
      EXPECT_EQ(d.depth, depth);
      EXPECT_EQ(d.material, (MaterialId{DrawKey::kMaxMaterial, 1}));
      EXPECT_EQ(key.mode(), KeyMode::Transparent);
      EXPECT_EQ(DrawKey::encode(d), key);
    }
  }
  for (uint32_t priority : {0u, 1u, 0xffffffffu}) {
    const DrawKey key = DrawKey::command(3, DrawKey::kMaxLayer, Translucency::Additive, priority);
    const DecodedDrawKey d = key.decode();
    EXPECT_TRUE(d.command);
    EXPECT_EQ(d.priority, priority);
    EXPECT_EQ(d.viewport, 3u);
    EXPECT_EQ(d.layer, DrawKey::kMaxLayer);
    EXPECT_EQ(key.mode(), KeyMode::Command);
    EXPECT_EQ(DrawKey::encode(d), key);
  }
}

TEST(DrawKey, OutOfRangeValuesDoNotSpillIntoOtherFields) {
  const DrawKey key = DrawKey::draw(9, 17, Translucency::Opaque, {DrawKey::kMaxMaterial + 5, 16}, ~0u);
  const DecodedDrawKey d = key.decode();
  EXPECT_EQ(d.viewport, 9u & DrawKey::kMaxViewport);
  EXPECT_EQ(d.layer, 17u & DrawKey::kMaxLayer);
  EXPECT_EQ(d.depth, DrawKey::kMaxDepth);  // depth clamps
  EXPECT_EQ(d.material.id, (DrawKey::kMaxMaterial + 5) & DrawKey::kMaxMaterial);
  EXPECT_EQ(d.material.pass, 0u);
}

TEST(DrawKey, SortOrderFollowsTheFields) {
  auto opaque = [](uint32_t vp, uint32_t layer, uint32_t material, uint32_t depth) {
    return DrawKey::draw(vp, layer, Translucency::Opaque, {material, 0}, depth).bits;
  };
  EXPECT_LT(opaque(0, 7, 999, 999), opaque(1, 0, 0, 0));           // viewport first
  EXPECT_LT(opaque(0, 1, 999, 999), opaque(0, 2, 0, 0));           // then layer
  EXPECT_LT(opaque(0, 1, 1, 999), opaque(0, 1, 2, 0));             // opaque: material before depth
  EXPECT_LT(opaque(0, 1, 5, 10), opaque(0, 1, 5, 20));             // front to back
  const auto transparent = [](uint32_t material, uint32_t depth) {
    return DrawKey::draw(0, 1, Translucency::Normal, {material, 0}, depth).bits;
  };
  EXPECT_LT(transparent(0, 20), transparent(0, 10));               // back to front
  EXPECT_LT(transparent(9, 20), transparent(1, 10));               // depth before material
  EXPECT_LT(opaque(0, 1, DrawKey::kMaxMaterial, DrawKey::kMaxDepth), transparent(0, DrawKey::kMaxDepth));
  // Custom commands follow the draws of their group, in priority order.
  const uint64_t cmd1 = DrawKey::command(0, 1, Translucency::Opaque, 1).bits;
  const uint64_t cmd2 = DrawKey::command(0, 1, Translucency::Opaque, 2).bits;
  EXPECT_LT(opaque(0, 1, DrawKey::kMaxMaterial, DrawKey::kMaxDepth), cmd1);
  EXPECT_LT(cmd1, cmd2);
  EXPECT_LT(cmd2, transparent(0, 0));
}

TEST(DrawKey, LayoutDecoderAgreesWithTheTypedDecoder) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t bits = rng();
    const DecodedDrawKey d = DrawKey{bits}.decode();
    std::string expected = "viewport=" + std::to_string(d.viewport) + " layer=" + std::to_string(d.layer) +
                           " translucency=" + translucencyName(d.translucency) +
                           " command=" + std::to_string(d.command ? 1 : 0);
    if (d.command) {
      expected += " priority=" + std::to_string(d.priority);
    } else if (d.translucency == Translucency::Opaque) {
      expected += " material=" + std::to_string(d.material.id) + " pass=" + std::to_string(d.material.pass) +
                  " depth=" + std::to_string(d.depth);
    } else {
      expected += " depth=" + std::to_string(d.depth) + " material=" + std::to_string(d.material.id) +
                  " pass=" + std::to_string(d.material.pass);
    }
    ASSERT_EQ(KeyTraits<DrawKey>::format(bits), expected);
  }
}

TEST(DrawKey, LayoutFieldsOfOneModeDoNotOverlap) {
  for (int mode = 0; mode < 3; ++mode) {
    uint64_t used = 0;
    for (const KeyFieldLayout& f : KeyTraits<DrawKey>::layout()) {
      if (f.mode != -1 && f.mode != mode) continue;
      const uint64_t m = keyFieldMask(f.bits, f.shift);
      EXPECT_EQ(used & m, 0u) << f.name << " overlaps in mode " << mode;
      used |= m;
    }
    if (mode != static_cast<int>(KeyMode::Command)) {
      EXPECT_EQ(used, ~0ull) << "mode " << mode << " leaves bits unused";
    }
  }
}

TEST(KeyTraits, IntegerKeysPrintTheirValue) {
  EXPECT_EQ(KeyTraits<uint32_t>::format(1234), "value=1234");
  EXPECT_EQ(formatKeyWithLayout(77, KeyTraits<uint16_t>::layout()), "value=77");
}

}  // namespace
}  // namespace reel
