// isnan / isinf / isfinite as TVM's tir.isnan builds them (T.isnan, tvm.tir.isnan).
#pragma once

#include <string>

#include "ir/expr.h"

namespace tsch::ir {

// `op` ("isnan", "isinf" or "isfinite") of `x`: a boolean of x's lanes; for an integer false
// (isfinite: true), folded for a literal, float16 tested in float32.
PrimExpr float_class_test(const std::string& op, const PrimExpr& x);

}  // namespace tsch::ir
