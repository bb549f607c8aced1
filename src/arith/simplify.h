// Integer expression simplification: a canonical linear form (sum of coefficient * term plus
// a constant) that cancels and folds, e.g. `vi + 1 - vi + 1` -> 2. Given the ranges of
// variables it also resolves floordiv/floormod and min/max that the ranges decide:
// `(x * 8 + y) // 8 -> x` and `(x * 8 + y) % 8 -> y` when 0 <= y < 8.
#pragma once

#include "arith/interval.h"
#include "ir/expr.h"

namespace tsch::arith {

ir::PrimExpr simplify(const ir::PrimExpr& e);
ir::PrimExpr simplify(const ir::PrimExpr& e, const VarDomain& dom);
// The same, a variable whose range is one point first replaced by it (TVM's analyzer folds a
// unit loop's variable to 0; `simplify` keeps it, as TVM's passes that do not simplify do).
ir::PrimExpr simplify_folding_points(const ir::PrimExpr& e, const VarDomain& dom);

// The extent of [lo, hi): `hi - lo` simplified, or `e` itself when `hi` is written `lo + e`,
// which is how the printer writes a slice and a loop range; so printing and parsing a
// region or a loop are exact inverses even where `e` is not in the simplifier's form.
ir::PrimExpr extent_between(const ir::PrimExpr& lo, const ir::PrimExpr& hi);

// True when `e` is provably true / false under `dom` (comparisons of linear expressions).
bool can_prove(const ir::PrimExpr& e, const VarDomain& dom);

}  // namespace tsch::arith
