// The global function registry in scripts: `tvm.register_func` (TVM 0.18's name; 0.23's
// `tvm.register_global_func`), `tvm.get_global_func`, `tvm.runtime.Function` (also
// `PackedFunc`), and the conversions between script values and runtime::Any that let C++
// code call script functions and scripts call C++ ones.
#pragma once

#include "runtime/packed_func.h"
#include "script/interpreter.h"

namespace tsch::bindings {

runtime::Any value_to_any(script::Interpreter& interp, const script::Value& v);
script::Value any_to_value(script::Interpreter& interp, const runtime::Any& a);
// A PackedFunc that calls the script callable `fn` (named `name` in errors). Calling it after
// the interpreter has ended is a RuntimeError.
runtime::PackedFunc script_packed_func(script::Interpreter& interp, const script::Value& fn, const std::string& name);
script::Value wrap_packed_func(runtime::PackedFunc f);

// tvm.register_func / register_global_func / get_global_func / list_global_func_names into
// `ns` (the tvm module), Function / PackedFunc into `runtime_ns`.
void install_registry(script::Namespace& ns);
void install_function_type(script::Namespace& runtime_ns);

}  // namespace tsch::bindings
