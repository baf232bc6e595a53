#pragma once
// The kinds of message a trace holds (trace/schema/trace.fbs, union Body), value for value: what the
// reader's index lists (MessageInfo::kind) and what the writer files each message as.

#include <cstdint>
#include <string>

namespace reel::trace {

enum class MessageKind : uint8_t {
  Header = 1,
  Resources,
  Frame,
  Marker,
  KeyLayouts,
  CaptureEnd,
  Index,
  KeyFrame,  // since 1.4: a Resources table at a later frame (trace.fbs)
};

// "Frame", "Header", ..., or "unknown message kind 42" for a kind this build does not know (a newer
// minor version of the format may add kinds; a reader skips them).
std::string messageKindName(uint8_t kind);

}  // namespace reel::trace
