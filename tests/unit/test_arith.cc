// Arithmetic analysis: linear simplification, interval bounds, region unions.
#include <catch2/catch.hpp>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/known_divisor.h"
#include "arith/scalable_expression.h"
#include "arith/simplify.h"
#include "ir/op.h"
#include "ir/printer.h"

using namespace tsch;
using namespace tsch::ir;
using arith::simplify;

namespace {
std::string s(const PrimExpr& e) { return script(e); }
PrimExpr c(int64_t v) { return make_int(v); }
}  // namespace

TEST_CASE("simplify cancels and folds linear terms", "[arith]") {
  Var i = make_var("i"), j = make_var("j");
  CHECK(s(simplify(add(sub(add(i, c(1)), i), c(1)))) == "2");
  CHECK(s(simplify(sub(add(mul(i, c(4)), j), mul(i, c(4))))) == "j");
  CHECK(s(simplify(add(mul(add(i, c(2)), c(3)), mul(i, c(-3))))) == "6");
  CHECK(s(simplify(sub(j, mul(i, c(2))))) == "j - i * 2");
  CHECK(s(simplify(add(add(i, j), add(i, c(-5))))) == "i * 2 + j - 5");
}

TEST_CASE("simplify keeps non-linear terms as atoms", "[arith]") {
  Var i = make_var("i");
  PrimExpr fd = floordiv(i, c(8));
  CHECK(s(simplify(sub(add(fd, c(1)), fd))) == "1");
  CHECK(s(simplify(add(mul(i, i), mul(i, i)))) == "i * i * 2");
}

TEST_CASE("interval of affine expressions over loop ranges", "[arith]") {
  Var i = make_var("i"), j = make_var("j");
  arith::VarDomain dom{{i.get(), {c(0), c(31)}}, {j.get(), {c(0), c(3)}}};
  arith::Interval r = arith::eval_interval(add(mul(i, c(4)), j), dom);
  CHECK(s(r.min) == "0");
  CHECK(s(r.max) == "127");
  arith::Interval neg = arith::eval_interval(sub(c(10), mul(i, c(2))), dom);
  CHECK(s(neg.min) == "-52");
  CHECK(s(neg.max) == "10");
  arith::Interval fd = arith::eval_interval(floordiv(add(mul(i, c(4)), j), c(8)), dom);
  CHECK(s(fd.max) == "15");
  arith::Interval fm = arith::eval_interval(floormod(i, c(8)), dom);
  CHECK(s(fm.min) == "0");
  CHECK(s(fm.max) == "7");
}

TEST_CASE("interval with symbolic bounds", "[arith]") {
  Var i = make_var("i"), n = make_var("n"), v = make_var("v");
  arith::VarDomain dom{{i.get(), {c(0), sub(n, c(1))}}};
  arith::Interval r = arith::eval_interval(add(v, i), dom);
  CHECK(s(r.min) == "v");
  CHECK(s(r.max) == "v + n - 1");
  // Unknown bounds for non-affine uses of a relaxed variable.
  CHECK(arith::eval_interval(mul(i, i), dom).min == nullptr);
}

TEST_CASE("union of intervals differing by constants is exact", "[arith]") {
  Var v = make_var("vi");
  arith::Interval u = arith::interval_union({v, v}, {add(v, c(1)), add(v, c(1))});
  CHECK(s(u.min) == "vi");
  CHECK(s(u.max) == "vi + 1");
  CHECK(s(arith::range_of(u).extent) == "2");
}

TEST_CASE("block access regions relax inner loops", "[arith]") {
  Buffer a = make_buffer("A", DataType::float32(), {c(16), c(32)});
  Buffer out = make_buffer("S", DataType::float32(), {c(16)});
  Var vi = make_var("vi"), k = make_var("k");
  Stmt store = std::make_shared<BufferStoreNode>(out, add(buffer_load(out, {vi}), buffer_load(a, {vi, k})),
                                                 std::vector<PrimExpr>{vi});
  Stmt loop = std::make_shared<ForNode>(k, c(0), c(32), ForKind::Serial, store);
  arith::AccessRegions r = arith::infer_access_regions(loop, nullptr);
  REQUIRE(r.reads.size() == 2);
  CHECK(r.reads[1].buffer == a);
  CHECK(s(r.reads[1].region[1].min) == "0");
  CHECK(s(r.reads[1].region[1].extent) == "32");
  REQUIRE(r.writes.size() == 1);
  // With an init, the written buffer is not a read.
  Stmt init = std::make_shared<BufferStoreNode>(out, make_float(0), std::vector<PrimExpr>{vi});
  CHECK(arith::infer_access_regions(loop, init).reads.size() == 1);
}

