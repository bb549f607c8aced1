// Integer intervals of expressions over variable ranges, and unions of buffer regions:
// what a block reads and writes when the loops inside it are relaxed.
#pragma once

#include <vector>

#include "arith/interval.h"
#include "ir/stmt.h"

namespace tsch::arith {

// Bounds of `e` when each variable in `dom` ranges over its interval; other variables are
// treated as fixed points.
Interval eval_interval(const ir::PrimExpr& e, const VarDomain& dom);
// The smallest interval covering both.
Interval interval_union(const Interval& a, const Interval& b);
// `a` cut to `b` only at the ends `dom` does not already prove inside `b`, simplified
// under `dom` (so a region that fits keeps its plain form).
Interval interval_clamp(const Interval& a, const Interval& b, const VarDomain& dom);
// [min, min + extent - 1] of a Range.
Interval interval_of(const ir::Range& r);
ir::Range range_of(const Interval& i);

}  // namespace tsch::arith
