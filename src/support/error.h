// The user-error channel of the C++ cores: a mistake in what a script asked for (a stale
// handle, an argument out of range) thrown as UserError with the Python exception class it
// becomes, kept apart from InternalError (a bug in tsch, diagnostics.h). Script boundaries
// turn UserError into the script exception; they never catch a bug as if it were one.
//
//   TSCH_USER_ASSERT(n >= 1, ValueError) << "n must be positive, got " << n;
//   TSCH_INTERNAL_ASSERT(node != nullptr) << "no node for sid " << sid;
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "support/diagnostics.h"

namespace tsch {

enum class UserErrorKind {
  ValueError,
  TypeError,
  IndexError,
  KeyError,
  AttributeError,
  NotImplementedError,
  RuntimeError
};

class UserError : public std::runtime_error {
 public:
  UserError(UserErrorKind kind, const std::string& message, std::string param = {})
      : std::runtime_error(message), kind(kind), param(std::move(param)) {}
  UserErrorKind kind;
  // The argument at fault, when the core knows it by its keyword name ("n", "decision"):
  // bindings render it as Python's "argument 2, 'n' to f: ...".
  std::string param;
};

// Collects a message with << and throws it when the statement ends.
class UserErrorThrower {
 public:
  explicit UserErrorThrower(UserErrorKind kind, std::string param = {}) : kind_(kind), param_(std::move(param)) {}
  UserErrorThrower(const UserErrorThrower&) = delete;
  [[noreturn]] ~UserErrorThrower() noexcept(false) { throw UserError(kind_, os_.str(), param_); }
  template <typename T>
  UserErrorThrower& operator<<(const T& v) {
    os_ << v;
    return *this;
  }

 private:
  UserErrorKind kind_;
  std::string param_;
  std::ostringstream os_;
};

class InternalErrorThrower {
 public:
  InternalErrorThrower(const char* file, int line, const char* cond) {
    os_ << file << ":" << line << ": check failed: " << cond << ": ";
  }
  InternalErrorThrower(const InternalErrorThrower&) = delete;
  [[noreturn]] ~InternalErrorThrower() noexcept(false) { throw InternalError(os_.str()); }
  template <typename T>
  InternalErrorThrower& operator<<(const T& v) {
    os_ << v;
    return *this;
  }

 private:
  std::ostringstream os_;
};

#define TSCH_USER_ASSERT(cond, kind) \
  if (cond) {                        \
  } else                             \
    ::tsch::UserErrorThrower(::tsch::UserErrorKind::kind)

// The same, naming the argument at fault.
#define TSCH_USER_ASSERT_ARG(cond, kind, param) \
  if (cond) {                                   \
  } else                                        \
    ::tsch::UserErrorThrower(::tsch::UserErrorKind::kind, param)

#define TSCH_INTERNAL_ASSERT(cond) \
  if (cond) {                      \
  } else                           \
    ::tsch::InternalErrorThrower(__FILE__, __LINE__, #cond)

}  // namespace tsch
