// Script exceptions: the built-in exception classes, the C++ carrier (ScriptError) that
// unwinds the interpreter, and the traceback it collects on the way out.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "script/object.h"
#include "support/error.h"
#include "support/source.h"

namespace tsch::script {

enum class ExcKind {
  BaseException,
  Exception,
  ArithmeticError,
  LookupError,
  ValueError,
  TypeError,
  KeyError,
  IndexError,
  AssertionError,
  RuntimeError,
  ZeroDivisionError,
  NameError,
  UnboundLocalError,
  AttributeError,
  OverflowError,
  RecursionError,
  ImportError,
  ModuleNotFoundError,
  NotImplementedError,
  StopIteration,
  KeyboardInterrupt,
  SystemExit,
  OSError,
  FileNotFoundError,
  UnicodeError,
  MemoryError,
  Count
};

TypeObject* exception_type(ExcKind kind);
TypeRef exception_type_ref(ExcKind kind);

struct TracebackEntry {
  SourceLoc loc;
  std::string function;
};

// Unwinds the interpreter carrying a script exception value.
class ScriptError : public std::exception {
 public:
  explicit ScriptError(Value exc) : exception(std::move(exc)) {}
  const char* what() const noexcept override { return "script exception"; }

  Value exception;
  // Where the exception currently is, inside the innermost frame not yet recorded.
  SourceLoc pending;
  // Innermost first.
  std::vector<TracebackEntry> traceback;
};

// Creates an exception instance of `cls` with `args`.
Value make_exception(TypeObject* cls, std::vector<Value> args);
Value make_exception(ExcKind kind, const std::string& message);

[[noreturn]] void raise(ExcKind kind, const std::string& message);
// The exception class a C++ core's UserError becomes (support/error.h).
ExcKind exception_kind_of(UserErrorKind kind);
// KeyError carries the key itself (str() shows its repr).
[[noreturn]] void raise_key_error(const Value& key);
[[noreturn]] void raise_at(ExcKind kind, const std::string& message, SourceLoc loc);

// NameError: name 'x' is not defined, with e.name set; its report adds CPython's
// ". Did you mean: 'y'?" (the closest of `candidates`, or `self.x` when the method's self has
// it) and ". Did you forget to import 'x'?" for a module's name. str(e) stays as CPython's.
[[noreturn]] void raise_name_error(const std::string& name, const std::vector<std::string>& candidates,
                                   bool self_has_it, const SourceLoc* loc = nullptr);
// AttributeError with e.name and e.obj set as CPython sets them; its report adds the
// closest attribute of obj (". Did you mean: 'y'?"), computed when it is shown.
[[noreturn]] void raise_attribute_error(const std::string& message, const Value& obj, const std::string& name,
                                        const SourceLoc* loc = nullptr);

// "ValueError: message" (or just "ValueError" without arguments), with the suggestion a
// NameError or AttributeError carries.
std::string describe_exception(Interpreter& interp, const Value& exc);
// The exception's class name.
std::string exception_class_name(const Value& exc);

}  // namespace tsch::script
