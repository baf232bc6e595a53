#pragma once
// The generated message types (trace.fbs, namespace reel::fb) and what writer and reader both need
// to name them.

#include <cstdint>
#include <string>

#include "reel/schema/container.h"
#include "reel/schema/trace_generated.h"

namespace reel::schema {

// "Frame", "Header", ..., or "unknown message kind 42" for a kind this build does not know (a newer
// minor version may add kinds; a reader skips them).
std::string messageKindName(uint8_t kind);

// Whether `kind` is a Body this build knows.
constexpr bool isKnownMessageKind(uint8_t kind) {
  return kind > static_cast<uint8_t>(fb::Body::NONE) && kind <= static_cast<uint8_t>(fb::Body::MAX);
}

}  // namespace reel::schema
