// Expressions of T.vscale(), the multiple of a scalable vector's minimum length (Arm SVE,
// RISC-V V): which expressions are "constants up to vscale", and what TVM's analyzer proves
// about them by trying each value vscale can take on the target.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/expr.h"

namespace tsch::arith {

bool is_vscale_call(const ir::PrimExpr& e);
bool contains_vscale(const ir::PrimExpr& e);
// Whether `e` uses no variable: integer constants, T.vscale() and operators over them.
bool is_vscale_constant(const ir::PrimExpr& e);
// `e` with each T.vscale() replaced by `value`.
ir::PrimExpr substitute_vscale(const ir::PrimExpr& e, int64_t value);
// Whether the condition simplifies to a non-zero constant for every value of vscale in
// `values` (TVM's CanProveVscaleExpressionFromKnownValues); false for no values.
bool can_prove_for_vscale_values(const ir::PrimExpr& cond, const std::vector<int64_t>& values);

}  // namespace tsch::arith
