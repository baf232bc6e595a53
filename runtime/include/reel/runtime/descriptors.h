#pragma once
// Resource descriptors, expanded from descriptors.inc.

#include <cstddef>
#include <cstdint>

#include "reel/runtime/enums.h"
#include "reel/runtime/fields.h"
#include "reel/runtime/handle.h"

namespace reel {

#define REEL_FIELD(type, name) type name{};
#define REEL_ARRAY(type, name, count) type name[count]{};
#define REEL_STRUCT(Name, ...) \
  struct Name {                \
    __VA_ARGS__                \
  };
#include "reel/runtime/descriptors.inc"
#undef REEL_STRUCT
#undef REEL_ARRAY
#undef REEL_FIELD

// The trailing empty entry lets a struct without fields expand to a legal array.
#define REEL_FIELD(type, name) makeField<type>(#name, offsetof(Self, name), 1),
#define REEL_ARRAY(type, name, count) makeField<type>(#name, offsetof(Self, name), count),
#define REEL_STRUCT(Name, ...)                                                                   \
  template <>                                                                                    \
  struct FieldsOf<Name> {                                                                        \
    using Self = Name;                                                                           \
    static constexpr FieldInfo kTable[] = {__VA_ARGS__ FieldInfo{}};                             \
    static constexpr std::span<const FieldInfo> fields() { return {kTable, std::size(kTable) - 1}; } \
  };
#include "reel/runtime/descriptors.inc"
#undef REEL_STRUCT
#undef REEL_ARRAY
#undef REEL_FIELD

}  // namespace reel
