#pragma once
// Copies of a trace with one thing changed, rewritten through reel::trace's own writer (the container,
// chunks and index are new and valid), for the exit-code tests of `reel verify` and `reel replay`:
//  - every frame's recorded sorted-order hash changed, as if the sort had changed since the capture;
//  - the header's format minor version one above this reader's, as a newer reel of the same major
//    version writes it.

#include <string>

#include "reel/runtime/result.h"

namespace reel::test {

struct TraceChange {
  bool changeOrderHashes = false;
  bool newerMinorVersion = false;
};

Result<void> copyTraceWith(const std::string& in, const std::string& out, const TraceChange& change);

}  // namespace reel::test
