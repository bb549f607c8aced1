#include "values/tvm_errors.h"

#include "script/exceptions.h"
#include "script/object.h"

namespace tsch::bindings {

using script::ExcKind;
using script::TypeObject;
using script::TypeRef;

TypeRef tvm_error_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("TVMError",
                                             std::vector<TypeRef>{script::exception_type_ref(ExcKind::RuntimeError)});
    type->set_module("tvm.error");
    return type;
  }();
  return t;
}

TypeRef internal_error_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("InternalError", std::vector<TypeRef>{tvm_error_type()});
    type->set_module("tvm.error");
    return type;
  }();
  return t;
}

void raise_internal_error(const std::string& message) {
  throw script::ScriptError(script::make_exception(internal_error_type().get(), {script::make_str(message)}));
}

}  // namespace tsch::bindings