TEST_CASE("block access regions of data pointers follow TVM's detector", "[arith]") {
  Buffer table = make_buffer("T", DataType::int_(8), {c(64)});
  Buffer ext = make_buffer("E", DataType::float32(), {c(8)});
  Buffer out = make_buffer("O", DataType::float32(), {c(8)});
  Var vi = make_var("vi");
  auto ptr = [&](const Buffer& b, int64_t mask) {
    return PrimExpr(std::make_shared<CallNode>(DataType::handle(), "tvm_access_ptr",
                                               std::vector<PrimExpr>{make_float(0), b->data, c(0), c(8), c(mask)}));
  };
  Stmt store = std::make_shared<BufferStoreNode>(out, make_float(1), std::vector<PrimExpr>{vi});
  Stmt body = std::make_shared<SeqStmtNode>(std::vector<Stmt>{std::make_shared<EvaluateNode>(ptr(table, 1)), store});
  // Unknown pointers are not accesses; a known one read through tvm_access_ptr is the whole buffer.
  CHECK(arith::infer_access_regions(body, nullptr).reads.empty());
  arith::AccessRegions r = arith::infer_access_regions(body, nullptr, {}, {}, {table, ext, out});
  REQUIRE(r.reads.size() == 1);
  CHECK(r.reads[0].buffer == table);
  CHECK(s(r.reads[0].region[0].extent) == "64");
  REQUIRE(r.writes.size() == 1);
  // A read-write pointer, or the bare pointer, is an opaque access: read and written, listed last.
  Stmt opaque = std::make_shared<SeqStmtNode>(std::vector<Stmt>{std::make_shared<EvaluateNode>(ptr(table, 3)),
                                                                std::make_shared<EvaluateNode>(ext->data), store});
  r = arith::infer_access_regions(opaque, nullptr, {}, {}, {table, ext, out});
  REQUIRE(r.reads.size() == 2);
  CHECK(r.reads[0].buffer == table);
  CHECK(r.reads[1].buffer == ext);
  REQUIRE(r.writes.size() == 3);
  CHECK(r.writes[0].buffer == out);
  CHECK(r.writes[2].buffer == ext);
}

TEST_CASE("opaque pointer uses are reported apart for TVMScript's inference", "[arith]") {
  Buffer a = make_buffer("A", DataType::float32(), {c(8)});
  Stmt bare = std::make_shared<EvaluateNode>(a->data);
  CHECK(arith::infer_access_regions(bare, nullptr).opaques.empty());
  arith::AccessRegions r = arith::infer_access_regions(bare, nullptr, {}, {}, {a});
  REQUIRE(r.opaques.size() == 1);
  CHECK(r.opaques[0].buffer == a);
}

