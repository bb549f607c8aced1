// One binding mechanism for every native function (DESIGN-NOTES §1): a Python-style
// signature declared as text, a binder that matches call arguments to it with Python's
// errors, and typed accessors whose errors name the argument and the function.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "script/value.h"

namespace tsch::script {

class Interpreter;
class List;
class Dict;

// Arguments as written at a call site, after * and ** unpacking.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<Symbol, Value>> keywords;
};

struct Parameter {
  enum class Kind { Positional, VarArgs, KeywordOnly, VarKeywords };
  Kind kind = Kind::Positional;
  std::string name;
  bool has_default = false;
  Value default_value;
};

// Parsed from text such as "loop, factors, preserve_unit_iters=True, *, key=None".
// Defaults are literals: ints, floats, strings, True, False, None.
class Signature {
 public:
  Signature() = default;
  static Signature parse(const std::string& text);

  const std::vector<Parameter>& params() const { return params_; }
  std::string to_string() const;

 private:
  std::vector<Parameter> params_;
};

// The arguments of a native call bound to its signature.
class Args {
 public:
  Args(Interpreter& interp, const std::string& function, const Signature& sig, CallArgs&& call);

  size_t size() const { return values_.size(); }
  Value& operator[](size_t i) { return values_[i]; }
  const Value& operator[](size_t i) const { return values_[i]; }
  // True when the argument was passed or has a non-None default.
  bool given(size_t i) const { return !values_[i].is_none(); }
  std::vector<Value>& varargs() { return varargs_; }
  std::vector<std::pair<Symbol, Value>>& kwargs() { return kwargs_; }

  // Typed accessors: raise TypeError "argument N, 'name' to f: expected X, got Y".
  int64_t get_int(size_t i) const;
  double get_float(size_t i) const;  // accepts int too
  bool get_bool(size_t i) const;     // accepts any truthy value? no: bool or int
  const std::string& get_str(size_t i) const;
  // A str naming a file: one with a NUL byte raises ValueError, as Python's os functions do
  // (the C library would silently cut the path at the NUL).
  const std::string& get_path(size_t i) const;
  template <typename T>
  T* get(size_t i, const char* expected) const {
    T* p = values_[i].as<T>();
    if (p == nullptr) type_error(i, expected);
    return p;
  }
  [[noreturn]] void type_error(size_t i, const std::string& expected) const;
  [[noreturn]] void value_error(size_t i, const std::string& message) const;

  const std::string& function_name() const { return function_; }
  Interpreter& interp() const { return interp_; }

 private:
  Interpreter& interp_;
  std::string function_;  // a copy: callers pass string literals
  const Signature& sig_;
  std::vector<Value> values_;
  std::vector<Value> varargs_;
  std::vector<std::pair<Symbol, Value>> kwargs_;
};

}  // namespace tsch::script
