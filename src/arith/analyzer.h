// TVM's arith.Analyzer as state and queries: variable ranges (bound, updated, narrowed by a
// constraint) and values (a variable bound to an expression), and over them constant bounds,
// modular sets and simplification. What tvm.arith.Analyzer in scripts calls
// (bindings/tvm/arith/). tsch's simplifier is not TVM's: what it proves holds, but a proof
// TVM finds may not be found here; a constraint not understood is dropped (a lost bound).
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arith/interval.h"
#include "ir/expr.h"

namespace tsch::arith {

// The ends of an unbounded range (TVM's ConstIntBound::kPosInf / kNegInf).
constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
constexpr int64_t kNegInf = -kPosInf;

struct Analyzer {
  // Variable ranges (bind to a Range, update, constraint_scope) and values (bind to an expr).
  VarDomain dom;
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> values;
  // The bound variables, kept alive while their nodes key the maps above.
  std::vector<ir::Var> vars;

  // `e` with the bound values substituted.
  ir::PrimExpr prepare(const ir::PrimExpr& e) const;
  ir::PrimExpr simplify(const ir::PrimExpr& e) const;
};

// The smallest and largest value of an integer dtype (kNegInf / kPosInf beyond int64).
int64_t dtype_min(ir::DataType t);
int64_t dtype_max(ir::DataType t);

// The constant bounds of `e`: its interval's constant ends, else the dtype's range for a
// variable (as TVM gives an unbound variable), else infinite; [0, 1] for a boolean.
std::pair<int64_t, int64_t> const_bounds(const Analyzer& an, const ir::PrimExpr& e);

// Narrows the ranges by the conjuncts of `cond` of the form `v < c`, `v <= c`, `v > c`,
// `v >= c`, `v == c` (either way round, c constant); other conjuncts are not used.
void narrow_by(Analyzer& an, const ir::PrimExpr& cond);

// TVM's can_prove_equal of a fresh analyzer: integer constants by value, handles by identity,
// anything else when lhs - rhs simplifies to 0.
bool can_prove_equal(const ir::PrimExpr& lhs, const ir::PrimExpr& rhs);

// The modular set {coeff * x + base} of `e`: its constant term mod the known divisor of the
// rest (TVM's ModularSetAnalyzer on a sum; a constant is {0 * x + c}).
std::pair<int64_t, int64_t> modular_set_of(const ir::PrimExpr& e);

}  // namespace tsch::arith
