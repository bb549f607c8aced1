// The T.* functions of vector code and LLVM intrinsics (tvmscript_tir_vector.cc); T.Ramp and
// T.Broadcast must be defined first (T.ramp / T.broadcast alias them).
#pragma once

#include "script/interpreter.h"

namespace tsch::bindings {

void def_vector_functions(script::Namespace& ns);

}  // namespace tsch::bindings
