// IRModule with functions of several kinds: lookups and the PrimFunc view, attributes, the
// module printer (TVM's order, module attributes, per-dialect printers and headers),
// structural equality, and the code that must leave other kinds alone (function passes, the
// schedule, the build driver).
#include <catch2/catch.hpp>
#include <optional>

#include "driver/build.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "target/target.h"
#include "transform/pass.h"

using namespace tsch;
using namespace tsch::ir;

namespace {

// A function kind the IR layer does not know: stands in for Relax's ExternFunc.
struct FakeExternNode final : BaseFuncNode {
  std::string symbol;
  FuncKind func_kind() const override { return FuncKind::ExternFunc; }
  const char* type_key() const override { return "relax.expr.ExternFunc"; }
  std::shared_ptr<BaseFuncNode> copy() const override { return std::make_shared<FakeExternNode>(*this); }
};

BaseFunc extern_func(const std::string& symbol) {
  auto f = std::make_shared<FakeExternNode>();
  f->symbol = symbol;
  return f;
}

// for i in range(n): A[i] = A[i] + 1, public under `name`.
PrimFunc increment(const std::string& name, int64_t n) {
  Buffer a = make_buffer("A", DataType::float32(), {make_int(n)});
  Var i = make_var("i");
  Stmt store = std::make_shared<BufferStoreNode>(a, add(buffer_load(a, {i}), make_float(1, DataType::float32())),
                                                 std::vector<PrimExpr>{i});
  auto f = std::make_shared<PrimFuncNode>();
  Var handle = make_var("a", DataType::handle());
  f->params.push_back(handle);
  f->buffer_map.emplace_back(handle, a);
  f->body = std::make_shared<ForNode>(i, make_int(0), make_int(n), ForKind::Serial, store);
  f->attrs.emplace_back("global_symbol", AttrValue::of_str(name));
  return f;
}

// Registers the fake kind's printer for the test's duration (Relax's own, when registered,
// comes back afterwards).
struct ExternPrinter {
  std::optional<FunctionPrinter> saved;
  ExternPrinter() {
    if (function_printer_table().count(FuncKind::ExternFunc)) saved = function_printer_table()[FuncKind::ExternFunc];
    function_printer_table()[FuncKind::ExternFunc] = [](PrintContext& ctx, const BaseFunc& f, const std::string& name,
                                                        int indent) {
      ctx.use(Dialect::Relax);
      ctx.line(indent, name + " = R.ExternFunc(" + quote(static_cast<const FakeExternNode&>(*f).symbol) + ")");
    };
  }
  ~ExternPrinter() {
    if (saved)
      function_printer_table()[FuncKind::ExternFunc] = *saved;
    else
      function_printer_table().erase(FuncKind::ExternFunc);
  }
};

IRModule mixed_module() {
  auto mod = std::make_shared<IRModuleNode>();
  mod->functions.emplace_back("main", increment("main", 8));
  mod->functions.emplace_back("ext", extern_func("env.linear"));
  mod->functions.emplace_back("aux", increment("aux", 4));
  mod->attrs.emplace_back("device_num", AttrValue::of_int(2));
  return mod;
}

}  // namespace

TEST_CASE("IRModule: lookups, the PrimFunc view and edits", "[ir][module]") {
  IRModule mod = mixed_module();
  CHECK(mod->lookup("ext")->func_kind() == FuncKind::ExternFunc);
  CHECK(mod->prim_func("ext") == nullptr);
  CHECK(mod->prim_func("aux") != nullptr);
  CHECK(mod->lookup("absent") == nullptr);
  auto prim = mod->prim_funcs();
  REQUIRE(prim.size() == 2);
  CHECK(prim[0].first == "main");
  CHECK(prim[1].first == "aux");
  CHECK_FALSE(mod->has_only_prim_funcs());

  auto edited = std::make_shared<IRModuleNode>(*mod);
  edited->set("aux", increment("aux", 16));
  edited->set("new", increment("new", 2));
  CHECK(edited->functions.size() == 4);
  CHECK(edited->functions[2].first == "aux");  // replaced in place
  CHECK(edited->remove("ext"));
  CHECK_FALSE(edited->remove("ext"));
  CHECK(edited->has_only_prim_funcs());
  CHECK(mod->functions.size() == 3);  // the original is untouched

  BaseFunc f = mod->lookup("aux");
  BaseFunc g = with_attr(f, "tir.noalias", AttrValue::of_bool(true));
  CHECK(func_attr(g, "tir.noalias") != nullptr);
  CHECK(func_attr(f, "tir.noalias") == nullptr);
  CHECK(as_prim_func(g)->body == as_prim_func(f)->body);
  CHECK(without_attr(g, "tir.noalias")->attrs.size() == 1);
  CHECK(global_symbol(*g) == "aux");
}

