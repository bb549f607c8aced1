#include "runtime/packed_func.h"

#include "support/error.h"

namespace tsch::runtime {

Any Any::of_bool(bool b) {
  Any a;
  a.kind_ = Kind::Bool;
  a.i_ = b ? 1 : 0;
  return a;
}

Any Any::of_int(int64_t i) {
  Any a;
  a.kind_ = Kind::Int;
  a.i_ = i;
  return a;
}

Any Any::of_float(double f) {
  Any a;
  a.kind_ = Kind::Float;
  a.f_ = f;
  return a;
}

Any Any::of_str(std::string s) {
  Any a;
  a.kind_ = Kind::Str;
  a.s_ = std::make_shared<const std::string>(std::move(s));
  return a;
}

Any Any::of_ndarray(NDArrayRef array) {
  Any a;
  a.kind_ = Kind::NDArray;
  a.ndarray_ = std::move(array);
  return a;
}

Any Any::of_function(PackedFunc f) {
  Any a;
  a.kind_ = Kind::Function;
  a.function_ = std::move(f);
  return a;
}

Any Any::of_object(std::shared_ptr<void> object, std::string type_name) {
  Any a;
  a.kind_ = Kind::Object;
  a.object_ = std::move(object);
  a.s_ = std::make_shared<const std::string>(std::move(type_name));
  return a;
}

Any Any::of_tuple(std::vector<Any> items) {
  Any a;
  a.kind_ = Kind::Tuple;
  a.object_ = std::make_shared<std::vector<Any>>(std::move(items));
  return a;
}

Any Any::of_shape(Shape dims) {
  Any a;
  a.kind_ = Kind::Shape;
  a.object_ = std::make_shared<Shape>(std::move(dims));
  return a;
}

std::string Any::type_name() const {
  switch (kind_) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Str:
      return "str";
    case Kind::NDArray:
      return "NDArray";
    case Kind::Function:
      return "Function";
    case Kind::Object:
      return *s_;
    case Kind::Tuple:
      return "Array";
    case Kind::Shape:
      return "ShapeTuple";
  }
  return "?";
}

bool Any::as_bool() const {
  TSCH_USER_ASSERT(kind_ == Kind::Bool || kind_ == Kind::Int, TypeError) << "expected a bool, got " << type_name();
  return i_ != 0;
}

int64_t Any::as_int() const {
  TSCH_USER_ASSERT(kind_ == Kind::Int || kind_ == Kind::Bool, TypeError) << "expected an int, got " << type_name();
  return i_;
}

double Any::as_float() const {
  if (kind_ == Kind::Int || kind_ == Kind::Bool) return static_cast<double>(i_);
  TSCH_USER_ASSERT(kind_ == Kind::Float, TypeError) << "expected a float, got " << type_name();
  return f_;
}

const std::string& Any::as_str() const {
  TSCH_USER_ASSERT(kind_ == Kind::Str, TypeError) << "expected a str, got " << type_name();
  return *s_;
}

const NDArrayRef& Any::as_ndarray() const {
  TSCH_USER_ASSERT(kind_ == Kind::NDArray, TypeError) << "expected an NDArray, got " << type_name();
  return ndarray_;
}

const PackedFunc& Any::as_function() const {
  TSCH_USER_ASSERT(kind_ == Kind::Function, TypeError) << "expected a Function, got " << type_name();
  return function_;
}

const std::shared_ptr<void>& Any::as_object() const {
  static const std::shared_ptr<void> none;
  return kind_ == Kind::Object ? object_ : none;
}

// Tuples and shapes are never written after of_tuple/of_shape made them, so copies share them.
const std::vector<Any>& Any::as_tuple() const {
  TSCH_USER_ASSERT(kind_ == Kind::Tuple, TypeError) << "expected an Array, got " << type_name();
  return *static_cast<const std::vector<Any>*>(object_.get());
}

const Shape& Any::as_shape() const {
  TSCH_USER_ASSERT(kind_ == Kind::Shape, TypeError) << "expected a ShapeTuple, got " << type_name();
  return *static_cast<const Shape*>(object_.get());
}

}  // namespace tsch::runtime
