// Integer expression simplification: a canonical linear form (sum of coefficient * term plus
// a constant) that cancels and folds, e.g. `vi + 1 - vi + 1` -> 2, `i_0 * 4 + i_1 - (i_0 * 4)` -> i_1.
#pragma once

#include "ir/expr.h"

namespace tsch::arith {

ir::PrimExpr simplify(const ir::PrimExpr& e);

}  // namespace tsch::arith
