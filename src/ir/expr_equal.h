// Deep equality and hashing of expressions with variables compared by identity (TVM's
// ExprDeepEqual). Structural equality modulo renaming lives in structural_equal.h.
#pragma once

#include <cstddef>

#include "ir/expr.h"

namespace tsch::ir {

bool expr_deep_equal(const PrimExpr& a, const PrimExpr& b);
size_t expr_hash(const PrimExpr& e);

}  // namespace tsch::ir
