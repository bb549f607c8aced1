// IR construction, dtype rules, printing details and structural equality.
#include <catch2/catch.hpp>
#include <cmath>

#include "ir/module.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "ir/specialize.h"
#include "ir/stmt_copy.h"
#include "ir/structural_equal.h"

using namespace tsch::ir;

namespace {
std::string s(const PrimExpr& e) { return script(e); }
PrimExpr c(int64_t v) { return make_int(v); }
}  // namespace

TEST_CASE("dtype parsing and printing", "[ir]") {
  CHECK(DataType::parse("float32")->to_string() == "float32");
  CHECK(DataType::parse("bool")->is_bool());
  CHECK(DataType::parse("int8x4")->lanes == 4);
  CHECK_FALSE(DataType::parse("float31"));
  CHECK_FALSE(DataType::parse("tensor"));
}

TEST_CASE("constant folding and identities as TVM's operators", "[ir]") {
  Var i = make_var("i");
  CHECK(s(add(c(3), c(4))) == "7");
  CHECK(s(mul(i, c(1))) == "i");
  CHECK(s(add(c(0), i)) == "i");
  CHECK(s(floordiv(c(-7), c(2))) == "-4");
  CHECK(s(floormod(c(-7), c(2))) == "1");
  CHECK_THROWS_AS(floordiv(i, c(0)), IRError);
}

TEST_CASE("float constants fold in their own type, or not at all", "[ir]") {
  DataType f16 = DataType::float_(16), f32 = DataType::float32(), f64 = DataType::float_(64),
           bf16 = DataType{DataType::Code::BFloat, 16, 1};
  auto value = [](const PrimExpr& e) {
    auto* f = as<FloatImmNode>(e);
    REQUIRE(f);
    return f->value;
  };
  // float32 arithmetic is float's (0.1f + 0.2f), float64's double's (TVM's TryConstFold).
  CHECK(value(add(make_float(0.1, f32), make_float(0.2, f32))) == static_cast<double>(0.1f + 0.2f));
  CHECK(value(add(make_float(0.1, f64), make_float(0.2, f64))) == 0.1 + 0.2);
  // Narrower types are not folded: the code rounds after each operation.
  CHECK(add(make_float(0.1, f16), make_float(0.2, f16))->kind == ExprKind::Add);
  // Comparisons and casts read the value the literal holds in its type.
  CHECK(s(make_binary(ExprKind::LT, make_float(0.1, f32), make_float(0.10000000001, f32))) == "T.bool(False)");
  CHECK(value(cast(f32, make_float(0.1, f16))) == 0.0999755859375);
  CHECK(value(cast(f32, make_float(3.6, DataType::float8_e5m2()))) == 3.5);
  CHECK(value(cast(f64, make_float(0.1, f32))) == static_cast<double>(0.1f));
  // Rounding of the narrow formats: ties to even, subnormals, overflow to infinity.
  CHECK(represented_value(2049, f16) == 2048);
  CHECK(represented_value(2051, f16) == 2052);
  CHECK(represented_value(std::ldexp(1.5, -24), f16) == std::ldexp(1.0, -23));
  CHECK(represented_value(std::ldexp(1.0, -26), f16) == 0);
  CHECK(std::isinf(represented_value(65520, f16)));
  CHECK(represented_value(65519, f16) == 65504);
  CHECK(represented_value(257, bf16) == 256);
  CHECK(represented_value(259, bf16) == 260);
  CHECK(represented_value(std::ldexp(3.0, -134), bf16) == std::ldexp(1.0, -132));
  CHECK(std::isinf(represented_value(3.4e38, bf16)));
}

TEST_CASE("literals adapt to the other operand's dtype", "[ir]") {
  Var i64 = make_var("n", DataType::int64());
  CHECK(s(mul(i64, c(4))) == "n * T.int64(4)");
  Var f = make_var("x", DataType::float32());
  CHECK(s(add(f, c(1))) == "x + T.float32(1.0)");
  Var i = make_var("i");
  CHECK(s(mul(i, make_float(0.5))) == "T.Cast(\"float32\", i) * T.float32(0.5)");
}

TEST_CASE("printer parenthesizes by precedence", "[ir]") {
  Var a = make_var("a"), b = make_var("b"), d = make_var("d");
  CHECK(s(mul(add(a, b), d)) == "(a + b) * d");
  CHECK(s(sub(a, sub(b, d))) == "a - (b - d)");
  CHECK(s(sub(sub(a, b), d)) == "a - b - d");
  CHECK(s(floordiv(add(a, b), c(4))) == "(a + b) // 4");
  PrimExpr lt = make_binary(ExprKind::LT, a, b), lt2 = make_binary(ExprKind::LT, b, d),
           gt = make_binary(ExprKind::GT, a, d);
  CHECK(s(make_binary(ExprKind::Or, make_binary(ExprKind::And, lt, lt2), gt)) == "a < b and b < d or a > d");
  CHECK(s(make_binary(ExprKind::And, make_binary(ExprKind::Or, lt, lt2), gt)) == "(a < b or b < d) and a > d");
  // `x or True` folds to True and `c and True` to c, as TVM's operators do.
  CHECK(s(make_binary(ExprKind::And, lt, make_binary(ExprKind::Or, make_bool(true), gt))) == "a < b");
  CHECK(s(logical_not(make_binary(ExprKind::EQ, a, b))) == "not a == b");
  CHECK(s(make_float(0.1)) == "T.float32(0.10000000000000001)");
  CHECK(s(make_int(5, DataType::int64())) == "T.int64(5)");
  CHECK(s(make_bool(true)) == "T.bool(True)");
}

