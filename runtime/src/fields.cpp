#include "reel/runtime/fields.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace reel {
namespace {

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

void formatValue(std::string& out, const FieldInfo& f, const std::byte* p) {
  char buf[64];
  switch (f.type) {
    case FieldType::Bool:
      out += load<uint8_t>(p) ? "true" : "false";
      return;
    case FieldType::U8:
      std::snprintf(buf, sizeof buf, "%u", unsigned{load<uint8_t>(p)});
      break;
    case FieldType::U16:
      std::snprintf(buf, sizeof buf, "%u", unsigned{load<uint16_t>(p)});
      break;
    case FieldType::U32:
      std::snprintf(buf, sizeof buf, "%" PRIu32, load<uint32_t>(p));
      break;
    case FieldType::U64:
      std::snprintf(buf, sizeof buf, "%" PRIu64, load<uint64_t>(p));
      break;
    case FieldType::I8:
      std::snprintf(buf, sizeof buf, "%d", int{load<int8_t>(p)});
      break;
    case FieldType::I16:
      std::snprintf(buf, sizeof buf, "%d", int{load<int16_t>(p)});
      break;
    case FieldType::I32:
      std::snprintf(buf, sizeof buf, "%" PRId32, load<int32_t>(p));
      break;
    case FieldType::I64:
      std::snprintf(buf, sizeof buf, "%" PRId64, load<int64_t>(p));
      break;
    case FieldType::F32:
      std::snprintf(buf, sizeof buf, "%g", double{load<float>(p)});
      break;
    case FieldType::F64:
      std::snprintf(buf, sizeof buf, "%g", load<double>(p));
      break;
    case FieldType::Enum: {
      uint64_t v = 0;
      std::memcpy(&v, p, f.size <= sizeof v ? f.size : sizeof v);  // little-endian
      if (v < f.enumNames.size()) {
        out += f.enumNames[v];
        return;
      }
      std::snprintf(buf, sizeof buf, "%" PRIu64 "?", v);
      break;
    }
    case FieldType::Handle:
      out += formatHandle(f.handleKind, load<uint32_t>(p));
      return;
    case FieldType::Struct: {
      out += '{';
      out += formatFields(f.children, p, f.size);
      out += '}';
      return;
    }
  }
  out += buf;
}

}  // namespace

std::string formatFields(std::span<const FieldInfo> fields, const void* data, size_t size) {
  std::string out;
  const auto* bytes = static_cast<const std::byte*>(data);
  for (const FieldInfo& f : fields) {
    if (!out.empty()) out += ' ';
    out += f.name;
    out += '=';
    const uint64_t end = uint64_t{f.offset} + uint64_t{f.size} * f.count;
    if (end > size) {
      out += '?';
      continue;
    }
    if (f.count == 1) {
      formatValue(out, f, bytes + f.offset);
      continue;
    }
    out += '[';
    for (uint32_t i = 0; i < f.count; ++i) {
      if (i) out += ", ";
      formatValue(out, f, bytes + f.offset + uint64_t{i} * f.size);
    }
    out += ']';
  }
  return out;
}

std::string formatSummary(std::string_view pattern, std::span<const FieldInfo> fields, const void* data,
                          size_t size) {
  std::string out;
  const auto* bytes = static_cast<const std::byte*>(data);
  // The field at a dotted path, with its offset from the start of the block.
  auto find = [&](std::string_view path, uint64_t& offset) -> const FieldInfo* {
    std::span<const FieldInfo> level = fields;
    offset = 0;
    while (true) {
      const size_t dot = path.find('.');
      const std::string_view name = path.substr(0, dot);
      const FieldInfo* found = nullptr;
      for (const FieldInfo& f : level) {
        if (f.name && name == f.name) found = &f;
      }
      if (!found) return nullptr;
      offset += found->offset;
      if (dot == std::string_view::npos) return found;
      level = found->children;
      path = path.substr(dot + 1);
    }
  };
  size_t at = 0;
  while (at < pattern.size()) {
    const size_t open = pattern.find('{', at);
    const size_t close = open == std::string_view::npos ? open : pattern.find('}', open);
    if (close == std::string_view::npos) {
      out += pattern.substr(at);
      break;
    }
    out += pattern.substr(at, open - at);
    uint64_t offset = 0;
    const FieldInfo* f = find(pattern.substr(open + 1, close - open - 1), offset);
    if (!f || offset + f->size > size) {
      out += '?';
    } else {
      formatValue(out, *f, bytes + offset);
    }
    at = close + 1;
  }
  return out;
}

void copyFields(std::span<const FieldInfo> fields, const void* from, void* to) {
  const auto* source = static_cast<const std::byte*>(from);
  auto* destination = static_cast<std::byte*>(to);
  for (const FieldInfo& f : fields) {
    for (uint32_t i = 0; i < f.count; ++i) {
      const uint64_t at = f.offset + uint64_t{i} * f.size;
      if (f.type == FieldType::Struct) {
        copyFields(f.children, source + at, destination + at);
      } else {
        std::memcpy(destination + at, source + at, f.size);
      }
    }
  }
}

namespace {
void mix(uint64_t& h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
}
void mixFields(uint64_t& h, std::span<const FieldInfo> fields) {
  for (const FieldInfo& f : fields) {
    mix(h, f.name, std::strlen(f.name) + 1);
    const uint32_t numbers[] = {f.offset,
                                f.size,
                                f.count,
                                static_cast<uint32_t>(f.type),
                                static_cast<uint32_t>(f.handleKind),
                                static_cast<uint32_t>(f.enumNames.size())};
    mix(h, numbers, sizeof numbers);
    if (f.type == FieldType::Struct) mixFields(h, f.children);
  }
}
}  // namespace

uint64_t hashFields(std::span<const FieldInfo> fields) {
  uint64_t h = 14695981039346656037ull;
  mixFields(h, fields);
  return h;
}

}  // namespace reel
