#pragma once
// Whether a text is exactly one JSON value (RFC 8259), whitespace around it allowed: what a `--json`
// stdout must be for a script to parse it. A small recursive-descent checker, so that the tests need no
// JSON library.

#include <cctype>
#include <cstring>
#include <string>

namespace reel::test {

class JsonCheck {
 public:
  // Empty when `text` is one valid JSON value; otherwise what is wrong and where.
  static std::string problem(const std::string& text) {
    JsonCheck c(text);
    c.space();
    if (!c.value()) return c.why_.empty() ? "invalid JSON" : c.why_;
    c.space();
    if (c.at_ != text.size()) return "text after the JSON value at byte " + std::to_string(c.at_);
    return {};
  }

 private:
  explicit JsonCheck(const std::string& text) : s_(text) {}

  bool failAt(const char* what) {
    if (why_.empty()) why_ = std::string(what) + " at byte " + std::to_string(at_);
    return false;
  }
  void space() {
    while (at_ < s_.size() && std::strchr(" \t\r\n", s_[at_]) && s_[at_]) ++at_;
  }
  bool literal(const char* word) {
    const size_t n = std::strlen(word);
    if (s_.compare(at_, n, word) != 0) return failAt("unknown literal");
    at_ += n;
    return true;
  }
  bool value() {
    if (++depth_ > 256) return failAt("nested too deep");
    bool ok = false;
    if (at_ >= s_.size()) return failAt("a value expected");
    switch (s_[at_]) {
      case '{':
        ok = object();
        break;
      case '[':
        ok = array();
        break;
      case '"':
        ok = string();
        break;
      case 't':
        ok = literal("true");
        break;
      case 'f':
        ok = literal("false");
        break;
      case 'n':
        ok = literal("null");
        break;
      default:
        ok = number();
    }
    --depth_;
    return ok;
  }
  bool object() {
    ++at_;
    space();
    if (at_ < s_.size() && s_[at_] == '}') return ++at_, true;
    for (;;) {
      space();
      if (at_ >= s_.size() || s_[at_] != '"') return failAt("a key expected");
      if (!string()) return false;
      space();
      if (at_ >= s_.size() || s_[at_] != ':') return failAt("':' expected");
      ++at_;
      space();
      if (!value()) return false;
      space();
      if (at_ < s_.size() && s_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < s_.size() && s_[at_] == '}') return ++at_, true;
      return failAt("',' or '}' expected");
    }
  }
  bool array() {
    ++at_;
    space();
    if (at_ < s_.size() && s_[at_] == ']') return ++at_, true;
    for (;;) {
      space();
      if (!value()) return false;
      space();
      if (at_ < s_.size() && s_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < s_.size() && s_[at_] == ']') return ++at_, true;
      return failAt("',' or ']' expected");
    }
  }
  bool string() {
    ++at_;
    while (at_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[at_]);
      if (c == '"') return ++at_, true;
      if (c < 0x20) return failAt("a control character in a string");
      if (c == '\\') {
        ++at_;
        if (at_ >= s_.size()) break;
        if (s_[at_] == 'u') {
          for (int i = 1; i <= 4; ++i) {
            if (at_ + i >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[at_ + i])))
              return failAt("a bad \\u escape");
          }
          at_ += 4;
        } else if (!std::strchr("\"\\/bfnrt", s_[at_]) || !s_[at_]) {
          return failAt("a bad escape");
        }
      }
      ++at_;
    }
    return failAt("an unterminated string");
  }
  bool digits() {
    const size_t from = at_;
    while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) ++at_;
    return at_ > from;
  }
  bool number() {
    if (at_ < s_.size() && s_[at_] == '-') ++at_;
    if (at_ < s_.size() && s_[at_] == '0') {
      ++at_;
    } else if (!digits()) {
      return failAt("a value expected");
    }
    if (at_ < s_.size() && s_[at_] == '.') {
      ++at_;
      if (!digits()) return failAt("digits after '.' expected");
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_;
      if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
      if (!digits()) return failAt("exponent digits expected");
    }
    return true;
  }

  const std::string& s_;
  size_t at_ = 0;
  int depth_ = 0;
  std::string why_;
};

}  // namespace reel::test