TEST_CASE("structural equality maps variables bijectively", "[ir]") {
  Var x = make_var("x"), y = make_var("y"), z = make_var("z");
  CHECK(structural_diff(add(x, y), add(y, x)).equal);  // renaming
  CHECK_FALSE(structural_diff(add(x, x), add(y, z)).equal);
  StructuralDiff d = structural_diff(add(x, c(1)), add(y, c(2)));
  CHECK_FALSE(d.equal);
  CHECK(d.lhs == "1");
  CHECK(d.rhs == "2");
}

TEST_CASE("a handle variable's pointer type prints, compares and follows its copies", "[ir]") {
  Var p = make_pointer_var("p", DataType::float32(), "shared"),
      q = make_pointer_var("q", DataType::float32(), "shared");
  Var r = make_pointer_var("r", DataType::float32()), h = make_var("h", DataType::handle());
  CHECK(p->dtype.is_handle());
  CHECK(var_type_script(*p) == "T.handle(\"float32\", \"shared\")");
  CHECK(var_type_script(*r) == "T.handle(\"float32\", \"global\")");
  CHECK(var_type_script(*h) == "T.handle");
  CHECK(structural_diff(PrimExpr(p), PrimExpr(q)).equal);
  CHECK_FALSE(structural_diff(PrimExpr(p), PrimExpr(r)).equal);  // another scope
  CHECK_FALSE(structural_diff(PrimExpr(r), PrimExpr(h)).equal);  // typed against opaque
  Var copy = copy_var(*p, "p2");
  CHECK(copy != p);
  CHECK(copy->type_annotation == p->type_annotation);
  // A buffer's data points to its dtype in its scope; a bool buffer's to int8, as TVM's.
  Buffer b = make_buffer("B", DataType::bool_(), {c(4)}, "local");
  REQUIRE(b->data->type_annotation);
  CHECK(b->data->type_annotation->element_type == DataType::int_(8));
  CHECK(b->data->type_annotation->storage_scope == "local");
}

TEST_CASE("an attribute statement prints concisely last in a body, compares by key, node and value", "[ir]") {
  Var x = make_var("x");
  Stmt body = std::make_shared<EvaluateNode>(add(x, c(1)));
  auto attr = [&](const std::string& key, int64_t value) {
    return Stmt(std::make_shared<AttrStmtNode>(x, key, c(value), body));
  };
  CHECK(script(attr("pragma_a", 1)).find("T.attr(x, \"pragma_a\", 1)\nT.evaluate(x + 1)") != std::string::npos);
  Stmt seq = make_seq({attr("pragma_a", 1), std::make_shared<EvaluateNode>(c(0))});
  CHECK(script(seq).find("with T.attr(x, \"pragma_a\", 1):\n    T.evaluate(x + 1)") != std::string::npos);
  CHECK(structural_diff(attr("pragma_a", 1), attr("pragma_a", 1)).equal);
  CHECK_FALSE(structural_diff(attr("pragma_a", 1), attr("pragma_b", 1)).equal);
  CHECK_FALSE(structural_diff(attr("pragma_a", 1), attr("pragma_a", 2)).equal);
}

TEST_CASE("T.grid folds perfectly nested serial loops only", "[ir]") {
  Buffer b = make_buffer("B", DataType::float32(), {c(8), c(8)});
  Var i = make_var("i"), j = make_var("j");
  Stmt store = std::make_shared<BufferStoreNode>(b, make_float(0), std::vector<PrimExpr>{i, j});
  Stmt inner = std::make_shared<ForNode>(j, c(0), c(8), ForKind::Serial, store);
  Stmt outer = std::make_shared<ForNode>(i, c(0), c(8), ForKind::Serial, inner);
  // B is free in the statement: declared above it, as TVM prints it.
  CHECK(script(outer) == "B = T.Buffer((8, 8))\nfor i, j in T.grid(8, 8):\n    B[i, j] = T.float32(0.0)\n");
  Stmt par = std::make_shared<ForNode>(i, c(0), c(8), ForKind::Parallel, inner);
  CHECK(script(par) ==
        "B = T.Buffer((8, 8))\nfor i in T.parallel(8):\n    for j in range(8):\n        B[i, j] = T.float32(0.0)\n");
}

