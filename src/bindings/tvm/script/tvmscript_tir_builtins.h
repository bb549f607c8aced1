// TVM's builtin ops that tsch builds and prints but does not compile for the CPU (the PTX
// async copies and barriers, structure access, workspace calls, ...): T.* and tvm.tir.*.
#pragma once

#include "script/interpreter.h"

namespace tsch::bindings {

void def_builtin_functions(script::Namespace& ns);

}  // namespace tsch::bindings
