// Type-erased functions as TVM's runtime has them (PackedFunc; tvm-ffi's Function): every
// function takes a list of `Any` and returns one, so C++ code (the Relax VM, compiled code's
// callbacks), scripts and the global registry can call each other without knowing each
// other's types.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ndarray.h"

namespace tsch::runtime {

class PackedFuncObj;
using PackedFunc = std::shared_ptr<const PackedFuncObj>;

// A value crossing a packed call. `Object` is a value the runtime does not look into (a
// script value passing through C++ code back to a script); `type_name` names it in errors.
// `Tuple` (TVM's Array) and `Shape` (TVM's ShapeTuple) are the Relax VM's immutable
// aggregates: copies share the items.
class Any {
 public:
  enum class Kind { None, Bool, Int, Float, Str, NDArray, Function, Object, Tuple, Shape };

  Any() = default;
  static Any of_bool(bool b);
  static Any of_int(int64_t i);
  static Any of_float(double f);
  static Any of_str(std::string s);
  static Any of_ndarray(NDArrayRef a);
  static Any of_function(PackedFunc f);
  static Any of_object(std::shared_ptr<void> object, std::string type_name);
  static Any of_tuple(std::vector<Any> items);
  static Any of_shape(Shape dims);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  // An `Object` made with this type name (no string is built: hot paths ask it).
  bool is_object_of(std::string_view type_name) const { return kind_ == Kind::Object && *s_ == type_name; }
  // Checked accessors: a UserError (TypeError) naming what was expected.
  bool as_bool() const;
  int64_t as_int() const;
  double as_float() const;  // ints convert
  const std::string& as_str() const;
  const NDArrayRef& as_ndarray() const;
  const PackedFunc& as_function() const;
  // The object of an `Object` (null for the other kinds).
  const std::shared_ptr<void>& as_object() const;
  const std::vector<Any>& as_tuple() const;
  const Shape& as_shape() const;
  // "int", "float", "str", "NDArray", "Function", "None", "Array", "ShapeTuple", or the
  // object's type name.
  std::string type_name() const;

 private:
  Kind kind_ = Kind::None;
  int64_t i_ = 0;
  double f_ = 0;
  // Strings and object type names are shared: registers and argument lists copy Anys often.
  std::shared_ptr<const std::string> s_;
  NDArrayRef ndarray_;
  PackedFunc function_;
  std::shared_ptr<void> object_;  // also the items of a Tuple or the dims of a Shape
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
