#include "reel/trace/message_kind.h"

#include "reel/schema/messages.h"

namespace reel::trace {

#define REEL_SAME_KIND(Name) \
  static_assert(static_cast<uint8_t>(MessageKind::Name) == static_cast<uint8_t>(fb::Body::Name), #Name);
REEL_SAME_KIND(Header)
REEL_SAME_KIND(Resources)
REEL_SAME_KIND(Frame)
REEL_SAME_KIND(Marker)
REEL_SAME_KIND(KeyLayouts)
REEL_SAME_KIND(CaptureEnd)
REEL_SAME_KIND(Index)
REEL_SAME_KIND(KeyFrame)
#undef REEL_SAME_KIND
static_assert(static_cast<uint8_t>(MessageKind::KeyFrame) == static_cast<uint8_t>(fb::Body::MAX),
              "a message kind of trace.fbs is missing from MessageKind");

std::string messageKindName(uint8_t kind) {
  if (!schema::isKnownMessageKind(kind)) return "unknown message kind " + std::to_string(kind);
  return fb::EnumNameBody(static_cast<fb::Body>(kind));
}

}  // namespace reel::trace