TEST_CASE("an undeclared container's regions are those of the blocks inside it", "[arith]") {
  Buffer a = make_buffer("A", DataType::float32(), {c(16)});
  Buffer o = make_buffer("O", DataType::float32(), {c(16)});
  Buffer x = make_buffer("X", DataType::float32(), {c(1)});
  // for j in range(4, 12): block "B" (vj = j) reads A[vj], writes O[vj] — inside a block "P"
  // that allocates X and stores to it, inside a block "C"; P and C declare no regions.
  Var j = make_var("j"), vj = make_var("vj");
  auto leaf = std::make_shared<BlockNode>();
  leaf->name = "B";
  leaf->iter_vars.push_back(IterVar{vj, Range{c(0), c(16)}, IterType::DataPar});
  leaf->reads.push_back(BufferRegion{a, {Range{vj, c(1)}}});
  leaf->writes.push_back(BufferRegion{o, {Range{vj, c(1)}}});
  leaf->body = std::make_shared<BufferStoreNode>(o, buffer_load(a, {vj}), std::vector<PrimExpr>{vj});
  Stmt realize = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{j}, make_bool(true), leaf);
  Stmt loop = std::make_shared<ForNode>(j, c(4), c(8), ForKind::Serial, realize);
  auto part = std::make_shared<BlockNode>();
  part->name = "P";
  part->alloc_buffers.push_back(x);
  part->body = std::make_shared<SeqStmtNode>(
      std::vector<Stmt>{std::make_shared<BufferStoreNode>(x, make_float(0), std::vector<PrimExpr>{c(0)}), loop});
  auto common = std::make_shared<BlockNode>();
  common->name = "C";
  common->body = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), part);
  CHECK(arith::is_undeclared_container(*common));
  CHECK_FALSE(arith::is_undeclared_container(*leaf));
  arith::AccessRegions r = arith::effective_access_regions(*common);
  REQUIRE(r.reads.size() == 1);
  CHECK(r.reads[0].buffer == a);
  CHECK(s(r.reads[0].region[0].min) == "4");
  CHECK(s(r.reads[0].region[0].extent) == "8");
  REQUIRE(r.writes.size() == 1);  // X, allocated inside, is not among them
  CHECK(r.writes[0].buffer == o);
  // Without a block inside, a block declaring nothing is taken at its word.
  auto empty_leaf = std::make_shared<BlockNode>(*leaf);
  empty_leaf->reads.clear();
  empty_leaf->writes.clear();
  CHECK_FALSE(arith::is_undeclared_container(*empty_leaf));
  CHECK(arith::effective_access_regions(*empty_leaf).writes.empty());
}

TEST_CASE("floordiv and floormod resolve with known ranges", "[arith]") {
  Var x = make_var("x"), y = make_var("y");
  arith::VarDomain dom{{x.get(), {c(0), c(15)}}, {y.get(), {c(0), c(7)}}};
  PrimExpr fused = add(mul(x, c(8)), y);
  CHECK(s(simplify(floordiv(fused, c(8)), dom)) == "x");
  CHECK(s(simplify(floormod(fused, c(8)), dom)) == "y");
  CHECK(s(simplify(floordiv(add(fused, c(16)), c(8)), dom)) == "x + 2");
  CHECK(s(simplify(floormod(add(fused, c(-8)), c(8)), dom)) == "y");
  // Without the range of y nothing is known.
  CHECK(s(simplify(floordiv(fused, c(8)))) == "(x * 8 + y) // 8");
  // Nested: (x * 8 + y) // 4 % 2 -> y // 4
  CHECK(s(simplify(floormod(floordiv(fused, c(4)), c(2)), dom)) == "y // 4");
  CHECK(s(simplify(make_binary(ExprKind::Min, y, c(9)), dom)) == "y");
  CHECK(s(simplify(make_binary(ExprKind::Max, y, c(-1)), dom)) == "y");
  CHECK(arith::can_prove(make_binary(ExprKind::LT, fused, c(128)), dom));
  CHECK_FALSE(arith::can_prove(make_binary(ExprKind::LT, fused, c(127)), dom));
}

TEST_CASE("negative constants fold with floor semantics", "[arith]") {
  Var x = make_var("x");
  arith::VarDomain dom{{x.get(), {c(0), c(3)}}};
  CHECK(s(simplify(floordiv(sub(x, c(4)), c(4)), dom)) == "-1");
  CHECK(s(simplify(floormod(sub(x, c(4)), c(4)), dom)) == "x");
}

TEST_CASE("a split is written as TVM's canonical simplifier writes it", "[arith]") {
  Var x = make_var("x");
  CHECK(s(simplify(floormod(floordiv(x, c(3)), c(7)))) == "x % 21 // 3");
  CHECK(s(simplify(floordiv(floormod(x, c(21)), c(3)))) == "x % 21 // 3");
  // Within the bound the modulus is dropped; a divisor product past int64 keeps the form.
  arith::VarDomain dom{{x.get(), {c(0), c(20)}}};
  CHECK(s(simplify(floormod(floordiv(x, c(3)), c(7)), dom)) == "x // 3");
  CHECK(s(simplify(floormod(floordiv(x, c(int64_t{1} << 40)), c(int64_t{1} << 40)))) ==
        "x // 1099511627776 % 1099511627776");
}

