// Affine iteration maps: split and fuse patterns, failures, inverses.
#include <catch2/catch.hpp>

#include "arith/iter_map.h"
#include "ir/op.h"
#include "ir/printer.h"

using namespace tsch;
using namespace tsch::ir;

namespace {
PrimExpr c(int64_t v) { return make_int(v); }
}  // namespace

TEST_CASE("split bindings are affine and invertible", "[iter_map]") {
  Var i0 = make_var("i_0"), i1 = make_var("i_1"), j = make_var("j");
  arith::LoopExtents loops{{i0.get(), 32}, {i1.get(), 4}, {j.get(), 128}};
  auto map = arith::detect_iter_map({add(mul(i0, c(4)), i1), j}, loops, true);
  REQUIRE(map.ok);
  CHECK(map.sums[0].extent == 128);
  Var vi = make_var("vi"), vj = make_var("vj");
  auto inv = arith::inverse_iter_map(map, {vi, vj});
  CHECK(script(inv.at(i0.get())) == "vi % 128 // 4");  // TVM's canonical form of a split
  CHECK(script(inv.at(i1.get())) == "vi % 4");
  CHECK(script(inv.at(j.get())) == "vj");
}

TEST_CASE("fused bindings are affine", "[iter_map]") {
  Var f = make_var("i_j_fused");
  arith::LoopExtents loops{{f.get(), 128 * 64}};
  auto map = arith::detect_iter_map({floordiv(f, c(64)), floormod(f, c(64))}, loops, true);
  REQUIRE(map.ok);
  CHECK(map.sums[0].extent == 128);
  CHECK(map.sums[1].extent == 64);
  Var vi = make_var("vi"), vj = make_var("vj");
  auto inv = arith::inverse_iter_map(map, {vi, vj});
  CHECK(script(inv.at(f.get())) == "vi * 64 + vj");
}

TEST_CASE("non-affine and non-bijective bindings are rejected", "[iter_map]") {
  Var i = make_var("i"), j = make_var("j");
  arith::LoopExtents loops{{i.get(), 8}, {j.get(), 8}};
  auto square = arith::detect_iter_map({mul(i, i)}, loops, false);
  CHECK_FALSE(square.ok);
  CHECK(square.error.find("multiplies") != std::string::npos);
  auto twice = arith::detect_iter_map({i, add(i, j)}, loops, false);
  CHECK_FALSE(twice.ok);
  auto gap = arith::detect_iter_map({add(mul(i, c(16)), j)}, loops, false);
  CHECK_FALSE(gap.ok);
  auto unused = arith::detect_iter_map({i}, loops, true);
  CHECK_FALSE(unused.ok);
  CHECK(unused.error.find("does not use loop j") != std::string::npos);
  CHECK(arith::detect_iter_map({i}, loops, false).ok);
}
