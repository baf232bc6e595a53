#include "model/key_fields.h"

namespace reel::viewer {
namespace {

uint64_t extract(uint64_t bits, const KeyFieldLayout& f) {
  if (f.bits == 0 || f.shift >= 64) return 0;
  const uint64_t mask = f.bits >= 64 ? ~0ull : (1ull << f.bits) - 1;
  const uint64_t v = (bits >> f.shift) & mask;
  return f.inverted ? mask - v : v;
}

bool applies(const KeyFieldLayout& f, int mode) {
  return f.mode == -1 || f.mode == mode;
}

}  // namespace

int keyMode(uint64_t bits, std::span<const KeyFieldLayout> layout) {
  bool hasSelector = false;
  uint64_t command = 0, translucency = 0;
  for (const KeyFieldLayout& f : layout) {
    const std::string_view name = f.name ? f.name : "";
    if (name == "command") command = extract(bits, f), hasSelector = true;
    if (name == "translucency") translucency = extract(bits, f), hasSelector = true;
  }
  if (!hasSelector) return -1;
  return static_cast<int>(command             ? KeyMode::Command
                          : translucency == 0 ? KeyMode::Opaque
                                              : KeyMode::Transparent);
}

void decodeKey(uint64_t bits, std::span<const KeyFieldLayout> layout, std::vector<KeyField>& out) {
  out.clear();
  const int mode = keyMode(bits, layout);
  for (const KeyFieldLayout& f : layout) {
    if (applies(f, mode)) out.push_back({f.name ? f.name : "", extract(bits, f)});
  }
}

std::optional<uint64_t> keyField(uint64_t bits, std::span<const KeyFieldLayout> layout,
                                 std::string_view name) {
  const int mode = keyMode(bits, layout);
  for (const KeyFieldLayout& f : layout) {
    if (f.name && name == f.name && applies(f, mode)) return extract(bits, f);
  }
  return std::nullopt;
}

KeyFieldReader::KeyFieldReader(std::span<const KeyFieldLayout> layout, std::string_view name) {
  for (const KeyFieldLayout& f : layout) {
    const std::string_view n = f.name ? f.name : "";
    if (n == "command") command_ = &f;
    if (n == "translucency") translucency_ = &f;
    if (n == name) candidates_.push_back(&f);
  }
}

std::optional<uint64_t> KeyFieldReader::read(uint64_t bits) const {
  if (candidates_.empty()) return std::nullopt;
  int mode = -1;
  if (command_ || translucency_) {
    const uint64_t command = command_ ? extract(bits, *command_) : 0;
    const uint64_t translucency = translucency_ ? extract(bits, *translucency_) : 0;
    mode = static_cast<int>(command             ? KeyMode::Command
                            : translucency == 0 ? KeyMode::Opaque
                                                : KeyMode::Transparent);
  }
  for (const KeyFieldLayout* f : candidates_) {
    if (applies(*f, mode)) return extract(bits, *f);
  }
  return std::nullopt;
}

}  // namespace reel::viewer
