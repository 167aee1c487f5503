// Result<T>: a value or an error (a code and a message), shaped like
// std::expected (which g++ 12 does not ship in C++20). Everything recoverable
// returns one of these; exceptions are reserved for start-up errors caught in
// main().
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "common/error_code.h"

namespace fabric {

// Why something failed: a message for people and a code for code. The code is
// set where the error is made (MakeError(ErrorCode::kBusy, ...)) and kept by
// everything that passes the error on; kAbsent distinguishes "this kernel or
// driver does not have it" (not a failure: a collector reports success with no
// samples) from a real error.
struct Error {
  std::string message;
  ErrorCode code = ErrorCode::kOther;
  bool absent() const { return code == ErrorCode::kAbsent; }
};

// Tag returned by MakeError() and converted into any Result<T>.
struct Unexpected {
  Error error;
};

inline Unexpected MakeError(std::string message) { return Unexpected{Error{std::move(message)}}; }
inline Unexpected MakeError(ErrorCode code, std::string message) {
  return Unexpected{Error{std::move(message), code}};
}
inline Unexpected MakeAbsent(std::string message) {
  return Unexpected{Error{std::move(message), ErrorCode::kAbsent}};
}
inline Unexpected MakeError(Error error) { return Unexpected{std::move(error)}; }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}         // NOLINT: implicit
  Result(Unexpected u) : state_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }
  bool absent() const { return !ok() && error().absent(); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success or an error.
struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }

}  // namespace fabric

// Propagates an error from an expression returning a Result.
#define FABRIC_RETURN_IF_ERROR(expr)                        \
  do {                                                      \
    if (auto fabric_status_ = (expr); !fabric_status_.ok()) \
      return ::fabric::Unexpected{fabric_status_.error()};  \
  } while (0)
