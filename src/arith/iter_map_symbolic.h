// Index maps over symbolic extents (a buffer of shape (1, 32, n), a block iterator over
// range(n)) that fuse whole indices: each output is a mixed-radix number of indices,
// `y * n + w` over y in [0, 32), w in [0, n). Such a map is a bijection from the index box
// onto the box of its outputs' extents (here 32 * n) whatever the (non-negative) extents are,
// which is what transform_layout and transform_block_layout need to prove where
// detect_iter_map, which works over constant extents, cannot decide.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/expr.h"

namespace tsch::arith {

// One index as a digit of an output: `source * scale`, source in [0, extent).
struct SymbolicDigit {
  const ir::VarNode* source = nullptr;
  ir::PrimExpr scale;
  ir::PrimExpr extent;
};

struct SymbolicSum {
  std::vector<SymbolicDigit> digits;  // innermost (scale 1) first
  ir::PrimExpr extent;                // the product of the digits' extents (1 without digits)
};

struct SymbolicFuseResult {
  bool ok = false;
  std::string error;              // why the map is not such a fusion
  std::vector<SymbolicSum> sums;  // one per output
};

// Decides whether `outputs`, over `params[i]` in [0, extents[i]), fuse whole indices into
// mixed-radix numbers using every index whose extent is not 1 exactly once (a bijection).
// An index of extent 1 is 0: its terms drop out. Scales may hold variables other than the
// parameters (`n`); no output may add a constant.
SymbolicFuseResult detect_symbolic_fuse(const std::vector<ir::PrimExpr>& outputs, const std::vector<ir::Var>& params,
                                        const std::vector<ir::PrimExpr>& extents);

// The inverse: each index as an expression of the outputs' values `at` (`at[k]` stands for
// output k): `at // scale % extent`, without the `%` for the outermost digit and the `//`
// for the innermost (TVM's form: `v0 // n`, `v0 % n`). Indices of extent 1 are not in it.
std::unordered_map<const ir::VarNode*, ir::PrimExpr> inverse_symbolic_fuse(const SymbolicFuseResult& map,
                                                                           const std::vector<ir::PrimExpr>& at);

// The map's variables other than its parameters made the variables of `scope` (a buffer's
// shape, a block's extents) they stand for: the same object, or one of the same name and
// dtype (a map replayed from a trace's JSON holds new variables of the names it was written
// with). Returns the name of a variable `scope` does not use, or "".
std::string bind_to_scope(std::vector<ir::PrimExpr>& outputs, const std::vector<ir::Var>& params,
                          const std::vector<ir::PrimExpr>& scope);

}  // namespace tsch::arith
