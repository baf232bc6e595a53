#include "reel/schema/messages.h"

namespace reel::schema {

std::string messageKindName(uint8_t kind) {
  if (!isKnownMessageKind(kind)) return "unknown message kind " + std::to_string(kind);
  return fb::EnumNameBody(static_cast<fb::Body>(kind));
}

}  // namespace reel::schema
