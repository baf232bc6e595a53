#pragma once
// Expected failures across module boundaries: a value or an error that carries a message with context.
// (std::expected is C++23; this is the small part of it reel needs.)

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "reel/runtime/assert.h"

namespace reel {

struct Error {
  std::string message;
};

inline std::string toErrorText(const std::string& s) { return s; }
inline std::string toErrorText(const char* s) { return s; }
inline std::string toErrorText(std::string_view s) { return std::string(s); }
template <typename T>
  requires std::is_arithmetic_v<T>
std::string toErrorText(T v) {
  return std::to_string(v);
}


// Builds an Error; reads well at a return site: `return fail("trace.reel: truncated at byte ", n);`
template <typename... Parts>
Error fail(Parts&&... parts) {
  std::string message;
  ((message += toErrorText(std::forward<Parts>(parts))), ...);
  return Error{std::move(message)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor): reads as a return
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    REEL_ASSERT(ok(), "value() of a failed Result");
    return std::get<0>(state_);
  }
  T&& value() && {
    REEL_ASSERT(ok(), "value() of a failed Result");
    return std::get<0>(std::move(state_));
  }
  const T& value() const& {
    REEL_ASSERT(ok(), "value() of a failed Result");
    return std::get<0>(state_);
  }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }

  const Error& error() const {
    REEL_ASSERT(!ok(), "error() of a successful Result");
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    REEL_ASSERT(failed_, "error() of a successful Result");
    return error_;
  }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace reel
