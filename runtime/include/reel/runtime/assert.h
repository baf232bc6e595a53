#pragma once
// Broken contracts: an assert that says what was expected. Expected failures (I/O, bad input, a missing
// device feature) use reel::Result instead (result.h).

#include <cstdio>
#include <cstdlib>

namespace reel::detail {
[[noreturn]] inline void assertFailed(const char* expr, const char* message, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: reel contract broken: %s (%s)\n", file, line, message, expr);
  std::abort();
}
}  // namespace reel::detail

#define REEL_ASSERT(cond, message)                                           \
  do {                                                                       \
    if (!(cond)) ::reel::detail::assertFailed(#cond, message, __FILE__, __LINE__); \
  } while (false)
