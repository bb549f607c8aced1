#include "script/value.h"

#include "script/object.h"
#include "script/types.h"

namespace tsch::script {

TypeObject* Value::type() const {
  const BuiltinTypes& t = builtin_types();
  switch (tag_) {
    case Tag::None: return t.none.get();
    case Tag::Bool: return t.bool_.get();
    case Tag::Int: return t.int_.get();
    case Tag::Float: return t.float_.get();
    case Tag::Object: return obj_->type();
  }
  return t.object.get();
}

bool Value::is(const Value& other) const {
  if (tag_ != other.tag_) return false;
  switch (tag_) {
    case Tag::None: return true;
    case Tag::Bool: return b_ == other.b_;
    // Small ints and equal floats behave as identical, close to what CPython shows.
    case Tag::Int: return i_ == other.i_;
    case Tag::Float: return f_ == other.f_;
    case Tag::Object: return obj_ == other.obj_;
  }
  return false;
}

}  // namespace tsch::script
