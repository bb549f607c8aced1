// The T.* builtins of TVM's ldmatrix / mma tensor-core intrinsics (tvmscript_tir_mma.cc):
// T.ptx_ldmatrix, T.ptx_mma, T.mma_store, T.mma_fill.
#pragma once

#include "script/interpreter.h"

namespace tsch::bindings {

void def_mma_functions(script::Namespace& ns);

}  // namespace tsch::bindings
