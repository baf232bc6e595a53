#pragma once
// The small enums that packets and descriptors carry. Each has a name table so that field tables,
// `reel dump` and the viewer can print values by name. Values are stored on disk: append, never reorder.

#include <cstdint>
#include <span>

namespace reel {

#define REEL_ENUM_NAMES(Enum, ...)                               \
  inline constexpr const char* k##Enum##Names[] = {__VA_ARGS__}; \
  constexpr std::span<const char* const> enumNames(Enum) {       \
    return k##Enum##Names;                                       \
  }

enum class Format : uint8_t {
  Undefined,
  RGBA8Unorm,
  BGRA8Unorm,
  RGBA8Srgb,
  RGBA16Float,
  RGBA32Float,
  R32Float,
  RG32Float,
  RGB32Float,
  D32Float,
  D24UnormS8
};
REEL_ENUM_NAMES(Format, "undefined", "rgba8_unorm", "bgra8_unorm", "rgba8_srgb", "rgba16_float",
                "rgba32_float", "r32_float", "rg32_float", "rgb32_float", "d32_float", "d24_unorm_s8")

// Where a buffer lives (Granite's memory domains).
enum class MemoryDomain : uint8_t { Device, HostUpload, HostReadback };
REEL_ENUM_NAMES(MemoryDomain, "device", "host_upload", "host_readback")

enum class ShaderStage : uint8_t { Vertex, Fragment, Compute };
REEL_ENUM_NAMES(ShaderStage, "vertex", "fragment", "compute")

enum class IndexType : uint8_t { U16, U32 };
REEL_ENUM_NAMES(IndexType, "u16", "u32")

enum class Topology : uint8_t { TriangleList, TriangleStrip, LineList, PointList };
REEL_ENUM_NAMES(Topology, "triangle_list", "triangle_strip", "line_list", "point_list")

enum class CullMode : uint8_t { None, Back, Front };
REEL_ENUM_NAMES(CullMode, "none", "back", "front")

enum class CompareOp : uint8_t { Never, Less, LessOrEqual, Equal, Greater, GreaterOrEqual, Always };
REEL_ENUM_NAMES(CompareOp, "never", "less", "less_or_equal", "equal", "greater", "greater_or_equal", "always")

// The blend modes of the key's translucency field, plus premultiplied alpha.
enum class BlendMode : uint8_t { Opaque, Alpha, Additive, Subtractive, Premultiplied };
REEL_ENUM_NAMES(BlendMode, "opaque", "alpha", "additive", "subtractive", "premultiplied")

enum class Filter : uint8_t { Nearest, Linear };
REEL_ENUM_NAMES(Filter, "nearest", "linear")

enum class AddressMode : uint8_t { Repeat, ClampToEdge, MirroredRepeat };
REEL_ENUM_NAMES(AddressMode, "repeat", "clamp_to_edge", "mirrored_repeat")

enum class LoadOp : uint8_t { Clear, Load, DontCare };
REEL_ENUM_NAMES(LoadOp, "clear", "load", "dont_care")

// The queue a declared pass prefers (PassDesc::queue).
enum class QueueClass : uint8_t { Graphics, AsyncCompute, Transfer };
REEL_ENUM_NAMES(QueueClass, "graphics", "async_compute", "transfer")

// Bit flags are stored as plain integers; these name the bits.
namespace buffer_usage {
inline constexpr uint32_t kVertex = 1u << 0, kIndex = 1u << 1, kUniform = 1u << 2, kStorage = 1u << 3,
                          kTransferSrc = 1u << 4, kTransferDst = 1u << 5;
}
namespace texture_usage {
inline constexpr uint32_t kSampled = 1u << 0, kColorTarget = 1u << 1, kDepthTarget = 1u << 2,
                          kStorage = 1u << 3, kTransferSrc = 1u << 4, kTransferDst = 1u << 5;
// The texture's contents do not outlive the frame: where a frame's passes write it before reading it,
// its memory may be shared with other transient textures whose passes do not overlap (aliasing), so what
// it held at the frame's start is undefined.
inline constexpr uint32_t kTransient = 1u << 6;
}  // namespace texture_usage

uint32_t formatBytesPerPixel(Format format);
bool isDepthFormat(Format format);

}  // namespace reel
