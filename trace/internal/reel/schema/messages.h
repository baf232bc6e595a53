#pragma once
// The generated message types (trace/schema/trace.fbs, namespace reel::fb) and what writer and reader
// both need to name them. Internal to reel::trace and reel's own tools (reel_trace_internals).

#include <cstdint>

#include "reel/schema/container.h"
#include "reel/schema/trace_generated.h"

namespace reel::schema {

// Whether `kind` is a Body this build knows (trace::messageKindName names any kind).
constexpr bool isKnownMessageKind(uint8_t kind) {
  return kind > static_cast<uint8_t>(fb::Body::NONE) && kind <= static_cast<uint8_t>(fb::Body::MAX);
}

}  // namespace reel::schema
