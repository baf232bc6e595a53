#pragma once
// A key's fields by name, decoded with the layout its trace recorded (TraceHeader::keyLayout), the same
// way formatKeyWithLayout() prints them: fields named "command" and "translucency" select the key's
// mode, and only the fields of that mode apply. The Commands panel filters on these values, so they
// are numbers here, not text.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "reel/runtime/draw_key.h"

namespace reel::viewer {

struct KeyField {
  std::string_view name;  // points into the layout
  uint64_t value = 0;
};

// The mode a key has under `layout`: -1 when the layout has no mode selector (plain integer keys).
int keyMode(uint64_t bits, std::span<const KeyFieldLayout> layout);

// Every field of `layout` that applies to the key, in layout order; `out` is cleared first.
void decodeKey(uint64_t bits, std::span<const KeyFieldLayout> layout, std::vector<KeyField>& out);

// One field by name, or nothing when the layout has no such field for the key's mode.
std::optional<uint64_t> keyField(uint64_t bits, std::span<const KeyFieldLayout> layout,
                                 std::string_view name);

// keyField() for one name and layout, looked up once: what filters and stats use over a million keys.
class KeyFieldReader {
 public:
  KeyFieldReader() = default;
  KeyFieldReader(std::span<const KeyFieldLayout> layout, std::string_view name);
  std::optional<uint64_t> read(uint64_t bits) const;
  bool exists() const { return !candidates_.empty(); }

 private:
  const KeyFieldLayout* command_ = nullptr;
  const KeyFieldLayout* translucency_ = nullptr;
  std::vector<const KeyFieldLayout*> candidates_;  // the fields of that name, each for its mode
};

}  // namespace reel::viewer
