#pragma once
// Debug tags: a source location and a message per packet, shown by `reel dump` and the viewer.
// Every packet header has its tag field whatever an app defines, so the library and the app always
// agree on the packet layout. An app that defines REEL_ENABLE_TAGS=0 (per translation unit, before this
// header) compiles its REEL_TAG calls to nothing; the field then stays empty.

#include <cstdint>
#include <string_view>

#ifndef REEL_ENABLE_TAGS
#define REEL_ENABLE_TAGS 1
#endif

namespace reel {

// Stored in a bucket's arena after the packets it tags. The file and function strings are the
// program's own literals (__FILE__, __func__); the message is copied in.
struct TagRecord {
  const char* file;
  const char* function;
  uint32_t line;
  uint32_t messageSize;
  // followed by messageSize bytes of message, no terminator
  std::string_view message() const {
    return {reinterpret_cast<const char*>(this + 1), messageSize};
  }
};

struct SourceLocation {
  const char* file;
  const char* function;
  uint32_t line;
};

}  // namespace reel

#if REEL_ENABLE_TAGS
// REEL_TAG(bucket, packet, "message"): tags a packet returned by bucket.add / append.
#define REEL_TAG(bucket, packet, message) \
  (bucket).tag((packet), ::reel::SourceLocation{__FILE__, __func__, __LINE__}, (message))
#else
#define REEL_TAG(bucket, packet, message) ((void)0)
#endif
