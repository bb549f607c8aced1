// Relax without the script layer: struct info relations, call inference, the printer's forms,
// structural equality modulo names, and what the passes do (memory planning's reuse rules,
// shape lowering's heap codes), then a function built and run in the VM.
#include <catch2/catch.hpp>

#include "ir/op.h"
#include "ir/printer.h"
#include "relax/build.h"
#include "relax/metadata_json.h"
#include "relax/op.h"
#include "relax/printer.h"
#include "relax/structural_equal.h"
#include "relax/transform/passes.h"
#include "runtime/registry.h"
#include "runtime/vm/vm.h"
#include "support/error.h"
#include "target/target.h"

using namespace tsch;
using namespace tsch::relax;

namespace {

ir::PrimExpr i64(int64_t v) { return ir::make_int(v, ir::DataType::int64()); }
ir::DataType f32() { return ir::DataType::float32(); }

// A module of one function `name` whose body is `blocks` returning `result`.
ir::IRModule module_of(const std::string& name, std::vector<Var> params, std::vector<BindingBlock> blocks,
                       Expr result) {
  auto f = std::make_shared<FunctionNode>();
  f->params = std::move(params);
  auto body = std::make_shared<SeqExprNode>(std::move(blocks), result);
  body->struct_info = result->struct_info;
  f->body = body;
  f->ret_sinfo = result->struct_info;
  f->attrs.emplace_back("global_symbol", ir::AttrValue::of_str(name));
  auto mod = std::make_shared<ir::IRModuleNode>();
  mod->functions.emplace_back(name, f);
  return mod;
}

struct Registered {
  Registered() {
    register_relax_printer();
    register_relax_structural_equal();
  }
} registered;

}  // namespace

