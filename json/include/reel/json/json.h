#pragma once
// Just enough JSON writing for the tools' JSON output (`reel --json`, reel-viewer --screenshot-info):
// objects of numbers, strings and nested values.

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

namespace reel {

inline std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

inline std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";  // JSON has no infinity or NaN; each key documents what null means
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Builds one JSON object: JsonObject().add("a", 1).add("b", "x").str()
class JsonObject {
 public:
  JsonObject& add(std::string_view key, std::string_view value) { return raw(key, jsonString(value)); }
  JsonObject& add(std::string_view key, const char* value) { return raw(key, jsonString(value)); }
  JsonObject& add(std::string_view key, double value) { return raw(key, jsonNumber(value)); }
  JsonObject& add(std::string_view key, uint64_t value) { return raw(key, std::to_string(value)); }
  JsonObject& add(std::string_view key, int64_t value) { return raw(key, std::to_string(value)); }
  JsonObject& add(std::string_view key, uint32_t value) { return raw(key, std::to_string(value)); }
  JsonObject& add(std::string_view key, int value) { return raw(key, std::to_string(value)); }
  JsonObject& add(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }
  JsonObject& raw(std::string_view key, std::string_view json) {
    body_ += body_.empty() ? "" : ",";
    body_ += jsonString(key);
    body_ += ':';
    body_ += json;
    return *this;
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

}  // namespace reel