TEST_CASE("IRModule printer: TVM's order, module attributes, dialect printers and headers", "[ir][module][printer]") {
  ExternPrinter printer;
  std::string text = script(mixed_module());
  // Header lists the dialects used; module attributes come first; PrimFuncs by name, then
  // other kinds, main last (TVM's SortableFunction).
  CHECK(
      text.rfind(
          "# from tvm.script import ir as I\n# from tvm.script import tir as T\n# from tvm.script import relax as R\n\n"
          "@I.ir_module\nclass Module:\n    I.module_attrs({\"device_num\": 2})\n    @T.prim_func\n    def aux(",
          0) == 0);
  size_t aux = text.find("def aux("), ext = text.find("ext = R.ExternFunc(\"env.linear\")"),
         main = text.find("def main(");
  REQUIRE(ext != std::string::npos);
  CHECK(aux < ext);
  CHECK(ext < main);

  // Only the dialects used are imported.
  auto only_extern = std::make_shared<IRModuleNode>();
  only_extern->functions.emplace_back("ext", extern_func("f"));
  CHECK(script(IRModule(only_extern)) ==
        "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    ext "
        "= R.ExternFunc(\"f\")\n");
  CHECK(script(IRModule(std::make_shared<IRModuleNode>())) ==
        "# from tvm.script import ir as I\n\n@I.ir_module\nclass Module:\n    pass\n");
  CHECK(script(increment("main", 2), "main").rfind("# from tvm.script import tir as T\n\n@T.prim_func\ndef main(", 0) ==
        0);
}

TEST_CASE("Structural equality: module attributes and functions of other kinds", "[ir][module]") {
  IRModule a = mixed_module(), b = mixed_module();
  // The fake ExternFunc kind replaces Relax's comparer for the length of this test.
  auto& table = function_diff_table();
  std::optional<FunctionDiff> saved;
  if (table.count(FuncKind::ExternFunc)) saved = table[FuncKind::ExternFunc];
  table.erase(FuncKind::ExternFunc);
  struct Restore {
    std::optional<FunctionDiff>& saved;
    ~Restore() {
      if (saved)
        function_diff_table()[FuncKind::ExternFunc] = *saved;
      else
        function_diff_table().erase(FuncKind::ExternFunc);
    }
  } restore{saved};
  // No comparer registered for the fake kind: reported, never silently equal.
  StructuralDiff d = structural_diff(a, b);
  CHECK_FALSE(d.equal);
  CHECK(d.path == "functions[\"ext\"]");
  function_diff_table()[FuncKind::ExternFunc] = [](const BaseFunc& x, const BaseFunc& y) {
    StructuralDiff r;
    auto &ex = static_cast<const FakeExternNode&>(*x), &ey = static_cast<const FakeExternNode&>(*y);
    if (ex.symbol != ey.symbol) r = {false, "global_symbol", ex.symbol, ey.symbol};
    return r;
  };
  CHECK(structural_equal(a, b));
  auto c = std::make_shared<IRModuleNode>(*b);
  c->set("ext", extern_func("other"));
  d = structural_diff(a, c);
  CHECK(d.path == "functions[\"ext\"].global_symbol");
  auto e = std::make_shared<IRModuleNode>(*b);
  e->attrs[0].second = AttrValue::of_int(3);
  CHECK_FALSE(structural_equal(a, e));
}

TEST_CASE("Function passes, the schedule and the driver leave other function kinds alone", "[ir][module]") {
  IRModule mod = mixed_module();
  int calls = 0;
  transform::Pass pass = transform::prim_func_pass(
      {"test.Count", 0, {}}, [&](const PrimFunc& f, const IRModule&, const transform::PassContext&) {
        ++calls;
        return f;
      });
  IRModule out = pass(mod);
  CHECK(calls == 2);
  CHECK(out == mod);  // nothing changed: the same module

  transform::Pass rename = transform::prim_func_pass(
      {"test.Attr", 0, {}}, [](const PrimFunc& f, const IRModule&, const transform::PassContext&) {
        return as_prim_func(with_attr(f, "touched", AttrValue::of_bool(true)));
      });
  out = rename(mod);
  CHECK(out->lookup("ext") == mod->lookup("ext"));
  CHECK(func_attr(out->lookup("aux"), "touched") != nullptr);
  CHECK(out->attrs.size() == 1);

  schedule::Schedule sch(mod);
  sch.work_on("aux");
  CHECK(sch.mod()->lookup("ext") == mod->lookup("ext"));
  CHECK(sch.mod()->attrs.size() == 1);

  try {
    driver::build(mod, target::parse_target("llvm"));
    FAIL("built a module with an ExternFunc");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "not supported yet: building relax.expr.ExternFunc \"ext\" (tvm.build compiles PrimFuncs)");
  }
}
