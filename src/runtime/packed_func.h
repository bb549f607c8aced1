// Type-erased functions as TVM's runtime has them (PackedFunc; tvm-ffi's Function): every
// function takes a list of `Any` and returns one, so C++ code (the Relax VM, compiled code's
// callbacks), scripts and the global registry can call each other without knowing each
// other's types.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace tsch::runtime {

class PackedFuncObj;
using PackedFunc = std::shared_ptr<const PackedFuncObj>;

// A value crossing a packed call. `Object` is a value the runtime does not look into (a
// script value passing through C++ code back to a script); `type_name` names it in errors.
class Any {
 public:
  enum class Kind { None, Bool, Int, Float, Str, NDArray, Function, Object };

  Any() = default;
  static Any of_bool(bool b);
  static Any of_int(int64_t i);
  static Any of_float(double f);
  static Any of_str(std::string s);
  static Any of_ndarray(NDArrayRef a);
  static Any of_function(PackedFunc f);
  static Any of_object(std::shared_ptr<void> object, std::string type_name);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  // Checked accessors: a UserError (TypeError) naming what was expected.
  bool as_bool() const;
  int64_t as_int() const;
  double as_float() const;  // ints convert
  const std::string& as_str() const;
  const NDArrayRef& as_ndarray() const;
  const PackedFunc& as_function() const;
  const std::shared_ptr<void>& as_object() const { return object_; }
  // "int", "float", "str", "NDArray", "Function", "None", or the object's type name.
  std::string type_name() const;

 private:
  Kind kind_ = Kind::None;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;
  NDArrayRef ndarray_;
  PackedFunc function_;
  std::shared_ptr<void> object_;
};

class PackedFuncObj {
 public:
  using Body = std::function<Any(const std::vector<Any>& args)>;
  PackedFuncObj(Body body, std::string name) : body_(std::move(body)), name_(std::move(name)) {}
  Any operator()(const std::vector<Any>& args) const { return body_(args); }
  // What it was defined or registered as (messages, repr); may be empty.
  const std::string& name() const { return name_; }

 private:
  Body body_;
  std::string name_;
};

inline PackedFunc make_packed_func(PackedFuncObj::Body body, std::string name = {}) {
  return std::make_shared<const PackedFuncObj>(std::move(body), std::move(name));
}

}  // namespace tsch::runtime
