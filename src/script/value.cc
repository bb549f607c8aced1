#include "script/value.h"

#include "script/object.h"
#include "script/types.h"

namespace tsch::script {

namespace {
TypeRef& numpy_scalar_slot(uint8_t code) {
  static TypeRef types[kNumpyScalarCodes];
  return types[code % kNumpyScalarCodes];
}
}  // namespace

void register_numpy_scalar_type(uint8_t code, TypeRef type) { numpy_scalar_slot(code) = std::move(type); }

TypeObject* numpy_scalar_type(uint8_t code) { return numpy_scalar_slot(code).get(); }

TypeObject* Value::type() const {
  if (numpy_dtype_) return numpy_scalar_type(numpy_dtype_);
  const BuiltinTypes& t = builtin_types();
  switch (tag_) {
    case Tag::None:
      return t.none.get();
    case Tag::Bool:
      return t.bool_.get();
    case Tag::Int:
      return t.int_.get();
    case Tag::Float:
      return t.float_.get();
    case Tag::Object:
      return obj_->type();
  }
  return t.object.get();
}

bool Value::is(const Value& other) const {
  if (tag_ != other.tag_ || numpy_dtype_ != other.numpy_dtype_) return false;
  switch (tag_) {
    case Tag::None:
      return true;
    case Tag::Bool:
      return b_ == other.b_;
    // Small ints and equal floats behave as identical, close to what CPython shows.
    case Tag::Int:
      return i_ == other.i_;
    case Tag::Float:
      return f_ == other.f_;
    case Tag::Object:
      return obj_ == other.obj_;
  }
  return false;
}

}  // namespace tsch::script
