#pragma once
// A packet (or a descriptor inside one) field by field, with the field table its trace recorded, so the
// Inspector and the Resources panel print any packet by name, also one of an older layout. Values are
// formatted by the runtime's formatFields(), one element at a time; handles are kept as numbers too,
// for click-through. Also: hex and float views of auxiliary data, a line at a time (for a clipper).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reel/runtime/fields.h"
#include "reel/runtime/handle.h"

namespace reel::viewer {

struct FieldRow {
  std::string name;   // "desc.colors[1]", "clearColor[0]"
  std::string value;  // as formatFields prints it; "?" past the end of the bytes
  int depth = 0;      // nesting level (0: a field of the packet)
  bool isStruct = false;
  ResourceKind handleKind = ResourceKind::Count;  // set for handles
  uint32_t handle = 0;                            // the handle's value (0: null)
};

std::vector<FieldRow> flattenFields(std::span<const FieldInfo> fields, std::span<const std::byte> bytes);

struct HandleRef {
  ResourceKind kind;
  uint32_t handle;
  std::string field;
};
// The non-null handles a packet names, in field order.
std::vector<HandleRef> handleRefs(std::span<const FieldInfo> fields, std::span<const std::byte> bytes);

// A u32/u64/handle/enum field by name (top level or "desc.width"), for stats and resource lookups.
std::optional<uint64_t> readField(std::span<const FieldInfo> fields, std::span<const std::byte> bytes,
                                  std::string_view path);

// "texture#3.1", as formatFields prints handles.
std::string handleName(ResourceKind kind, uint32_t handle);

// Line `line` (16 bytes each) of a hex dump: "00000010  01 02 ...  |ascii...|".
std::string hexLine(std::span<const std::byte> bytes, size_t line);
inline size_t hexLineCount(size_t bytes) {
  return (bytes + 15) / 16;
}
// Line `line` (4 floats each) of the bytes read as little-endian floats: "0010  1 0.5 -2 nan".
std::string floatLine(std::span<const std::byte> bytes, size_t line);
inline size_t floatLineCount(size_t bytes) {
  return (bytes / 4 + 3) / 4;
}

}  // namespace reel::viewer
