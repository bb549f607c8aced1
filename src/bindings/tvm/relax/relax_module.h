// tvm.relax in scripts (relax_module.cc): what the tvm package and tvm.runtime use of it.
#pragma once

#include <string>

#include "script/interpreter.h"

namespace tsch::bindings {

void register_tvm_relax_modules();
// tvm.compile of a module with Relax functions (relax.build).
script::Value compile_relax_module(script::Interpreter& interp, const script::Value& mod, const script::Value& target);
bool has_relax_functions(script::Interpreter& interp, const script::Value& v);

}  // namespace tsch::bindings
