#include "model/filter.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "model/key_fields.h"

namespace reel::viewer {
namespace {

bool containsNoCase(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

Result<uint64_t> parseValue(std::string_view token, std::string_view field) {
  if (field == "translucency") {
    for (uint32_t t = 0; t < 4; ++t) {
      if (token == translucencyName(static_cast<Translucency>(t))) return uint64_t{t};
    }
  }
  int base = 10;
  if (token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X')) {
    token.remove_prefix(2);
    base = 16;
  }
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value, base);
  if (ec != std::errc() || end != token.data() + token.size() || token.empty()) {
    return fail("'", token, "' is not a number");
  }
  return value;
}

}  // namespace

bool KeyCondition::matches(uint64_t v) const {
  switch (op) {
    case Op::Eq:
      return v == value;
    case Op::Ne:
      return v != value;
    case Op::Lt:
      return v < value;
    case Op::Le:
      return v <= value;
    case Op::Gt:
      return v > value;
    case Op::Ge:
      return v >= value;
  }
  return false;
}

Result<std::vector<KeyCondition>> parseKeyConditions(std::string_view text) {
  std::vector<KeyCondition> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == ',')) ++i;
    if (i == text.size()) break;
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ',')
      ++end;
    const std::string_view token = text.substr(i, end - i);
    i = end;
    const size_t opAt = token.find_first_of("=!<>");
    if (opAt == std::string_view::npos || opAt == 0) {
      return fail("'", token, "': expected field=value (operators = != < <= > >=)");
    }
    KeyCondition c;
    c.field = std::string(token.substr(0, opAt));
    std::string_view rest = token.substr(opAt);
    struct OpText {
      std::string_view text;
      KeyCondition::Op op;
    };
    // Two-character operators first, so that "<=" is not read as "<" followed by "=5".
    static constexpr OpText kOps[] = {{"==", KeyCondition::Op::Eq}, {"!=", KeyCondition::Op::Ne},
                                      {"<=", KeyCondition::Op::Le}, {">=", KeyCondition::Op::Ge},
                                      {"=", KeyCondition::Op::Eq},  {"<", KeyCondition::Op::Lt},
                                      {">", KeyCondition::Op::Gt}};
    bool found = false;
    for (const OpText& o : kOps) {
      if (rest.substr(0, o.text.size()) == o.text) {
        c.op = o.op;
        rest.remove_prefix(o.text.size());
        found = true;
        break;
      }
    }
    if (!found) return fail("'", token, "': unknown operator");
    auto value = parseValue(rest, c.field);
    if (!value) return fail("'", token, "': ", value.error().message);
    c.value = value.value();
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<uint32_t> applyFilter(const RowFilter& filter, const trace::FrameRecord& frame,
                                  const FrameTable& table, const trace::TraceHeader& header, bool sorted) {
  const uint32_t n = static_cast<uint32_t>(table.size());
  std::vector<uint32_t> out;
  if (!filter.active()) {
    out.resize(n);
    for (uint32_t p = 0; p < n; ++p) out[p] = table.rowAt(sorted, p);
    return out;
  }
  // Per bucket and condition, once: where the field is in the bucket's key layout.
  std::vector<std::vector<KeyFieldReader>> readers(frame.buckets.size());
  for (size_t b = 0; b < frame.buckets.size(); ++b) {
    const trace::KeyLayoutDesc* layout = header.keyLayout(frame.buckets[b].keyType);
    for (const KeyCondition& c : filter.key) {
      readers[b].emplace_back(layout ? layout->fields : std::span<const KeyFieldLayout>{}, c.field);
    }
  }
  out.reserve(n);
  for (uint32_t p = 0; p < n; ++p) {
    const uint32_t id = table.rowAt(sorted, p);
    const Row& row = table.row(id);
    if (!filter.buckets.empty() && (row.bucket >= filter.buckets.size() || !filter.buckets[row.bucket]))
      continue;
    const trace::BucketRecord& bucket = frame.buckets[row.bucket];
    if (!filter.types.empty() || !filter.tagText.empty()) {
      const trace::PacketRecord packet = bucket.packet(row.key, row.link);
      if (!filter.types.empty() && (packet.type >= filter.types.size() || !filter.types[packet.type]))
        continue;
      if (!filter.tagText.empty()) {
        if (!packet.tag) continue;
        if (!containsNoCase(packet.tag->message, filter.tagText) &&
            !containsNoCase(packet.tag->file, filter.tagText) &&
            !containsNoCase(packet.tag->function, filter.tagText)) {
          continue;
        }
      }
    }
    bool pass = true;
    for (size_t c = 0; c < filter.key.size(); ++c) {
      const std::optional<uint64_t> v = readers[row.bucket][c].read(bucket.key(row.key));
      if (!v || !filter.key[c].matches(*v)) {
        pass = false;
        break;
      }
    }
    if (pass) out.push_back(id);
  }
  return out;
}

}  // namespace reel::viewer
