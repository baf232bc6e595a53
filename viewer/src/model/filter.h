#pragma once
// Which rows of a frame the Commands panel shows: by command type, by tag text, by bucket and by key
// field values ("material=7 layer<2 depth>=1000"). Applied once per change of filter, frame or order,
// over every row; the table then clips what it draws to the visible part of the result.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/frame_table.h"
#include "reel/runtime/result.h"
#include "reel/trace/header.h"

namespace reel::viewer {

struct KeyCondition {
  enum class Op : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
  std::string field;
  Op op = Op::Eq;
  uint64_t value = 0;
  bool matches(uint64_t v) const;
};

// "material=7 layer<2, translucency=normal depth>=0x100": conditions separated by spaces or commas,
// operators = == != < <= > >=, values decimal, 0x hex, or a translucency name. Errors name the token.
Result<std::vector<KeyCondition>> parseKeyConditions(std::string_view text);

struct RowFilter {
  std::vector<uint8_t> types;     // by trace command id: 1 = shown; empty = every type
  std::vector<uint8_t> buckets;   // by index into FrameRecord::buckets: 1 = shown; empty = every bucket
  std::string tagText;            // case-insensitive part of the tag's message, file or function
  std::vector<KeyCondition> key;  // all must hold; a key without the field fails

  bool active() const { return !types.empty() || !buckets.empty() || !tagText.empty() || !key.empty(); }
};

// The ids of the rows that pass, in the order shown (sorted or submission).
std::vector<uint32_t> applyFilter(const RowFilter& filter, const trace::FrameRecord& frame,
                                  const FrameTable& table, const trace::TraceHeader& header, bool sorted);

}  // namespace reel::viewer
