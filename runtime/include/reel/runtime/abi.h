#pragma once
// What an app's code was compiled against, checked by the library when a Renderer is made: the reel
// version and a hash of every layout that crosses the line between app and library (packet and key
// headers, tags, every command's size and fields). An app built against other headers than the library
// it links (another reel version, a changed commands.inc) stops at start-up with a message naming both,
// instead of corrupting packets. Nothing an app can define changes these layouts.

#include <cstdint>

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/commands.h"
#include "reel/runtime/tags.h"
#include "reel/version.h"

namespace reel {

struct AbiStamp {
  uint64_t layout = 0;
  const char* version = "";

  // Evaluated where it is written: in a default argument, in the app's own translation unit.
  static constexpr AbiStamp current() { return {layoutHash(), REEL_VERSION_STRING}; }

  static constexpr uint64_t layoutHash() {
    uint64_t hash = 14695981039346656037ull;  // FNV-1a
    const auto mix = [&hash](uint64_t value) {
      for (int byte = 0; byte < 8; ++byte) {
        hash ^= (value >> (8 * byte)) & 0xff;
        hash *= 1099511628211ull;
      }
    };
    mix(sizeof(PacketHeader));
    mix(alignof(PacketHeader));
    mix(sizeof(KeyEntry));
    mix(sizeof(TagRecord));
    mix(kCommandTypeCount);
#define REEL_COMMAND(Name, Semantics, ...)                           \
  mix(sizeof(cmd::Name));                                        \
  mix(static_cast<uint64_t>(cmd::Name::kSemantics.category));    \
  mix(static_cast<uint64_t>(cmd::Name::kSemantics.resource));    \
  mix(static_cast<uint64_t>(cmd::Name::kSemantics.state));       \
  for (const FieldInfo& field : FieldsOf<cmd::Name>::fields()) { \
    mix(field.offset);                                           \
    mix(field.size);                                             \
    mix(field.count);                                            \
    mix(static_cast<uint64_t>(field.type));                      \
  }
#include "reel/runtime/commands.inc"
#undef REEL_COMMAND
    return hash;
  }
};

namespace detail {
// Aborts with a message naming both when `app` is not what the library was built with.
void checkAbi(const AbiStamp& app);
}  // namespace detail

}  // namespace reel
