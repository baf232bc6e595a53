#include "model/packet_fields.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace reel::viewer {
namespace {

std::string valueOf(const FieldInfo& f, const std::byte* element, size_t available) {
  FieldInfo one = f;
  one.offset = 0;
  one.count = 1;
  const std::string text = formatFields({&one, 1}, element, available);
  const size_t eq = text.find('=');
  return eq == std::string::npos ? text : text.substr(eq + 1);
}

void flatten(std::span<const FieldInfo> fields, std::span<const std::byte> bytes, const std::string& prefix,
             int depth, std::vector<FieldRow>& out) {
  for (const FieldInfo& f : fields) {
    const std::string base = prefix + (f.name ? f.name : "?");
    for (uint32_t i = 0; i < f.count; ++i) {
      FieldRow row;
      row.name = f.count == 1 ? base : base + "[" + std::to_string(i) + "]";
      row.depth = depth;
      const uint64_t at = uint64_t{f.offset} + uint64_t{i} * f.size;
      const bool inside = at + f.size <= bytes.size();
      if (f.type == FieldType::Struct) {
        row.isStruct = true;
        out.push_back(row);
        if (inside) {
          flatten(f.children, bytes.subspan(at, f.size), row.name + ".", depth + 1, out);
        } else {
          out.back().value = "?";
        }
        continue;
      }
      if (!inside) {
        row.value = "?";
      } else {
        row.value = valueOf(f, bytes.data() + at, f.size);
        if (f.type == FieldType::Handle) {
          row.handleKind = f.handleKind;
          std::memcpy(&row.handle, bytes.data() + at, sizeof row.handle);
        }
      }
      out.push_back(std::move(row));
    }
  }
}

}  // namespace

std::vector<FieldRow> flattenFields(std::span<const FieldInfo> fields, std::span<const std::byte> bytes) {
  std::vector<FieldRow> out;
  flatten(fields, bytes, "", 0, out);
  return out;
}

std::vector<HandleRef> handleRefs(std::span<const FieldInfo> fields, std::span<const std::byte> bytes) {
  std::vector<HandleRef> out;
  for (const FieldRow& row : flattenFields(fields, bytes)) {
    if (row.handleKind != ResourceKind::Count && row.handle != 0)
      out.push_back({row.handleKind, row.handle, row.name});
  }
  return out;
}

std::optional<uint64_t> readField(std::span<const FieldInfo> fields, std::span<const std::byte> bytes,
                                  std::string_view path) {
  const size_t dot = path.find('.');
  const std::string_view head = path.substr(0, dot);
  for (const FieldInfo& f : fields) {
    if (!f.name || head != f.name) continue;
    if (uint64_t{f.offset} + f.size > bytes.size()) return std::nullopt;
    if (dot != std::string_view::npos) {
      if (f.type != FieldType::Struct) return std::nullopt;
      return readField(f.children, bytes.subspan(f.offset, f.size), path.substr(dot + 1));
    }
    switch (f.type) {
      case FieldType::Struct:
      case FieldType::F32:
      case FieldType::F64:
        return std::nullopt;
      default:
        break;
    }
    if (f.size > 8) return std::nullopt;
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + f.offset, f.size);  // little-endian, as traces are
    return v;
  }
  return std::nullopt;
}

std::string handleName(ResourceKind kind, uint32_t handle) {
  return formatHandle(kind, handle);
}

std::string hexLine(std::span<const std::byte> bytes, size_t line) {
  const size_t start = line * 16;
  if (start >= bytes.size()) return {};
  char buf[96];
  int n = std::snprintf(buf, sizeof buf, "%08zx ", start);
  std::string out(buf, static_cast<size_t>(n));
  std::string ascii;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 8) out += ' ';
    if (start + i < bytes.size()) {
      const auto b = static_cast<unsigned char>(bytes[start + i]);
      n = std::snprintf(buf, sizeof buf, " %02x", b);
      out.append(buf, static_cast<size_t>(n));
      ascii += (b >= 32 && b < 127) ? static_cast<char>(b) : '.';
    } else {
      out += "   ";
    }
  }
  return out + "  |" + ascii + "|";
}

std::string floatLine(std::span<const std::byte> bytes, size_t line) {
  const size_t start = line * 16;
  if (start + 4 > bytes.size()) return {};
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%08zx ", start);
  std::string out(buf, static_cast<size_t>(n));
  for (size_t i = 0; i < 4 && start + i * 4 + 4 <= bytes.size(); ++i) {
    float f;
    std::memcpy(&f, bytes.data() + start + i * 4, sizeof f);
    n = std::snprintf(buf, sizeof buf, " %14.6g", static_cast<double>(f));
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace reel::viewer
