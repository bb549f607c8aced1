// Integer intervals and variable domains shared by the simplifier and bound analysis.
#pragma once

#include <unordered_map>

#include "ir/expr.h"

namespace tsch::arith {

// [min, max] inclusive; both may be symbolic. Null bounds mean "unknown".
struct Interval {
  ir::PrimExpr min, max;
};
using VarDomain = std::unordered_map<const ir::VarNode*, Interval>;

}  // namespace tsch::arith