TEST_CASE("x // c * c + x % c recombines to x", "[arith]") {
  Var i = make_var("i"), j = make_var("j");
  // What flattening a fused loop's two indices leaves.
  CHECK(s(simplify(add(mul(floordiv(i, c(128)), c(128)), floormod(i, c(128))))) == "i");
  // Scaled, with other terms around, and on a compound dividend.
  PrimExpr x = add(mul(i, c(4)), j);
  CHECK(s(simplify(add(add(mul(floordiv(x, c(16)), c(32)), c(1)), mul(floormod(x, c(16)), c(2))))) ==
        "i * 8 + j * 2 + 1");
  // Not when the coefficients or divisors disagree.
  CHECK(s(simplify(add(mul(floordiv(i, c(128)), c(64)), floormod(i, c(128))))) == "i // 128 * 64 + i % 128");
  CHECK(s(simplify(add(mul(floordiv(i, c(128)), c(128)), floormod(i, c(64))))) == "i // 128 * 128 + i % 64");
}

TEST_CASE("known_divisor proves what vector accesses need and no more", "[arith]") {
  Var t = make_var("t"), tx = make_var("tx"), k = make_var("k");
  PrimExpr x = add(mul(t, c(256)), mul(tx, c(4)));
  CHECK(arith::known_divisor(x) == 4);
  CHECK(arith::known_multiple_of(floormod(x, c(8)), 4));  // a multiple of 4 mod 8 stays one
  CHECK(arith::known_divisor(floordiv(x, c(8))) == 1);    // 4t // 8: nothing known
  CHECK(arith::known_divisor(floordiv(mul(t, c(64)), c(8))) == 8);
  CHECK(arith::known_multiple_of(add(add(mul(floordiv(x, c(8)), c(256)), mul(k, c(8))), floormod(x, c(8))), 4));
  CHECK_FALSE(arith::known_multiple_of(add(x, c(1)), 4));
  CHECK_FALSE(arith::known_multiple_of(add(x, k), 2));
  CHECK(arith::known_divisor(c(0)) == 0);  // zero: every integer divides it
  CHECK(arith::known_multiple_of(c(0), 16));
  CHECK(arith::known_multiple_of(c(-12), 4));
}

TEST_CASE("expressions of vscale: constants up to vscale, proofs by its values", "[arith]") {
  PrimExpr vscale = call(DataType::int32(), "vscale", {});
  Var i = make_var("i");
  PrimExpr four_vscale = mul(vscale, c(4));
  CHECK(arith::contains_vscale(four_vscale));
  CHECK(arith::is_vscale_constant(four_vscale));
  CHECK_FALSE(arith::is_vscale_constant(mul(four_vscale, i)));
  CHECK_FALSE(arith::contains_vscale(add(i, c(1))));
  CHECK(s(arith::simplify(arith::substitute_vscale(four_vscale, 8))) == "32");
  // ceildiv(128, 4 * vscale) * (4 * vscale) >= 128 for each power of two up to 16 ...
  PrimExpr outer = floordiv(add(c(127), four_vscale), four_vscale);
  PrimExpr covers = make_binary(ExprKind::GE, mul(outer, four_vscale), c(128));
  CHECK(arith::can_prove_for_vscale_values(covers, {1, 2, 4, 8, 16}));
  // ... but 2 * (4 * vscale) does not cover 128 when vscale is 1, and nothing is proved
  // without values to try.
  CHECK_FALSE(
      arith::can_prove_for_vscale_values(make_binary(ExprKind::GE, mul(c(2), four_vscale), c(128)), {1, 2, 4, 8, 16}));
  CHECK(arith::can_prove_for_vscale_values(make_binary(ExprKind::GE, mul(c(2), four_vscale), c(128)), {16}));
  CHECK_FALSE(arith::can_prove_for_vscale_values(covers, {}));
}
