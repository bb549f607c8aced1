// The T.* math functions and intrinsics (tvmscript_tir_math.cc).
#pragma once

#include "ir/expr.h"
#include "script/interpreter.h"

namespace tsch::bindings {

// T.exp ... T.erf, T.pow / atan2 / fmod, T.if_then_else, T.popcount, T.likely, and T.isnan /
// isinf / isfinite as TVM builds them (boolean; false for integers; float16 tested in float32).
void def_math_functions(script::Namespace& ns);

// TVM's tir.if_then_else: a boolean condition, the two values matched to one type (as binary
// operators match them), a constant condition folded to the value it picks.
ir::PrimExpr if_then_else(const ir::PrimExpr& cond, const ir::PrimExpr& true_value, const ir::PrimExpr& false_value);

}  // namespace tsch::bindings
