// Printable names of the runtime's small enums.

#include "reel/runtime/draw_key.h"
#include "reel/runtime/enums.h"
#include "reel/runtime/fields.h"
#include "reel/runtime/handle.h"

namespace reel {

const char* resourceKindName(ResourceKind kind) {
  static constexpr const char* kNames[] = {
#define REEL_RESOURCE_KIND(Kind, name, Contents, summary) #name,
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND
  };
  const auto i = static_cast<size_t>(kind);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

const char* resourceSummaryOf(ResourceKind kind) {
  static constexpr const char* kSummaries[] = {
#define REEL_RESOURCE_KIND(Kind, name, Contents, summary) summary,
#include "reel/runtime/resource_kinds.inc"
#undef REEL_RESOURCE_KIND
  };
  const auto i = static_cast<size_t>(kind);
  return i < std::size(kSummaries) ? kSummaries[i] : "";
}

std::string formatHandle(ResourceKind kind, uint32_t value) {
  if (value == 0) return "null";
  return std::string(resourceKindName(kind)) + "#" + std::to_string(value & kHandleIndexMask) + "." +
         std::to_string(value >> kHandleIndexBits);
}

const char* handleStateName(HandleState state) {
  switch (state) {
    case HandleState::Live:
      return "live";
    case HandleState::Null:
      return "null";
    case HandleState::Stale:
      return "stale";
    case HandleState::Foreign:
      return "foreign";
  }
  return "unknown";
}

const char* fieldTypeName(FieldType type) {
  static constexpr const char* kNames[] = {"bool", "u8",  "u16", "u32", "u64",  "i8",     "i16",
                                           "i32",  "i64", "f32", "f64", "enum", "handle", "struct"};
  const auto i = static_cast<size_t>(type);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

const char* translucencyName(Translucency t) {
  switch (t) {
    case Translucency::Opaque:
      return "opaque";
    case Translucency::Normal:
      return "normal";
    case Translucency::Additive:
      return "additive";
    case Translucency::Subtractive:
      return "subtractive";
  }
  return "unknown";
}

uint32_t formatBytesPerPixel(Format format) {
  switch (format) {
    case Format::Undefined:
      return 0;
    case Format::RGBA8Unorm:
    case Format::BGRA8Unorm:
    case Format::RGBA8Srgb:
    case Format::R32Float:
    case Format::D32Float:
    case Format::D24UnormS8:
      return 4;
    case Format::RGBA16Float:
    case Format::RG32Float:
      return 8;
    case Format::RGB32Float:
      return 12;
    case Format::RGBA32Float:
      return 16;
  }
  return 0;
}

bool isDepthFormat(Format format) {
  return format == Format::D32Float || format == Format::D24UnormS8;
}

}  // namespace reel
