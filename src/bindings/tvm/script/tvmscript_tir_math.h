// The T.* math functions and intrinsics (tvmscript_tir_math.cc).
#pragma once

#include "ir/expr.h"
#include "script/interpreter.h"

namespace tsch::bindings {

// T.exp ... T.erf, T.pow / atan2 / fmod, T.if_then_else, T.popcount, T.likely, and T.isnan /
// isinf / isfinite as TVM builds them (boolean; false for integers; float16 tested in float32).
void def_math_functions(script::Namespace& ns);

}  // namespace tsch::bindings
