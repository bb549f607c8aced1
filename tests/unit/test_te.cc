// Tensor expressions without the script layer: create_prim_func's blocks, names, intermediate
// buffers and the missing-input error; the stage schedule's record and its tir replay.
#include <catch2/catch.hpp>

#include "ir/op.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "te/operation.h"
#include "te/schedule.h"

using namespace tsch;

TEST_CASE("te: computes become blocks in dependency order, intermediates root allocations", "[te]") {
  ir::PrimExpr n16 = ir::make_int(16);
  te::Operation a = te::placeholder({n16}, ir::DataType::float32(), "A");
  ir::Var i = ir::make_var("i");
  te::Operation b =
      te::compute({n16}, {i}, ir::mul(ir::buffer_load(a->buffer, {i}), ir::make_float(2.0)), std::nullopt, "B", "", {});
  ir::Var j = ir::make_var("j");
  te::Operation c =
      te::compute({n16}, {j}, ir::add(ir::buffer_load(b->buffer, {j}), ir::make_float(1.0)), std::nullopt, "B", "", {});
  REQUIRE(c->inputs.size() == 1);
  CHECK(c->inputs[0] == b);
  CHECK(te::operation_of(b->buffer.get()) == b);
  ir::PrimFunc f = te::create_prim_func({{a, nullptr}, {c, nullptr}});
  std::string text = ir::script(f, "main");
  INFO(text);
  // The intermediate is allocated; two computes named B get B and B_1; iterators v_<axis>.
  CHECK(text.find("B_1 = T.alloc_buffer((16,))") != std::string::npos);
  CHECK(text.find("with T.block(\"B\"):") != std::string::npos);
  CHECK(text.find("with T.block(\"B_1\"):") != std::string::npos);
  CHECK(text.find("v_j = T.axis.spatial(16, j)") != std::string::npos);
  // The parameter keeps its name; the intermediate (also B) is printed B_1.
  CHECK(text.find("B[v_j] = B_1[v_j] + T.float32(1.0)") != std::string::npos);
  CHECK(text.find("T.func_attr({\"tir.noalias\": True})") != std::string::npos);
  // An input the outputs read must be an argument.
  CHECK_THROWS_AS(te::create_prim_func({{c, nullptr}}), UserError);
  CHECK_THROWS_AS(te::compute({n16, n16}, {i}, ir::make_float(0.0), std::nullopt, "D", "", {}), UserError);
}

namespace {

// A(64, 32) -> B = A * 2 -> C = B + 1, the stage schedule's test computation.
struct Chain {
  te::Operation a, b, c;
  Chain() {
    ir::PrimExpr n64 = ir::make_int(64), n32 = ir::make_int(32);
    a = te::placeholder({n64, n32}, ir::DataType::float32(), "A");
    ir::Var i = ir::make_var("i"), j = ir::make_var("j");
    b = te::compute({n64, n32}, {i, j}, ir::mul(ir::buffer_load(a->buffer, {i, j}), ir::make_float(2.0)), std::nullopt,
                    "B", "", {});
    ir::Var x = ir::make_var("x"), y = ir::make_var("y");
    c = te::compute({n64, n32}, {x, y}, ir::add(ir::buffer_load(b->buffer, {x, y}), ir::make_float(1.0)), std::nullopt,
                    "C", "", {});
  }
};

}  // namespace

