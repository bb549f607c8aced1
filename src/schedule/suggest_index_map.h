// TVM's SuggestIndexMap (tvm.tir.schedule.analysis.suggest_index_map): the layout that makes a
// buffer access pattern over some loops contiguous in loop order.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "ir/expr.h"

namespace tsch::schedule {

// A map from a buffer's indices to the new layout's, and its inverse.
struct SuggestedIndexMap {
  std::vector<ir::Var> params;
  std::vector<ir::PrimExpr> outputs;
  std::vector<ir::Var> inverse_params;
  std::vector<ir::PrimExpr> inverse_outputs;
};

// The buffer (constant `shape`, row-major) is read at `indices` inside `loops` (variable and
// constant extent, each from 0). The flattened index is detected as splits of the loops
// (`v // lower_factor % extent`); the suggested layout has one dimension per split, ordered
// by loop, then outer part first. Nullopt when the index is no such sum of splits.
std::optional<SuggestedIndexMap> suggest_index_map(const std::vector<int64_t>& shape,
                                                   const std::vector<ir::PrimExpr>& indices,
                                                   const std::vector<std::pair<ir::Var, int64_t>>& loops);

}  // namespace tsch::schedule
