// Structural equality of Relax functions (names do not matter; symbolic variables are matched
// bijectively), registered with the shared IRModule comparison.
#pragma once

#include "ir/structural_equal.h"
#include "relax/expr.h"

namespace tsch::relax {

ir::StructuralDiff structural_diff(const Function& a, const Function& b);
// Installs the Relax function and ExternFunc comparers (idempotent).
void register_relax_structural_equal();

}  // namespace tsch::relax
