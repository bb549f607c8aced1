// Index maps over symbolic extents: fusions of whole indices, their inverse, refusals.
#include <catch2/catch.hpp>

#include "arith/iter_map_symbolic.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"

using namespace tsch;
using namespace tsch::ir;

namespace {
PrimExpr c(int64_t v) { return make_int(v); }
}  // namespace

TEST_CASE("a fusion over a symbolic extent is a mixed-radix number", "[iter_map]") {
  Var n = make_var("n"), x = make_var("x"), y = make_var("y"), z = make_var("z"), w = make_var("w");
  // x * 32 * n + y * n + z * n + w over (1, 32, 1, n): x and z are 0, y has scale n.
  PrimExpr out = add(add(add(mul(mul(x, c(32)), n), mul(y, n)), mul(z, n)), w);
  auto map = arith::detect_symbolic_fuse({out}, {x, y, z, w}, {c(1), c(32), c(1), n});
  REQUIRE(map.ok);
  REQUIRE(map.sums.size() == 1);
  REQUIRE(map.sums[0].digits.size() == 2);
  CHECK(map.sums[0].digits[0].source == w.get());
  CHECK(map.sums[0].digits[1].source == y.get());
  CHECK(script(map.sums[0].extent) == "n * 32");
  Var v0 = make_var("v0");
  auto inv = arith::inverse_symbolic_fuse(map, {v0});
  CHECK(script(inv.at(w.get())) == "v0 % n");
  CHECK(script(inv.at(y.get())) == "v0 // n");
  CHECK_FALSE(inv.count(x.get()));
  // The inverse composed with the map is the identity: the fused index comes back.
  std::unordered_map<const VarNode*, PrimExpr> back{
      {y.get(), inv.at(y.get())}, {w.get(), inv.at(w.get())}, {x.get(), c(0)}, {z.get(), c(0)}};
  CHECK(script(arith::simplify(substitute(out, back))) == "v0");
}

TEST_CASE("fusions in either order and several outputs", "[iter_map]") {
  Var n = make_var("n"), m = make_var("m"), i = make_var("i"), j = make_var("j"), k = make_var("k");
  // j * n + i over (n, 4): i is the inner digit.
  auto swapped = arith::detect_symbolic_fuse({add(mul(j, n), i)}, {i, j}, {n, c(4)});
  REQUIRE(swapped.ok);
  CHECK(swapped.sums[0].digits[0].source == i.get());
  // (i * m + j, k) over (n, m, 8): two outputs, the second a single index.
  auto two = arith::detect_symbolic_fuse({add(mul(i, m), j), k}, {i, j, k}, {n, m, c(8)});
  REQUIRE(two.ok);
  CHECK(script(two.sums[0].extent) == "m * n");
  CHECK(script(two.sums[1].extent) == "8");
  Var a = make_var("a"), b = make_var("b");
  auto inv = arith::inverse_symbolic_fuse(two, {a, b});
  CHECK(script(inv.at(k.get())) == "b");
}

TEST_CASE("maps that are not fusions of whole indices are refused", "[iter_map]") {
  Var n = make_var("n"), i = make_var("i"), j = make_var("j");
  std::vector<Var> params{i, j};
  std::vector<PrimExpr> extents{c(32), n};
  auto split = arith::detect_symbolic_fuse({i, floordiv(j, c(4)), floormod(j, c(4))}, params, extents);
  CHECK_FALSE(split.ok);
  CHECK(split.error.find("not a sum of indices") != std::string::npos);
  auto gap = arith::detect_symbolic_fuse({add(mul(i, n), mul(j, c(2)))}, params, extents);
  CHECK_FALSE(gap.ok);
  CHECK(gap.error.find("mixed-radix") != std::string::npos);
  auto wrong_scale = arith::detect_symbolic_fuse({add(mul(i, add(n, c(1))), j)}, params, extents);
  CHECK_FALSE(wrong_scale.ok);
  auto offset = arith::detect_symbolic_fuse({add(add(mul(i, n), j), c(1))}, params, extents);
  CHECK_FALSE(offset.ok);
  CHECK(offset.error.find("offset") != std::string::npos);
  auto twice = arith::detect_symbolic_fuse({add(mul(i, n), j), j}, params, extents);
  CHECK_FALSE(twice.ok);
  CHECK(twice.error.find("more than once") != std::string::npos);
  auto unused = arith::detect_symbolic_fuse({j}, params, extents);
  CHECK_FALSE(unused.ok);
  CHECK(unused.error.find("does not use index i") != std::string::npos);
  auto product = arith::detect_symbolic_fuse({mul(i, j)}, params, extents);
  CHECK_FALSE(product.ok);
}

TEST_CASE("simplify folds a division and remainder by a symbolic divisor", "[arith]") {
  Var n = make_var("n"), v = make_var("v"), u = make_var("u");
  CHECK(script(arith::simplify(add(mul(floordiv(v, n), n), floormod(v, n)))) == "v");
  CHECK(script(arith::simplify(add(mul(n, floordiv(v, n)), floormod(v, n)))) == "v");
  // Twice over, with another term beside; the merged term keeps the product's place.
  PrimExpr twice = mul(add(mul(floordiv(v, n), n), floormod(v, n)), c(2));
  CHECK(script(arith::simplify(add(twice, u))) == "v * 2 + u");
  // A zero dividend folds, as TVM's constant folding: (v - v) % n and (v - v) // n are 0.
  CHECK(script(arith::simplify(floormod(sub(v, v), n))) == "0");
  CHECK(script(arith::simplify(floordiv(sub(v, v), n))) == "0");
  // Different divisors or dividends stay.
  CHECK(script(arith::simplify(add(mul(floordiv(v, n), n), floormod(u, n)))) == "v // n * n + u % n");
  CHECK(script(arith::simplify(add(mul(floordiv(v, n), u), floormod(v, n)))) == "v // n * u + v % n");
}
