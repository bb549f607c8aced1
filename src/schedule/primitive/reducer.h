// TVM's commutative reducers (its ReducerRegistry): what rfactor recognises a reduction
// block's update as. A reducer combines the buffers' current values x_0.. with new values
// y_0.. into results (one per buffer) and has an identity per buffer; `x + y` with 0, and the
// two-buffer argmax `(Select(x1 >= y1, x0, y0), Select(x1 >= y1, x1, y1))` with (-1, min).
#pragma once

#include <optional>
#include <vector>

#include "ir/expr.h"

namespace tsch::schedule {

struct CommReducer {
  std::vector<ir::Var> lhs, rhs;  // x_i, y_i
  std::vector<ir::PrimExpr> results;
  std::vector<ir::PrimExpr> identities;
  // Whether combining in another order gives the same result. The argmax / argmin forms that
  // keep the earlier index on ties (`x1 >= y1`) are associative only: folded in another
  // order they can find another index of the same best value.
  bool commutative = true;
  // results with x := `x`, y := `y`.
  std::vector<ir::PrimExpr> combine(const std::vector<ir::PrimExpr>& x, const std::vector<ir::PrimExpr>& y) const;
};

// A reducer an update matches, and the new values (y) it combines.
struct ReducerMatch {
  CommReducer reducer;
  std::vector<ir::PrimExpr> rhs;
};

// The registered reducer whose identities equal `inits` and whose results, with x_i read as
// `lhs_loads[i]` (the buffers' current values), are `values` — the y_i found on the way; or
// nullopt. Tried in TVM's order: sum, product, min, max, then the two-buffer ones.
std::optional<ReducerMatch> match_reducer(const std::vector<ir::PrimExpr>& inits,
                                          const std::vector<ir::PrimExpr>& values,
                                          const std::vector<ir::PrimExpr>& lhs_loads);

}  // namespace tsch::schedule
