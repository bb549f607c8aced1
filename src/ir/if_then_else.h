// TVM's tir.if_then_else as a builder.
#pragma once

#include "ir/expr.h"

namespace tsch::ir {

// A boolean condition, the two values matched to one type (as binary operators match them),
// a constant condition folded to the value it picks; IRError when the condition is not a
// scalar boolean.
PrimExpr if_then_else(const PrimExpr& cond, const PrimExpr& true_value, const PrimExpr& false_value);

}  // namespace tsch::ir