TEST_CASE("te stage schedule: split, fuse and reorder keep TVM's leaf order and names", "[te]") {
  Chain t;
  te::Schedule s({t.c});
  int c = s.stage_of(t.c.get());
  REQUIRE(c >= 0);
  auto [xo, xi] = s.split(c, t.c->axis[0].var, 16, std::nullopt);
  CHECK(xo->name == "x_outer");
  CHECK(xi->name == "x_inner");
  s.reorder(c, {t.c->axis[1].var, xo});
  const auto& leaf = s.stage(c).leaf;
  REQUIRE(leaf.size() == 3);
  CHECK(leaf[0] == t.c->axis[1].var);
  CHECK(leaf[1] == xi);
  CHECK(leaf[2] == xo);
  // Not next to each other: refused, and the stage is as it was.
  CHECK_THROWS_AS(s.fuse(c, {t.c->axis[1].var, xo}), UserError);
  CHECK(s.stage(c).leaf.size() == 3);
  ir::Var fused = s.fuse(c, {xi, xo});
  CHECK(fused->name == "x_inner_x_outer_fused");
  // An axis already split, and one of another stage.
  CHECK_THROWS_AS(s.split(c, t.c->axis[0].var, 4, std::nullopt), UserError);
  CHECK_THROWS_AS(s.split(c, t.b->axis[0].var, 4, std::nullopt), UserError);
  CHECK_THROWS_AS(s.reorder(c, {fused, fused}), UserError);
}

TEST_CASE("te stage schedule: lowered as the same tir.Schedule primitives would", "[te]") {
  Chain t;
  te::Schedule s({t.c});
  int b = s.stage_of(t.b.get()), c = s.stage_of(t.c.get());
  auto [xo, xi] = s.split(c, t.c->axis[0].var, 16, std::nullopt);
  s.compute_at(b, c, xo);
  s.annotate(c, te::LoopAnnotation{te::LoopAnnotation::Kind::Vectorize, t.c->axis[1].var, "", nullptr});
  ir::PrimFunc lowered = s.to_prim_func({{t.a, nullptr}, {t.c, nullptr}}, "main");

  schedule::Schedule sch(ir::module_of("main", te::create_prim_func({{t.a, nullptr}, {t.c, nullptr}})), 0);
  schedule::RV cb = sch.get_block("C"), bb = sch.get_block("B");
  std::vector<schedule::RV> loops = sch.get_loops(cb);
  std::vector<schedule::RV> parts = sch.split(loops[0], {std::nullopt, 16});
  sch.compute_at(bb, parts[0], true);
  sch.vectorize(loops[1]);
  ir::PrimFunc expected = sch.mod()->prim_func("main");
  auto lowered_attrs = std::make_shared<ir::PrimFuncNode>(*lowered);
  lowered_attrs->attrs = expected->attrs;
  ir::StructuralDiff d = ir::structural_diff(ir::PrimFunc(lowered_attrs), expected);
  INFO(d.path);
  CHECK(d.equal);
  // The loops carry the stage variables' names.
  std::string text = ir::script(lowered, "main");
  INFO(text);
  CHECK(text.find("for x_outer in range(4):") != std::string::npos);
  CHECK(text.find("for y in T.vectorized(32):") != std::string::npos);
}

TEST_CASE("te stage schedule: a call the tir primitives refuse changes nothing", "[te]") {
  ir::PrimExpr n8 = ir::make_int(8);
  te::Operation a = te::placeholder({n8, n8}, ir::DataType::float32(), "A");
  ir::Var i = ir::make_var("i"), k = ir::make_var("k");
  te::Reduce r{te::ReduceKind::Sum,
               ir::buffer_load(a->buffer, {i, k}),
               {ir::IterVar{k, ir::Range{ir::make_int(0), n8}, ir::IterType::CommReduce}},
               nullptr};
  te::Operation b = te::compute({n8}, {i}, nullptr, r, "B", "", {});
  te::Schedule s({b});
  int id = s.stage_of(b.get());
  std::string before = ir::script(s.to_prim_func(s.default_args(), "main"), "main");
  CHECK_THROWS(s.annotate(id, te::LoopAnnotation{te::LoopAnnotation::Kind::Parallel, k, "", nullptr}));
  CHECK(s.stage(id).annotations.empty());
  CHECK(ir::script(s.to_prim_func(s.default_args(), "main"), "main") == before);
  // The reduction's init is placed before the reduction loop.
  INFO(before);
  CHECK(before.find("with T.block(\"B_init\"):") != std::string::npos);
}
