// tvm.tir in scripts: the namespace (PrimFunc, Buffer and decl_buffer, the expression and
// statement classes, Schedule, IndexMap, TensorIntrin, and the re-exports TVM's
// tvm/tir/__init__.py lists, written in stdlib/tvm_tir.tsch), tvm.tir.expr, tvm.tir.analysis
// (verify_well_formed), tvm.tir.stmt_functor and tvm.tir.function.
#include "bindings/tvm/tir/tir_module.h"

#include <cmath>

#include "arith/verify_well_formed.h"
#include "bindings/tvm/tir/buffer_options.h"
#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "bindings/tvm/tir/tensor_intrin_values.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "values/expr_classes.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"
#include "values/stmt_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;

void install_schedule(script::Namespace& tir_ns);  // tvm_schedule.cc

namespace {

std::shared_ptr<script::Module> import(Interpreter& interp, const std::string& name) {
  return interp.modules().import(interp, name, "");
}

// tvm.tir.expr: the expression constructors (also in tvm.tir).
void build_tir_expr(Interpreter& interp, script::Module& m) {
  Namespace& ns = *m.globals;
  ns.set(intern("PrimExpr"), Value(expr_type()));
  // TVM's node classes (Var, IntImm, Add, Cast, Select, Call, ...) with their constructors.
  install_expr_classes(ns);
  // all / any of several conditions.
  auto condition = [](Interpreter& interp, const Value& v, const char* what) {
    ir::PrimExpr e = to_expr(interp, v, what);
    if (!e->dtype.is_bool())
      raise(ExcKind::TypeError, std::string(what) + ": expected a boolean expression, got " + e->dtype.to_string());
    return e;
  };
  for (auto [name, kind] : {std::pair{"all", ir::ExprKind::And}, std::pair{"any", ir::ExprKind::Or}}) {
    def_function(ns, name, "*args", [kind, name, condition](Interpreter& interp, Args& a) {
      std::string what = std::string("tvm.tir.") + name;
      if (a.varargs().empty()) raise(ExcKind::ValueError, what + ": at least one condition is needed");
      ir::PrimExpr out;
      for (const auto& v : a.varargs()) {
        ir::PrimExpr c = condition(interp, v, what.c_str());
        out = out ? ir::make_binary(kind, out, c) : c;
      }
      return wrap(out);
    });
  }
}

void build_tir(Interpreter& interp, script::Module& m) {
  Namespace& ns = *m.globals;
  ns.set(intern("PrimFunc"), Value(prim_func_type()));
  ns.set(intern("Buffer"), Value(buffer_type()));
  ns.set(intern("analysis"), Value(import(interp, "tvm.tir.analysis")));
  ns.set(intern("transform"), Value(import(interp, "tvm.tir.transform")));
  ns.set(intern("stmt_functor"),
         Value(import(interp, "tvm.tir.stmt_functor")));  // imported by tvm.tir, as TVM's package does
  install_schedule(ns);
  // tvm.tir.schedule.state, imported with tvm.tir as TVM's package does.
  ns.find(intern("schedule"))
      ->as<script::Module>()
      ->globals->set(intern("state"), Value(import(interp, "tvm.tir.schedule.state")));
  std::shared_ptr<script::Module> expr = import(interp, "tvm.tir.expr");
  ns.set(intern("expr"), Value(expr));
  for (const char* f : {"PrimExpr", "all", "any"}) ns.set(intern(f), *expr->globals->find(intern(f)));
  install_expr_classes(ns);
  ns.set(intern("IndexMap"), Value(index_map_type()));
  ns.set(intern("TensorIntrin"), Value(tensor_intrin_type()));
  ns.set(intern("For"), Value(for_stmt_type()));
  install_stmt_constructors(ns);
  ns.set(intern("Block"), Value(block_stmt_type()));
  ns.set(intern("BlockRealize"), Value(block_realize_stmt_type()));
  // tvm.tir.decl_buffer(shape, dtype, name, ...): a buffer value outside TVMScript.
  def_function(
      ns, "decl_buffer",
      "shape, dtype=\"float32\", name=\"buffer\", data=None, strides=None, elem_offset=None, scope=\"\", "
      "data_alignment=-1, "
      "offset_factor=0, buffer_type=\"\", axis_separators=None, span=None",
      [](Interpreter& interp, Args& a) {
        std::vector<ir::PrimExpr> shape;
        for (const Value& d :
             a[0].as<script::Tuple>() || a[0].as<script::List>() ? interp.to_vector(a[0]) : std::vector<Value>{a[0]}) {
          shape.push_back(to_expr(interp, d, "decl_buffer shape"));
        }
        std::string scope = a.get_str(6);
        const ir::VarNode* data = nullptr;
        if (!a[3].is_none()) {
          // Over given data: a handle variable, whose pointer annotation gives the scope (TVM's Buffer::scope()).
          auto* e = a[3].as<ExprValue>();
          data = e ? ir::as<ir::VarNode>(e->expr) : nullptr;
          if (!data || !data->dtype.is_handle()) a.type_error(3, "a handle tvm.tir.Var");
          if (data->type_annotation) scope = data->type_annotation->storage_scope;
        }
        ir::Buffer b = ir::make_buffer(a.get_str(2), to_dtype(interp, a[1], "decl_buffer dtype"), shape, scope);
        b = with_buffer_options(interp, b, BufferOptions{a[4], a[5], a[7], a[8], a[10]}, "tvm.tir.decl_buffer");
        if (data) {
          auto node = std::make_shared<ir::BufferNode>(*b);
          node->data = std::static_pointer_cast<const ir::VarNode>(a[3].as<ExprValue>()->expr);
          b = node;
        }
        if (auto* v = b->elem_offset ? ir::as<ir::VarNode>(b->elem_offset) : nullptr; v && v->name == "elem_offset") {
          v->name = b->name + "_elem_offset";
        }
        return wrap(b);
      });
  // TVM's re-exports (python/tvm/tir/__init__.py): the tir.op functions, build, const and the
  // index division aliases, written in tsch (stdlib/tvm_tir.tsch).
  for (const auto& [name, v] : import(interp, "tvm_tir")->globals->values()) {
    if (symbol_name(name).rfind("__", 0) != 0) ns.set(name, v);
  }
  // tvm.tir.infinity(dtype): the float type's infinity (TVM's T.float32("inf")).
  def_function(
      ns, "infinity", "dtype, span=None",
      [](Interpreter& interp, Args& a) {
        ir::DataType t = to_dtype(interp, a[0], "tvm.tir.infinity dtype");
        if (!t.is_float() || t.is_float8()) a.value_error(0, "a float dtype with an infinity, got " + t.to_string());
        return wrap(ir::make_float(INFINITY, t));
      },
      "infinity(dtype): +inf of a float dtype.");
}

void build_tir_analysis(Interpreter&, script::Module& m) {
  def_function(
      *m.globals, "verify_well_formed", "obj, assert_mode=True",
      [](Interpreter& interp, Args& a) {
        ir::IRModule mod = to_module(interp, a[0], "verify_well_formed");
        for (auto [name, f] : mod->prim_funcs()) {
          if (auto* pf = a[0].as<PrimFuncValue>()) name = pf->name;
          std::vector<std::string> problems = arith::verify_well_formed(f, arith::kStructure);
          if (problems.empty()) continue;
          if (!interp.truthy(a[1])) return Value::boolean(false);
          std::string message = "prim_func " + name + " is not well formed:";
          for (const auto& p : problems) message += "\n  " + p;
          raise(ExcKind::ValueError, message);
        }
        return Value::boolean(true);
      },
      "verify_well_formed(func_or_mod, assert_mode=True): check variables, scopes and block bindings (TVM's rules; "
      "out-of-bounds accesses are refused by tvm.build).");
}

}  // namespace

