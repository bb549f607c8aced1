// The T.* calls of builtins and external functions (tvmscript_tir_calls.cc).
#pragma once

#include "script/interpreter.h"

namespace tsch::bindings {

// T.call_packed, T.call_extern / T.call_pure_extern, T.q_multiply_shift(_per_axis),
// T.type_annotation, T.tvm_access_ptr, T.tvm_stack_make_shape / T.tvm_stack_make_array.
void def_call_functions(script::Namespace& ns);

}  // namespace tsch::bindings
