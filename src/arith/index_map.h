// TVM's IndexMap over integer indices: final indices as expressions of initial index
// variables (`lambda i, j: (j, i)`), applied to indices or a shape, inverted when bijective
// affine, compared. The script value tvm.tir.IndexMap (bindings/tvm/tir/index_map_values.h) is
// one; errors are UserErrors.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace tsch::arith {

struct IndexMap {
  std::vector<ir::Var> params;        // initial_indices
  std::vector<ir::PrimExpr> outputs;  // final_indices
};

// The outputs with the parameters replaced by `indices` (converted to the parameters' type).
std::vector<ir::PrimExpr> map_indices(const IndexMap& m, const std::vector<ir::PrimExpr>& indices);
// The shape a buffer of `shape` has after the mapping (each output's extent over the ranges).
std::vector<ir::PrimExpr> map_shape(const IndexMap& m, const std::vector<ir::PrimExpr>& shape);
// The inverse of a bijective affine map over a buffer of `shape` (constant): parameters
// axis0, axis1, ... (TVM's names); a parameter the map drops maps to 0.
IndexMap inverse_index_map(const IndexMap& m, const std::vector<ir::PrimExpr>& shape);
// Whether the two maps give the same final indices (int32 and int64 indices compare by value).
bool equivalent_index_maps(const IndexMap& a, const IndexMap& b);
// `lambda i, j: (j, i)`.
std::string index_map_lambda(const IndexMap& m);

}  // namespace tsch::arith
