// reverse_compute_inline's helpers: the inverse of a load through digits of the consumer's
// iterators, its proof, and the guard forms TVM's analyzer leaves.
#include <catch2/catch.hpp>

#include "arith/int_set.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/primitive/reverse_inline_map.h"

using namespace tsch;
using namespace tsch::ir;
using namespace tsch::schedule;

namespace {
std::string s(const PrimExpr& e) { return script(e); }
PrimExpr c(int64_t v) { return make_int(v); }
IterVar iter(const Var& v, int64_t extent) { return IterVar{v, Range{c(0), c(extent)}, IterType::DataPar}; }
}  // namespace

TEST_CASE("digits of an iterator invert to the number they tile", "[reverse_compute_inline]") {
  Var v = make_var("v"), o = make_var("vi"), m = make_var("vm");
  std::vector<IterVar> iters{iter(v, 127)};
  std::vector<PrimExpr> loads{floordiv(v, c(16)), floormod(v, c(16))};
  auto inverse = digits_inverse(loads, iters, {o, m});
  REQUIRE(inverse.count(v.get()));
  CHECK(s(inverse.at(v.get())) == "vm + vi * 16");
  arith::VarDomain producer{{o.get(), arith::interval_of(Range{c(0), c(8)})},
                            {m.get(), arith::interval_of(Range{c(0), c(16)})}};
  arith::VarDomain consumer{{v.get(), arith::interval_of(Range{c(0), c(127)})}};
  CHECK(digits_invert_load(inverse, loads, {o, m}, iters, producer, consumer));
  // A producer writing 7 rows does not write all 127 values the consumer reads.
  arith::VarDomain short_rows{{o.get(), arith::interval_of(Range{c(0), c(7)})},
                              {m.get(), arith::interval_of(Range{c(0), c(16)})}};
  CHECK_FALSE(digits_invert_load(inverse, loads, {o, m}, iters, short_rows, consumer));
  // Digits that leave a gap (v % 8, v // 16) or stop short of the domain (v // 16 % 4 of 127) are not a number.
  CHECK(digits_inverse({floordiv(v, c(16)), floormod(v, c(8))}, iters, {o, m}).empty());
  CHECK(digits_inverse({floormod(floordiv(v, c(16)), c(4)), floormod(v, c(16))}, iters, {o, m}).empty());
  CHECK(digits_inverse({add(v, c(1))}, iters, {o}).empty());
}

TEST_CASE("producer guards take TVM's simplified form", "[reverse_compute_inline]") {
  Var i = make_var("i"), i0 = make_var("i0"), i1 = make_var("i1");
  CHECK(s(tvm_sum_order(add(i1, mul(i0, c(16))))) == "i0 * 16 + i1");
  CHECK(s(tvm_sum_order(add(sub(i1, mul(i0, c(2))), c(3)))) == "i1 - i0 * 2 + 3");
  std::vector<PrimExpr> g = tvm_fold_guards(
      {make_binary(ExprKind::LT, floordiv(i, c(128)), c(127)), make_binary(ExprKind::LT, floormod(i, c(128)), c(127))});
  REQUIRE(g.size() == 2);
  CHECK(s(g[0]) == "i < 16255");
  CHECK(s(g[1]) == "i % 128 < 127");
  // A bound not at a multiple of 128: tightened only past the values the remainder keeps.
  g = tvm_fold_guards({make_binary(ExprKind::LT, i, c(300)), make_binary(ExprKind::LT, floormod(i, c(128)), c(20))});
  CHECK(s(g[0]) == "i < 276");
  g = tvm_fold_guards({make_binary(ExprKind::LT, i, c(300)), make_binary(ExprKind::LT, floormod(i, c(128)), c(50))});
  CHECK(s(g[0]) == "i < 300");
}