void register_tvm_tir_modules() {
  script::ModuleLoader::register_builtin("tvm.tir", build_tir);
  script::ModuleLoader::register_builtin("tvm.tir.expr", build_tir_expr);
  script::ModuleLoader::register_builtin("tvm.tir.analysis", build_tir_analysis);
  script::ModuleLoader::register_builtin("tvm.tir.stmt_functor", [](Interpreter&, script::Module& m) {
    script::def_function(
        *m.globals, "pre_order_visit", "stmt, fvisit",
        [](Interpreter& interp, Args& a) {
          auto* s = a[0].as<StmtValue>();
          if (!s) a.type_error(0, "a statement (a For, Block, ...)");
          pre_order_visit(interp, s->stmt, a[1]);
          return Value();
        },
        "pre_order_visit(stmt, fvisit): fvisit on each statement, parents first; False skips its children.");
    script::def_function(
        *m.globals, "post_order_visit", "stmt, fvisit",
        [](Interpreter& interp, Args& a) {
          auto* s = a[0].as<StmtValue>();
          if (!s) a.type_error(0, "a statement (a For, Block, ...)");
          post_order_visit(interp, s->stmt, a[1]);
          return Value();
        },
        "post_order_visit(stmt, fvisit): fvisit on each statement, children first (statements only).");
  });
  // tvm.tir.function: where TVM defines PrimFunc, TensorIntrin and IndexMap (tvm.tir re-exports them).
  script::ModuleLoader::register_builtin("tvm.tir.function", [](Interpreter& interp, script::Module& m) {
    Namespace& tir = *import(interp, "tvm.tir")->globals;
    for (const char* name : {"PrimFunc", "TensorIntrin", "IndexMap"})
      if (Value* v = tir.find(intern(name))) m.globals->set(intern(name), *v);
  });
}

}  // namespace tsch::bindings