TEST_CASE("Relax struct info: base-of, run-time-only checks, erasure and text", "[relax]") {
  ir::Var n = ir::make_var("n", ir::DataType::int64());
  StructInfo t34 = tensor_sinfo({i64(3), i64(4)}, f32());
  StructInfo t_n4 = tensor_sinfo({n, i64(4)}, f32());
  CHECK(sinfo_is_base_of(tensor_sinfo_ndim(2, f32()), t34));
  CHECK(sinfo_is_base_of(tensor_sinfo_ndim(-1, ir::DataType::void_()), t34));
  CHECK_FALSE(sinfo_is_base_of(tensor_sinfo_ndim(3, f32()), t34));
  CHECK_FALSE(sinfo_is_base_of(tensor_sinfo({i64(3), i64(5)}, f32()), t34));
  CHECK_FALSE(sinfo_is_base_of(tensor_sinfo({i64(3), i64(4)}, ir::DataType::int32()), t34));
  // (n, 4) against (3, 4): only a run-time check can tell.
  bool maybe = false;
  CHECK(sinfo_is_base_of(t_n4, t34, &maybe));
  CHECK(maybe);
  CHECK_FALSE(sinfo_is_base_of(t_n4, t34));
  CHECK(sinfo_is_base_of(object_sinfo(), t34));
  CHECK(sinfo_is_base_of(tuple_sinfo({t34, shape_sinfo_ndim(2)}), tuple_sinfo({t34, shape_sinfo({i64(1), i64(2)})})));
  // Dims that use variables not defined become unknown, keeping the rank.
  StructInfo erased = erase_to_well_defined(t_n4, [](const ir::VarNode*) { return false; });
  CHECK(sinfo_text(erased) == "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK(sinfo_text(t_n4) == "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK(sinfo_text(func_sinfo({t34}, void_sinfo(), true)) ==
        "R.Callable((R.Tensor((3, 4), dtype=\"float32\"),), R.Tuple, True)");
}

TEST_CASE("Relax calls: call_tir and module calls infer struct info, symbolic dims bind from the arguments",
          "[relax]") {
  ir::Var m = ir::make_var("m", ir::DataType::int64());
  Var x = make_var("x", tensor_sinfo({i64(2), i64(8)}, f32()));
  Expr gv = make_global_var("f", opaque_func_sinfo(void_sinfo(), false));
  Expr call = make_op_call("relax.call_tir", {gv, make_tuple({x})}, {}, {tensor_sinfo({i64(8)}, f32())});
  CHECK(sinfo_text(call->struct_info) == "R.Tensor((8,), dtype=\"float32\")");
  // out_sinfo must describe tensors.
  CHECK_THROWS_AS(make_op_call("relax.call_tir", {gv, make_tuple({x})}, {}, {shape_sinfo_ndim(1)}), UserError);
  // g(a: R.Tensor((2, m))) -> R.Tensor((m,)) called on (2, 8) returns (8,).
  StructInfo sig = func_sinfo({tensor_sinfo({i64(2), m}, f32())}, tensor_sinfo({m}, f32()), true);
  Expr g = make_global_var("g", sig);
  CHECK(sinfo_text(make_call(g, {x})->struct_info) == "R.Tensor((8,), dtype=\"float32\")");
  // A provable mismatch is refused.
  Var y = make_var("y", tensor_sinfo({i64(3), i64(8)}, f32()));
  CHECK_THROWS_AS(make_call(g, {y}), UserError);
  CHECK_THROWS_AS(make_call(g, {x, y}), UserError);
  CHECK_THROWS_AS(make_tuple_get_item(make_tuple({x, y}), 2), UserError);
  CHECK(sinfo_text(make_tuple_get_item(make_tuple({x, y}), 1)->struct_info) == sinfo_text(y->struct_info));
  CHECK_FALSE(is_pure_call(*as<CallNode>(make_op_call("relax.print", {make_string_imm("{}"), x}))));
  CHECK(is_pure_call(*as<CallNode>(call)));
}

TEST_CASE("Relax printer: TVM's forms for dataflow blocks, annotations and symbolic dims", "[relax]") {
  ir::Var n = ir::make_var("n", ir::DataType::int64());
  Var a = make_var("a", tensor_sinfo({i64(1), n}, f32()));
  Expr gv = make_global_var("f", opaque_func_sinfo(void_sinfo(), false));
  Expr c = make_op_call("relax.call_dps_packed", {make_extern_func("env.f"), make_tuple({a})}, {},
                        {tensor_sinfo({i64(1), n}, f32())});
  Var b = make_var("b", c->struct_info, /*dataflow=*/true);
  Var out = make_var("c", c->struct_info);
  BindingBlock df{{Binding{b, c, nullptr}, Binding{out, b, nullptr}}, true};
  ir::IRModule mod = module_of("main", {a}, {df}, out);
  std::string text = ir::script(mod->lookup("main"), "main");
  CHECK(text ==
        "# from tvm.script import tir as T\n# from tvm.script import relax as R\n\n"
        "@R.function\n"
        "def main(a: R.Tensor((1, \"n\"), dtype=\"float32\")) -> R.Tensor((1, \"n\"), dtype=\"float32\"):\n"
        "    n = T.int64()\n"
        "    with R.dataflow():\n"
        "        b = R.call_dps_packed(\"env.f\", (a,), out_sinfo=R.Tensor((1, n), dtype=\"float32\"))\n"
        "        c: R.Tensor((1, n), dtype=\"float32\") = b\n"
        "        R.output(c)\n"
        "    return c\n");
}

TEST_CASE("Relax structural equality matches variables and symbolic dims, not names", "[relax]") {
  auto make = [](const std::string& vname, const std::string& dname, int64_t cols) {
    ir::Var d = ir::make_var(dname, ir::DataType::int64());
    Var x = make_var(vname, tensor_sinfo({d, i64(cols)}, f32()));
    Expr c = make_op_call("relax.call_dps_packed", {make_extern_func("env.f"), make_tuple({x})}, {},
                          {tensor_sinfo({d}, f32())});
    Var y = make_var("y_" + vname, c->struct_info);
    return module_of("main", {x}, {BindingBlock{{Binding{y, c, nullptr}}, false}}, y);
  };
  CHECK(ir::structural_equal(make("x", "n", 4), make("z", "k", 4)));
  ir::StructuralDiff d = ir::structural_diff(make("x", "n", 4), make("x", "n", 5));
  CHECK_FALSE(d.equal);
  CHECK(d.path.find("params[0]") != std::string::npos);
}

TEST_CASE("StaticPlanBlockMemory: reuse when lifetimes do not overlap, by dtype and size rules", "[relax]") {
  // a -> t1 -> t2 -> t3 -> out: t1 and t3 can share storage (t1 dies when t2 is made).
  Var a = make_var("a", tensor_sinfo({i64(16)}, f32()));
  auto step = [&](const Expr& in, int64_t size) {
    return make_op_call("relax.call_tir",
                        {make_global_var("f", opaque_func_sinfo(void_sinfo(), false)), make_tuple({in})}, {},
                        {tensor_sinfo({i64(size)}, f32())});
  };
  Var t1 = make_var("t1", tensor_sinfo({i64(16)}, f32()));
  Var t2 = make_var("t2", tensor_sinfo({i64(8)}, f32()));
  Var t3 = make_var("t3", tensor_sinfo({i64(16)}, f32()));
  Var out = make_var("out", tensor_sinfo({i64(4)}, f32()));
  BindingBlock block{{Binding{t1, step(a, 16), nullptr}, Binding{t2, step(t1, 8), nullptr},
                      Binding{t3, step(t2, 16), nullptr}, Binding{out, step(t3, 4), nullptr}},
                     false};
  ir::IRModule mod = module_of("main", {a}, {block}, out);
  mod = relax::transform::call_tir_rewrite()(mod);
  ir::IRModule planned = relax::transform::static_plan_block_memory()(mod);
  std::string text = ir::script(planned);
  // Two storages (64 and 32 bytes), t3 reusing t1's; the returned tensor keeps its own.
  CHECK(text.find("storage: R.Object = R.memory.alloc_storage(R.shape([64])") != std::string::npos);
  CHECK(text.find("storage1: R.Object = R.memory.alloc_storage(R.shape([32])") != std::string::npos);
  CHECK(text.find("storage2") == std::string::npos);
  CHECK(text.find("alloc2: R.Tensor((16,), dtype=\"float32\") = R.memory.alloc_tensor(storage, ") != std::string::npos);
  CHECK(text.find("R.builtin.alloc_tensor(R.shape([4])") != std::string::npos);
  CHECK(text.find("R.memory.kill_storage(storage)") != std::string::npos);
}

TEST_CASE("VMShapeLower: parameters matched into the heap with TVM's codes", "[relax]") {
  ir::Var n = ir::make_var("n", ir::DataType::int64());
  Var x = make_var("x", tensor_sinfo({i64(2), n}, f32()));
  Var y = make_var("y", tensor_sinfo({n}, f32()));
  Expr shape = make_shape_expr({ir::mul(n, i64(2))});
  Var s = make_var("s", shape->struct_info);
  ir::IRModule mod = module_of("main", {x, y}, {BindingBlock{{Binding{s, shape, nullptr}}, false}}, s);
  std::string text = ir::script(relax::transform::vm_shape_lower()(mod));
  // x: dim 0 is the constant 2 (code 0), dim 1 stores n (code 1 into slot 0); y asserts n
  // equal to the slot (code 3); n * 2 is computed by shape_func into slot 1, then loaded.
  CHECK(
      text.find(
          "R.call_packed(\"vm.builtin.match_shape\", x, shape_heap, R.prim_value(2), R.prim_value(0), R.prim_value(2), "
          "R.prim_value(1), R.prim_value(0),") != std::string::npos);
  CHECK(text.find("R.call_packed(\"vm.builtin.match_shape\", y, shape_heap, R.prim_value(1), R.prim_value(3), "
                  "R.prim_value(0),") != std::string::npos);
  CHECK(text.find("H[T.int64(1)] = H[T.int64(0)] * T.int64(2)") != std::string::npos);
  CHECK(
      text.find(
          "R.call_packed(\"vm.builtin.make_shape\", shape_heap, R.prim_value(1), R.prim_value(1), R.prim_value(1),") !=
      std::string::npos);
}

TEST_CASE("Relax build: a function with if/else and a registered function runs in the VM", "[relax]") {
  runtime::register_global_func("test.relax.double",
                                runtime::make_packed_func([](const std::vector<runtime::Any>& args) {
                                  const auto& in = args[0].as_ndarray();
                                  const auto& out = args[1].as_ndarray();
                                  for (int64_t i = 0; i < in->size(); ++i) out->set_f(i, 2 * in->get_f(i));
                                  return runtime::Any();
                                }),
                                true);
  Var x = make_var("x", tensor_sinfo({i64(3)}, f32()));
  Var flag = make_var("flag", tensor_sinfo({}, ir::DataType::bool_()));
  Expr dbl = make_op_call("relax.call_dps_packed", {make_extern_func("test.relax.double"), make_tuple({x})}, {},
                          {x->struct_info});
  Var d = make_var("d", dbl->struct_info);
  auto then_seq =
      std::make_shared<SeqExprNode>(std::vector<BindingBlock>{BindingBlock{{Binding{d, dbl, nullptr}}, false}}, d);
  then_seq->struct_info = d->struct_info;
  auto else_seq = std::make_shared<SeqExprNode>(std::vector<BindingBlock>{}, x);
  else_seq->struct_info = x->struct_info;
  auto branch = std::make_shared<IfNode>(flag, then_seq, else_seq);
  branch->struct_info = x->struct_info;
  Var r = make_var("r", x->struct_info);
  ir::IRModule mod = module_of("main", {x, flag}, {BindingBlock{{Binding{r, branch, nullptr}}, false}}, r);

  Executable ex = build(mod, target::parse_target("llvm"));
  CHECK(ex.bytecode->as_text().find("If") != std::string::npos);
  auto vm = std::make_shared<runtime::vm::VirtualMachine>(ex.bytecode, ex.library);
  auto in = std::make_shared<runtime::NDArray>(f32(), runtime::Shape{3});
  for (int i = 0; i < 3; ++i) in->set_f(i, i + 1);
  auto yes = std::make_shared<runtime::NDArray>(ir::DataType::bool_(), runtime::Shape{});
  yes->set_i(0, 1);
  auto no = std::make_shared<runtime::NDArray>(ir::DataType::bool_(), runtime::Shape{});
  runtime::Any doubled = vm->invoke("main", {runtime::Any::of_ndarray(in), runtime::Any::of_ndarray(yes)});
  CHECK(doubled.as_ndarray()->get_f(2) == 6.0);
  runtime::Any same = vm->invoke("main", {runtime::Any::of_ndarray(in), runtime::Any::of_ndarray(no)});
  CHECK(same.as_ndarray()->get_f(2) == 3.0);
  // Wrong shape: the parameter's check names it.
  auto wrong = std::make_shared<runtime::NDArray>(f32(), runtime::Shape{4});
  try {
    vm->invoke("main", {runtime::Any::of_ndarray(wrong), runtime::Any::of_ndarray(yes)});
    FAIL("a (4,) tensor was accepted for R.Tensor((3,))");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("param=x") != std::string::npos);
  }
  runtime::remove_global_func("test.relax.double");
}

