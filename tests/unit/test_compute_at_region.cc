// compute_at's region helpers: TVM's simplified forms of region bounds and T.where terms, and
// the symbolic-bound proofs that decide whether a term is needed.
#include <catch2/catch.hpp>

#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/primitive/compute_at_region.h"

using namespace tsch;
using namespace tsch::ir;
using namespace tsch::schedule::compute_at_detail;

namespace {
std::string s(const PrimExpr& e) { return script(e); }
PrimExpr c(int64_t v) { return make_int(v); }
}  // namespace

TEST_CASE("region bounds by a divisor take TVM's simplified form", "[compute_at]") {
  Var co = make_var("c_o"), i = make_var("i");
  arith::VarDomain dom{{co.get(), {c(0), c(1)}}, {i.get(), {c(0), c(7)}}};
  CHECK(s(simplify_div_bound(floordiv(mul(co, c(360)), c(16)), dom)) == "c_o * 22");
  CHECK(s(simplify_div_bound(floordiv(add(mul(co, c(360)), c(359)), c(16)), dom)) == "c_o * 22 + 22");
  CHECK(s(simplify_div_bound(floordiv(add(mul(i, c(8)), c(7)), c(16)), dom)) == "i // 2");
  CHECK(s(simplify_div_bound(floordiv(add(mul(i, c(32)), c(31)), c(16)), dom)) == "i * 2 + 1");
  // Negative constants floor: (i * 8 - 1) // 16 is (i + -1) // 2 after the factor 8 goes.
  CHECK(s(simplify_div_bound(floordiv(sub(mul(i, c(8)), c(1)), c(16)), dom)) == "(i - 1) // 2");
  CHECK(s(simplify_div_bound(add(i, c(1)), dom)) == "i + 1");
}

TEST_CASE("bound terms move constants to the side without variables", "[compute_at]") {
  Var i = make_var("i"), ax0 = make_var("ax0");
  CHECK(s(bound_term(sub(i, c(16)), c(0), true)) == "16 <= i");
  CHECK(s(bound_term(add(sub(mul(i, c(8)), c(1)), ax0), c(0), true)) == "1 <= i * 8 + ax0");
  CHECK(s(bound_term(add(sub(mul(i, c(8)), c(1)), ax0), c(223), false)) == "i * 8 + ax0 < 225");
  CHECK(s(reversed_form(add(mul(i, c(-1)), c(9)))) == "9 - i");
  CHECK(s(reversed_form(add(i, c(9)))) == "i + 9");
}

TEST_CASE("symbolic bounds are proved as TVM's symbolic-bound proof does", "[compute_at]") {
  Var n = make_var("n"), k0 = make_var("k_0"), ax0 = make_var("ax0"), f = make_var("f");
  arith::VarDomain dom{
      {k0.get(), {c(0), sub(n, c(1))}}, {ax0.get(), {c(0), c(31)}}, {f.get(), {c(0), sub(mul(n, c(32)), c(1))}}};
  CHECK(prove_bound(make_binary(ExprKind::LT, add(mul(k0, c(32)), ax0), mul(n, c(32))), dom));
  CHECK_FALSE(prove_bound(make_binary(ExprKind::LT, add(mul(k0, c(32)), ax0), mul(n, c(31))), dom));
  CHECK(prove_bound(make_binary(ExprKind::LT, floordiv(f, n), c(32)), dom));
  CHECK_FALSE(prove_bound(make_binary(ExprKind::LT, floordiv(f, n), c(31)), dom));
  CHECK(prove_bound(make_binary(ExprKind::LT, floormod(f, n), n), dom));
  // A lower bound, as bound_term writes it.
  CHECK(prove_bound(make_binary(ExprKind::GE, mul(n, c(32)), add(mul(k0, c(32)), ax0)), dom));
  CHECK_FALSE(prove_bound(make_binary(ExprKind::GE, mul(n, c(31)), add(mul(k0, c(32)), ax0)), dom));
}
