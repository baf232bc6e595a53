#pragma once
// Rewrites a trace as a build with another command table would have written it, for the tests of the
// command map (tests/trace, tests/cli, tests/viewer): every message is copied in place, edited, and
// written again through reel::trace's own writer (so the container, the chunks and the index are
// new and valid).
//  - renumbered: the commands listed in another order. The header's table is reordered and every id in
//    the trace (each body's type, each request's, each live resource's create) follows.
//  - a changed layout: one command's layout hash in the header differs, as after a field change.
//  - unreadable resources: the live resources at the capture start name a create command id outside the
//    command table, so that reading them fails while every frame still reads.
//  - a newer minor version: the header's format minor changed (or made newer than this reader's, whatever
//    the trace's own), and after each frame a message of a kind this reader does not know, as a newer
//    writer of the same major version may add.
//  - changed order hashes: every frame's recorded sorted-order hash differs, as if the sort had changed
//    since the capture.
//  - residual segments that lie: in every frame, the first word of each payload column's segment mask
//    (format 1.7) marks all its 64 segments, which the stored segments then no longer make.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "reel/runtime/result.h"

namespace reel::testing {

struct TraceEdit {
  // The new id of each trace command id (a permutation of 0 .. count - 1); empty: ids unchanged.
  std::function<uint16_t(uint16_t id, uint16_t count)> renumber = {};
  // The command (by name) whose layout hash the header changes; empty: none.
  std::string changeLayoutOf = {};
  // The header's format minor version; empty: unchanged. (Rewritten in place: the trace's own minor must
  // not be 0, which FlatBuffers leaves out of the message.)
  std::optional<uint16_t> formatMinor = {};
  // The header's format minor made newer than this reader's, the major unchanged; works on any trace.
  bool newerMinorVersion = false;
  // Every frame's recorded sorted-order hash changed.
  bool changeOrderHashes = false;
  // Every payload segment mask's first word set to all ones.
  bool markEverySegment = false;
  // A message kind (a Body type past trace.fbs's) to add after each frame; 0: none.
  uint8_t unknownKind = 0;
  // Every live resource whose create id is not 0 (FlatBuffers leaves 0 out) gets id 0xFFFF.
  bool unknownResourceCommand = false;
};

// Ids 1 .. count - 1 each one place on (the last becomes 1): every command but the first moves. Id 0
// keeps its place: FlatBuffers leaves out a scalar equal to its default (0), so a field that holds id 0
// has no bytes to rewrite in place.
uint16_t rotatedIds(uint16_t id, uint16_t count);

Result<void> rewriteTrace(const std::string& in, const std::string& out, const TraceEdit& edit);

}  // namespace reel::testing
