#pragma once
// Field tables: the (name, offset, type) of every field of a packet or descriptor, derived from the one
// declaration in commands.inc / descriptors.inc. They let any packet be printed by field name, and are
// written into a trace's header so that a reader can print packets of an older layout.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "reel/runtime/enums.h"
#include "reel/runtime/handle.h"

namespace reel {

enum class FieldType : uint8_t { Bool, U8, U16, U32, U64, I8, I16, I32, I64, F32, F64, Enum, Handle, Struct };
const char* fieldTypeName(FieldType type);

struct FieldInfo {
  const char* name = nullptr;
  uint32_t offset = 0;
  uint32_t size = 0;   // bytes of one element
  uint32_t count = 0;  // array length; 1 for a plain field
  FieldType type = FieldType::U8;
  ResourceKind handleKind = ResourceKind::Count;  // for FieldType::Handle
  std::span<const char* const> enumNames;         // for FieldType::Enum
  std::span<const FieldInfo> children;            // for FieldType::Struct
};

// Specialised for every struct in descriptors.inc and every command in commands.inc.
template <typename T>
struct FieldsOf;

template <typename T>
struct IsHandle : std::false_type {};
template <ResourceKind K>
struct IsHandle<Handle<K>> : std::true_type {};

template <typename T>
constexpr FieldInfo makeField(const char* name, size_t offset, uint32_t count) {
  FieldInfo field;
  field.name = name;
  field.offset = static_cast<uint32_t>(offset);
  field.size = sizeof(T);
  field.count = count;
  if constexpr (std::is_same_v<T, bool>) {
    field.type = FieldType::Bool;
  } else if constexpr (std::is_enum_v<T>) {
    field.type = FieldType::Enum;
    field.enumNames = enumNames(T{});
  } else if constexpr (IsHandle<T>::value) {
    field.type = FieldType::Handle;
    field.handleKind = T::kKind;
  } else if constexpr (std::is_same_v<T, float>) {
    field.type = FieldType::F32;
  } else if constexpr (std::is_same_v<T, double>) {
    field.type = FieldType::F64;
  } else if constexpr (std::is_integral_v<T>) {
    constexpr FieldType kUnsigned[] = {FieldType::U8, FieldType::U16, FieldType::U32, FieldType::U64};
    constexpr FieldType kSigned[] = {FieldType::I8, FieldType::I16, FieldType::I32, FieldType::I64};
    constexpr int kLog2 = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
    field.type = std::is_signed_v<T> ? kSigned[kLog2] : kUnsigned[kLog2];
  } else {
    field.type = FieldType::Struct;
    field.children = FieldsOf<T>::fields();
  }
  return field;
}

// "name=value name=[a, b] desc={width=4 ...}" for a block of bytes laid out as `fields` describe.
// Reads only inside [data, data + size): a field past the end prints as "?".
std::string formatFields(std::span<const FieldInfo> fields, const void* data, size_t size);
// `pattern` with every "{path}" replaced by the value of the field at that dotted path ("desc.width"),
// printed as formatFields prints it; "?" for a path the fields lack or that lies past `size`.
std::string formatSummary(std::string_view pattern, std::span<const FieldInfo> fields, const void* data,
                          size_t size);

// Copies every field of a block laid out as `fields` describe (nested structs field by field), and no
// padding: padding of a caller's struct is indeterminate, and packets go to traces byte for byte, so a
// packet built from a caller's descriptor keeps its own (zeroed) padding.
void copyFields(std::span<const FieldInfo> fields, const void* from, void* to);

// A stable 64-bit hash of a field table (names, types, offsets, sizes, counts, nested), so that a reader
// can tell whether a packet layout in a trace is the one it was built with.
uint64_t hashFields(std::span<const FieldInfo> fields);

}  // namespace reel
