// TVM's error classes (python/tvm/error.py): tvm.error.TVMError, a RuntimeError, and
// InternalError, what TVM raises when one of its C++ checks (ICHECK, LOG(FATAL)) fails —
// tsch raises it for the same refusals in IR construction (ir::IRError).
#pragma once

#include <string>

#include "script/types.h"

namespace tsch::bindings {

script::TypeRef tvm_error_type();
script::TypeRef internal_error_type();
[[noreturn]] void raise_internal_error(const std::string& message);

}  // namespace tsch::bindings
