// What reverse_compute_inline asks beyond compute_inline.cc's checks: the consumer's
// iterators recovered from a load through digits of them (`B[v // 16, v % 16]`, an injective
// load TVM inverts with its affine iter maps), and the guard an overcomputing producer takes
// over, in the form TVM's analyzer leaves it.
#pragma once

#include <unordered_map>
#include <vector>

#include "arith/interval.h"
#include "ir/stmt.h"

namespace tsch::schedule {

// Each consumer iterator as an expression of `outputs` (outputs[d] stands for load index d)
// where every load index is one digit of one iterator — `v`, `v // a`, `v % b`, `v // a % b`
// — and each iterator's digits tile it from the innermost (`o_inner + o_outer * 16`, TVM's
// InverseAffineIterMap form) up to its whole domain, so that the inverse of the load is the
// identity there. Empty where the loads are not such digits; an iterator of extent 1 with no
// digit maps to its minimum. The caller proves the other direction (digits_invert_load).
std::unordered_map<const ir::VarNode*, ir::PrimExpr> digits_inverse(const std::vector<ir::PrimExpr>& loads,
                                                                    const std::vector<ir::IterVar>& iters,
                                                                    const std::vector<ir::PrimExpr>& outputs);

// Whether `inverse` (from digits_inverse over the producer's store indices `stores`) makes the
// load and the store exact inverses: the producer stores at distinct iterators (each element
// once), the load at the inverse of every element it writes is that element (over
// `producer_dom`), and every element loaded over `consumer_dom` is written — so each consumer
// iteration is computed by exactly one producer iteration, the one that writes what it loads.
bool digits_invert_load(const std::unordered_map<const ir::VarNode*, ir::PrimExpr>& inverse,
                        const std::vector<ir::PrimExpr>& loads, const std::vector<ir::PrimExpr>& stores,
                        const std::vector<ir::IterVar>& iters, const arith::VarDomain& producer_dom,
                        const arith::VarDomain& consumer_dom);

// `e` simplified with the terms of a sum by descending coefficient, as TVM's canonical
// simplifier orders them (`vi * 16 + vm`).
ir::PrimExpr tvm_sum_order(const ir::PrimExpr& e);

// The conjuncts of a producer guard rewritten as TVM's rewrite simplifier does:
// `x // c1 < c2` becomes `x < c1 * c2`, and `x < c1` beside `x % c2 < c3` drops the values
// the second one excludes (`i < 16256 and i % 128 < 127` -> `i < 16255 and ...`).
std::vector<ir::PrimExpr> tvm_fold_guards(std::vector<ir::PrimExpr> guards);

}  // namespace tsch::schedule
