// Tensor expressions without the script layer: create_prim_func's blocks, names, intermediate
// buffers and the missing-input error.
#include <catch2/catch.hpp>

#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"
#include "te/operation.h"

using namespace tsch;

TEST_CASE("te: computes become blocks in dependency order, intermediates root allocations", "[te]") {
  ir::PrimExpr n16 = ir::make_int(16);
  te::Operation a = te::placeholder({n16}, ir::DataType::float32(), "A");
  ir::Var i = ir::make_var("i");
  te::Operation b = te::compute({n16}, {i}, ir::mul(ir::buffer_load(a->buffer, {i}), ir::make_float(2.0)), std::nullopt, "B", "", {});
  ir::Var j = ir::make_var("j");
  te::Operation c = te::compute({n16}, {j}, ir::add(ir::buffer_load(b->buffer, {j}), ir::make_float(1.0)), std::nullopt, "B", "", {});
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