TEST_CASE("deep_copy makes new statement nodes over shared expressions and buffers", "[ir]") {
  Buffer b = make_buffer("B", DataType::float32(), {c(8)});
  Var i = make_var("i");
  PrimExpr value = make_float(1);
  Stmt store = std::make_shared<BufferStoreNode>(b, value, std::vector<PrimExpr>{i});
  auto block = std::make_shared<BlockNode>();
  block->name = "blk";
  block->body = store;
  block->sid = 7;
  Stmt realize = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), block);
  auto loop = std::make_shared<ForNode>(i, c(0), c(8), ForKind::Serial,
                                        make_seq({realize, std::make_shared<EvaluateNode>(c(0))}));
  loop->sid = 9;
  Stmt copy = deep_copy(loop);
  CHECK(script(copy) == script(Stmt(loop)));
  auto* loop2 = as<ForNode>(copy);
  REQUIRE(loop2);
  CHECK(copy != Stmt(loop));
  CHECK(loop2->sid == 0);
  CHECK(loop->sid == 9);  // the original keeps its identity
  CHECK(loop2->loop_var == i);
  auto* seq2 = as<SeqStmtNode>(loop2->body);
  REQUIRE(seq2);
  CHECK(loop2->body != loop->body);
  auto* realize2 = as<BlockRealizeNode>(seq2->seq[0]);
  REQUIRE(realize2);
  CHECK(seq2->seq[0] != realize);
  CHECK(seq2->seq[1] != as<SeqStmtNode>(loop->body)->seq[1]);
  CHECK(realize2->block != block);
  CHECK(realize2->block->sid == 0);
  CHECK(block->sid == 7);
  auto* store2 = as<BufferStoreNode>(realize2->block->body);
  REQUIRE(store2);
  CHECK(realize2->block->body != store);
  CHECK(store2->buffer == b);
  CHECK(store2->value == value);
  CHECK(deep_copy(nullptr) == nullptr);
}

TEST_CASE("a LetStmt binding a parameter again prints TVM's scoped form", "[ir]") {
  Var x = make_var("x");
  auto func = std::make_shared<PrimFuncNode>();
  func->params = {x};
  func->body = std::make_shared<LetStmtNode>(x, c(10), std::make_shared<EvaluateNode>(add(x, c(1))));
  std::string text = script(PrimFunc(func), "main");
  CHECK(text.find("    with T.LetStmt(10, var=x):\n        T.evaluate(x + 1)") != std::string::npos);
  // A fresh variable is bound as an assignment.
  Var y = make_var("y");
  func->body = std::make_shared<LetStmtNode>(y, c(10), std::make_shared<EvaluateNode>(add(y, c(1))));
  CHECK(script(PrimFunc(func), "main").find("    y: T.int32 = 10\n    T.evaluate(y + 1)") != std::string::npos);
}

TEST_CASE("specialize binds parameters and buffers, folds constants, and refuses what does not fit", "[ir]") {
  // f(a: handle, n: int32): A = match_buffer(a, (n,)); for i in range(n - 1): A[i] = A[i] * (n + 1)
  Var n = make_var("n");
  Buffer a = make_buffer("A", DataType::float32(), {n});
  Var a_param = make_var("a", DataType::handle());
  Var i = make_var("i");
  PrimExpr scaled = make_binary(ExprKind::Mul, buffer_load(a, {i}), cast(DataType::float32(), add(n, make_int(1))));
  auto f = std::make_shared<PrimFuncNode>();
  f->params = {a_param, n};
  f->buffer_map = {{a_param, a}};
  f->body = std::make_shared<ForNode>(i, make_int(0), sub(n, make_int(1)), ForKind::Serial,
                                      std::make_shared<BufferStoreNode>(a, scaled, std::vector<PrimExpr>{i}));
  PrimFunc g = specialize(f, {{n, SpecializeTo{make_int(16), nullptr}}});
  REQUIRE(g->params.size() == 1);
  const Buffer& b = g->buffer_map.at(0).second;
  CHECK(script(b->shape.at(0)) == "16");
  auto* loop = as<ForNode>(g->body);
  REQUIRE(loop);
  CHECK(script(loop->extent) == "15");
  auto* store = as<BufferStoreNode>(loop->body);
  REQUIRE(store);
  CHECK(store->buffer == b);  // the store writes the specialized buffer
  CHECK(script(store->value).find("17") != std::string::npos);
  // A buffer binds n through its shape; binding n twice to different values is refused.
  PrimFunc h = specialize(f, {{a_param, SpecializeTo{nullptr, make_buffer("X", DataType::float32(), {make_int(8)})}}});
  CHECK(h->params.size() == 1);
  CHECK(script(as<ForNode>(h->body)->extent) == "7");
  CHECK_THROWS(specialize(f, {{a_param, SpecializeTo{nullptr, make_buffer("X", DataType::float32(), {make_int(8)})}},
                              {n, SpecializeTo{make_int(9), nullptr}}}));
  CHECK(specialize(f, {}) == f);
}