TEST_CASE("Relax metadata: constants through TVM's JSON graph and back, damaged text refused", "[relax]") {
  auto a = std::make_shared<runtime::NDArray>(f32(), runtime::Shape{2, 3});
  for (int i = 0; i < 6; ++i) a->set_f(i, i * 0.5);
  auto b = std::make_shared<runtime::NDArray>(ir::DataType::bool_(), runtime::Shape{2});
  b->set_i(0, 1);
  std::string text =
      metadata_to_json_graph({{"relax.expr.Constant", make_constant(a)}, {"relax.expr.Constant", make_constant(b)}});
  // TVM's tensor bytes start with its magic number: base64 "P6G0lvBAXt0".
  CHECK(text.find("\"P6G0lvBAXt0") != std::string::npos);
  auto groups = metadata_from_json_graph(text);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].first == "relax.expr.Constant");
  REQUIRE(groups[0].second.size() == 2);
  const auto& back = *as<ConstantNode>(groups[0].second[0])->data;
  CHECK(back.shape() == runtime::Shape{2, 3});
  CHECK(back.get_f(5) == 2.5);
  CHECK(as<ConstantNode>(groups[0].second[1])->data->dtype() == ir::DataType::bool_());
  CHECK(as<ConstantNode>(groups[0].second[1])->data->get_i(0) == 1);
  // Damaged: not JSON, a truncated tensor, an index out of range.
  CHECK_THROWS_AS(metadata_from_json_graph("{"), UserError);
  std::string truncated = text;
  size_t at = truncated.find("P6G0lvBAXt0");
  truncated.replace(at, 20, "P6G0");
  CHECK_THROWS_AS(metadata_from_json_graph(truncated), UserError);
  std::string bad_index = text;
  bad_index.replace(bad_index.find("\"root_index\": "), 16, "\"root_index\": 99");
  CHECK_THROWS_AS(metadata_from_json_graph(bad_index), UserError);
}
