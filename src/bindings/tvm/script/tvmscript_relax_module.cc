// The TVMScript Relax namespace `R` (tvm.script.relax): the @R.function decorator, struct
// info annotations, and the functions a Relax body calls (R.call_tir, R.call_dps_packed,
// R.const, R.match_cast, R.output, ...), each building a Relax expression with its struct
// info inferred by relax/op.h. (The Relax values are in values/relax_values.h, what the
// front end consumes in frontend/relax_specs.h.)
#include <fmt/format.h>

#include "bindings/tvm/script/roundtrip_check.h"
#include "bindings/tvm/script/tvmscript_decorators.h"
#include "bindings/tvm/script/tvmscript_relax_ops.h"
#include "frontend/ir_module_frame.h"
#include "frontend/relax_parser.h"
#include "frontend/relax_specs.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "numpy/ndarray_value.h"
#include "relax/metadata_json.h"
#include "relax/op.h"
#include "relax/printer.h"
#include "relax/structural_equal.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "values/attr_values.h"
#include "values/dtype_value.h"
#include "values/relax_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// ------------------------------------------------------------------ R.* helpers

relax::Expr expr_arg(Interpreter& interp, const Value& v, const std::string& what) {
  return to_relax_expr(interp, v, what);
}

relax::Expr tuple_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (v.as<script::Tuple>() || v.as<script::List>()) return to_relax_expr(interp, v, what);
  relax::Expr e = to_relax_expr(interp, v, what);
  if (relax::sinfo_of(e)->kind == relax::SInfoKind::Tuple && e->kind == relax::ExprKind::Tuple) return e;
  return guard_core([&] { return relax::make_tuple({e}); });
}

relax::StructInfo out_sinfo_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (v.as<script::Tuple>() || v.as<script::List>()) {
    std::vector<relax::StructInfo> fields;
    for (const auto& f : interp.to_vector(v)) fields.push_back(frontend::to_struct_info(interp, f, what));
    return relax::tuple_sinfo(std::move(fields));
  }
  return frontend::to_struct_info(interp, v, what);
}

relax::Expr extern_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* s = v.as<script::Str>()) return relax::make_extern_func(s->value);
  relax::Expr e = to_relax_expr(interp, v, what);
  if (e->kind != relax::ExprKind::ExternFunc && e->kind != relax::ExprKind::GlobalVar) {
    raise(ExcKind::TypeError, what + ": expected a function name (a string)");
  }
  return e;
}

Value r_call_tir(Interpreter& interp, Args& a) {
  relax::Expr callee;
  if (auto* s = a[0].as<script::Str>()) {
    callee = relax::make_global_var(s->value, relax::opaque_func_sinfo(relax::void_sinfo(), false));
  } else {
    callee = to_relax_expr(interp, a[0], "R.call_tir callee");
  }
  auto* gv = relax::as<relax::GlobalVarNode>(callee);
  if (!gv) a.type_error(0, "a prim_func of the module (cls.name)");
  if (frontend::IRModuleFrame* m = frontend::current_ir_module_frame(); m && !m->consumed) {
    const auto* kind = frontend::global_kind(*m, gv->name);
    if (!kind) raise(ExcKind::ValueError, fmt::format("R.call_tir: the module defines no function named {}", gv->name));
    if (*kind == frontend::IRModuleFrame::GlobalKind::RelaxFunction) {
      raise(ExcKind::TypeError,
            fmt::format("R.call_tir calls a prim_func, but {} is a Relax function (call it directly: cls.{}(...))",
                        gv->name, gv->name));
    }
  }
  if (a[2].is_none()) raise(ExcKind::TypeError, "R.call_tir needs out_sinfo: the struct info of its output(s)");
  if (a[3].as<script::Str>() && a[4].is_none()) std::swap(a[3], a[4]);  // R.call_tir(f, args, shape, "float32")
  std::vector<relax::Expr> args{callee, tuple_arg(interp, a[1], "R.call_tir args")};
  size_t n_tir_vars = 0;
  if (!a[3].is_none()) {
    relax::Expr tv = a[3].as<script::Tuple>() || a[3].as<script::List>()
                         ? relax::make_shape_expr(frontend::to_dims(interp, a[3], "tir_vars"))
                         : to_relax_expr(interp, a[3], "tir_vars");
    if (auto* s = relax::as<relax::ShapeSInfoNode>(relax::sinfo_of(tv)); s && s->ndim >= 0)
      n_tir_vars = static_cast<size_t>(s->ndim);
    args.push_back(tv);
  }
  // The 2022 MLC course spelling: R.call_tir(f, args, (1, n), dtype="float32").
  relax::StructInfo out = !a[4].is_none() ? relax::tensor_sinfo(frontend::to_dims(interp, a[2], "R.call_tir shape"),
                                                                to_dtype(interp, a[4], "R.call_tir dtype"))
                                          : out_sinfo_arg(interp, a[2], "R.call_tir out_sinfo");
  // The prim_func takes the inputs, then the outputs, then the tir_vars (destination passing).
  if (frontend::IRModuleFrame* m = frontend::current_ir_module_frame(); m && !m->consumed) {
    for (size_t i = 0; i < m->global_names.size(); ++i) {
      if (m->global_names[i] != gv->name || m->global_kinds[i] != frontend::IRModuleFrame::GlobalKind::PrimFunc)
        continue;
      size_t params = m->global_defs[i]->params.size();
      size_t inputs = relax::as<relax::TupleSInfoNode>(relax::sinfo_of(args[1]))->fields.size();
      auto* tuple_out = relax::as<relax::TupleSInfoNode>(out);
      size_t outputs = tuple_out ? tuple_out->fields.size() : 1;
      if (inputs + outputs + n_tir_vars != params) {
        raise(ExcKind::ValueError,
              fmt::format(
                  "R.call_tir: prim_func {} takes {} parameter{}, but the call passes {} input{}, {} output{}{}",
                  gv->name, params, params == 1 ? "" : "s", inputs, inputs == 1 ? "" : "s", outputs,
                  outputs == 1 ? "" : "s", n_tir_vars ? fmt::format(" and {} tir_vars", n_tir_vars) : std::string()));
      }
    }
  }
  return call_op("relax.call_tir", std::move(args), {out});
}

Value r_call_dps_packed(Interpreter& interp, Args& a) {
  if (a[2].is_none()) raise(ExcKind::TypeError, "R.call_dps_packed needs out_sinfo: the struct info of its output(s)");
  return call_op(
      "relax.call_dps_packed",
      {extern_arg(interp, a[0], "R.call_dps_packed function"), tuple_arg(interp, a[1], "R.call_dps_packed args")},
      {out_sinfo_arg(interp, a[2], "R.call_dps_packed out_sinfo")});
}

Value r_call_packed(Interpreter& interp, Args& a) {
  std::vector<relax::Expr> args;
  for (const auto& v : a.varargs()) args.push_back(expr_arg(interp, v, "R.call_packed argument"));
  relax::Expr f = extern_arg(interp, a[0], "R.call_packed function");
  auto sinfo = sinfo_args_arg(interp, a[2]);
  return wrap_relax(guard_core([&] { return relax::make_call(f, std::move(args), {}, std::move(sinfo)); }));
}

Value r_call_pure_packed(Interpreter& interp, Args& a) {
  std::vector<relax::Expr> args{extern_arg(interp, a[0], "R.call_pure_packed function")};
  for (const auto& v : a.varargs()) args.push_back(expr_arg(interp, v, "R.call_pure_packed argument"));
  return call_op("relax.call_pure_packed", std::move(args), sinfo_args_arg(interp, a[2]));
}

relax::Expr str_or_expr(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* s = v.as<script::Str>()) return relax::make_string_imm(s->value);
  return to_relax_expr(interp, v, what);
}

Value r_print(Interpreter& interp, Args& a) {
  std::vector<relax::Expr> args{str_or_expr(interp, a[1], "R.print format")};
  for (const auto& v : a.varargs()) args.push_back(expr_arg(interp, v, "R.print value"));
  return call_op("relax.print", std::move(args));
}

Value r_assert_op(Interpreter& interp, Args& a) {
  std::vector<relax::Expr> args{expr_arg(interp, a[0], "R.assert_op condition"),
                                str_or_expr(interp, a[2], "R.assert_op format")};
  if (!a[1].is_none()) {
    if (a[1].as<script::Tuple>() || a[1].as<script::List>()) {
      for (const auto& v : interp.to_vector(a[1])) args.push_back(expr_arg(interp, v, "R.assert_op format argument"));
    } else {
      args.push_back(expr_arg(interp, a[1], "R.assert_op format argument"));
    }
  }
  return call_op("relax.assert_op", std::move(args));
}

Value r_const(Interpreter& interp, Args& a) {
  ir::DataType t = a[1].is_none() ? ir::DataType::void_() : to_dtype(interp, a[1], "R.const dtype");
  runtime::NDArrayRef data;
  if (auto* arr = a[0].as<ArrayValue>()) {
    data = t.is_void() || t == arr->array->dtype() ? arr->array->copy() : arr->array->astype(t);
  } else if (a[0].is_number()) {
    if (t.is_void())
      t = a[0].is_bool() ? ir::DataType::bool_() : a[0].is_float() ? ir::DataType::float32() : ir::DataType::int32();
    data = std::make_shared<runtime::NDArray>(t, runtime::Shape{});
    if (t.is_float())
      data->set_f(0, a[0].is_float() ? a[0].as_float() : static_cast<double>(a.get_int(0)));
    else
      data->set_i(0, a[0].is_float() ? static_cast<int64_t>(a[0].as_float()) : a.get_int(0));
  } else {
    a.type_error(0, "a number or a numpy array");
  }
  return wrap_relax(relax::make_constant(data));
}

Value r_match_cast(Interpreter& interp, Args& a) {
  relax::Expr v = expr_arg(interp, a[0], "R.match_cast value");
  relax::StructInfo s = frontend::to_struct_info(interp, a[1], "R.match_cast struct info");
  if (s->kind != relax::sinfo_of(v)->kind && relax::sinfo_of(v)->kind != relax::SInfoKind::Object) {
    raise(ExcKind::TypeError, fmt::format("R.match_cast cannot turn a value of {} into {}",
                                          relax::sinfo_text(relax::sinfo_of(v)), relax::sinfo_text(s)));
  }
  return Value(std::make_shared<frontend::MatchCastValue>(v, s));
}

Value r_output(Interpreter& interp, Args& a) {
  frontend::RelaxFunctionFrame* f = frontend::current_relax_frame();
  if (!f || !f->in_dataflow)
    raise(ExcKind::ValueError, "R.output(...) is only valid at the end of a `with R.dataflow():` block");
  if (f->output_seen) raise(ExcKind::ValueError, "a dataflow block has one R.output(...)");
  for (const auto& v : a.varargs()) {
    relax::Expr e = to_relax_expr(interp, v, "R.output");
    auto* var = relax::as<relax::VarNode>(e);
    if (!var) raise(ExcKind::TypeError, "R.output takes the variables bound in the block");
    if (var->is_dataflow)
      raise(ExcKind::ValueError, "R.output: " + var->name + " is not the last binding of that name in this block");
    f->outputs.push_back(std::static_pointer_cast<const relax::VarNode>(e));
  }
  f->output_seen = true;
  return Value();
}

Value r_func_attr(Interpreter& interp, Args& a) {
  frontend::RelaxFunctionFrame* f = frontend::current_relax_frame();
  if (!f) raise(ExcKind::ValueError, "R.func_attr(...) is only valid in the body of an @R.function");
  f->attrs = to_attr_map(interp, a[0], "R.func_attr");
  return Value();
}

TypeRef relax_function_decorator_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("function");
    type->set_module("tvm.script.relax");
    type->def("__call__", "self, *args, pure=True, private=False, check_well_formed=True",
              [](Interpreter& interp, Args& a) -> Value {
                if (!a.varargs().empty())
                  raise(ExcKind::TypeError,
                        "R.function decorates a `def` directly: write @R.function above the function");
                auto d = std::make_shared<RelaxFunctionDecorator>();
                d->pure = interp.truthy(a[2]);
                d->is_private = interp.truthy(a[3]);
                return Value(d);
              });
    return type;
  }();
  return t;
}

void build_relax_script_module(Interpreter& interp, script::Module& m) {
  Namespace& ns = *m.globals;
  ns.set(intern("function"), Value(std::make_shared<RelaxFunctionDecorator>()));
  ns.set(intern("Tensor"), frontend::sinfo_factory(relax::SInfoKind::Tensor));
  ns.set(intern("Shape"), frontend::sinfo_factory(relax::SInfoKind::Shape));
  ns.set(intern("Tuple"), frontend::sinfo_factory(relax::SInfoKind::Tuple));
  ns.set(intern("Prim"), frontend::sinfo_factory(relax::SInfoKind::Prim));
  ns.set(intern("Callable"), frontend::sinfo_factory(relax::SInfoKind::Func));
  ns.set(intern("Object"), Value(std::make_shared<StructInfoValue>(relax::object_sinfo())));
  def_function(ns, "call_tir", "gvar, args, out_sinfo=None, tir_vars=None, dtype=None", r_call_tir,
               "R.call_tir(cls.f, (x, y), out_sinfo=R.Tensor(...)): call a prim_func in destination-passing style.");
  def_function(ns, "call_dps_packed", "func, args, out_sinfo=None", r_call_dps_packed,
               "R.call_dps_packed(\"name\", (x, y), out_sinfo): call a packed function by name, outputs allocated by "
               "the caller.");
  def_function(ns, "call_packed", "func, *args, sinfo_args=None", r_call_packed,
               "R.call_packed(\"name\", *args, sinfo_args=...): call a packed function (impure).");
  def_function(ns, "call_pure_packed", "func, *args, sinfo_args=None", r_call_pure_packed,
               "R.call_pure_packed(\"name\", *args, sinfo_args=...): call a packed function known to be pure.");
  def_function(
      ns, "call_builtin_with_ctx", "func, args, sinfo_args=None",
      [](Interpreter& interp, Args& a) {
        return call_op("relax.call_builtin_with_ctx",
                       {extern_arg(interp, a[0], "R.call_builtin_with_ctx function"),
                        tuple_arg(interp, a[1], "R.call_builtin_with_ctx args")},
                       sinfo_args_arg(interp, a[2]));
      },
      "R.call_builtin_with_ctx(\"name\", args, sinfo_args=...): call a VM builtin that takes the VM as its first "
      "argument.");
  def_function(ns, "print", "*values, format=\"\"", r_print,
               "R.print(*values, format=\"\"): print at run time (impure).");
  def_function(ns, "assert_op", "condition, format_args=None, format=\"\"", r_assert_op,
               "R.assert_op(cond, format_args, format): fail at run time when cond is false (impure).");
  def_function(ns, "const", "value, dtype=None", r_const, "R.const(value, dtype=None): a constant tensor.");
  def_function(
      ns, "shape", "value",
      [](Interpreter& interp, Args& a) {
        return wrap_relax(relax::make_shape_expr(frontend::to_dims(interp, a[0], "R.shape")));
      },
      "R.shape([1, n]): a shape value.");
  def_function(ns, "prim_value", "value", [](Interpreter& interp, Args& a) {
    ir::PrimExpr v =
        a[0].is_integral() ? ir::make_int(a[0].as_int(), ir::DataType::int64()) : to_expr(interp, a[0], "R.prim_value");
    return wrap_relax(relax::make_prim_value(v));
  });
  def_function(ns, "str", "value",
               [](Interpreter&, Args& a) { return wrap_relax(relax::make_string_imm(a.get_str(0))); });
  def_function(ns, "dtype", "value", [](Interpreter& interp, Args& a) {
    return wrap_relax(std::make_shared<relax::DataTypeImmNode>(to_dtype(interp, a[0], "R.dtype")));
  });
  def_function(ns, "tuple", "*fields", [](Interpreter& interp, Args& a) {
    std::vector<relax::Expr> fields;
    for (const auto& f : a.varargs()) fields.push_back(to_relax_expr(interp, f, "R.tuple field"));
    return wrap_relax(relax::make_tuple(std::move(fields)));
  });
  def_function(
      ns, "match_cast", "value, struct_info", r_match_cast,
      "R.match_cast(x, R.Tensor((n, 4), \"float32\")): check x's struct info at run time and bind its symbolic dims.");
  def_function(ns, "output", "*vars", r_output, "R.output(a, b): the variables of a dataflow block visible after it.");
  def_function(
      ns, "dataflow", "", [](Interpreter&, Args&) { return Value(std::make_shared<frontend::DataflowHeaderValue>()); },
      "with R.dataflow(): a block of pure bindings.");
  def_function(ns, "func_attr", "attrs", r_func_attr,
               "R.func_attr({...}): the attributes of the function being defined.");
  def_function(ns, "ExternFunc", "global_symbol",
               [](Interpreter&, Args& a) { return wrap_relax(relax::make_extern_func(a.get_str(0))); });
  def_lowered_ops(ns);  // R.builtin.*, R.memory.*, R.vm.*, R.shape_of, R.null_value
  (void)interp;
}

}  // namespace

namespace {

Value wrap_relax_function(const ir::BaseFunc& f, const std::string& name) {
  return Value(std::make_shared<RelaxFunctionValue>(relax::as_relax_function(f), name));
}

}  // namespace

TypeObject* RelaxFunctionDecorator::type() const { return relax_function_decorator_type().get(); }

void register_tvmscript_relax_module() {
  static bool done = false;
  if (done) return;
  done = true;
  relax::register_relax_printer();
  relax::register_relax_structural_equal();
  relax::register_metadata_writer();
  function_wrappers()[ir::FuncKind::RelaxFunction] = wrap_relax_function;
  script::DecoratorHook hook;
  hook.on_function = [](script::Evaluator& defining, const Value& decorator, const ast::FunctionDef& def,
                        Value& result) {
    auto* deco = decorator.as<RelaxFunctionDecorator>();
    if (!deco) return false;
    relax::Function f = frontend::parse_relax_function(defining, def, deco->pure, deco->is_private);
    result = Value(std::make_shared<RelaxFunctionValue>(f, symbol_name(def.name)));
    // A function of a module class refers to the module (cls.f): it round-trips with it.
    frontend::IRModuleFrame* m = frontend::current_ir_module_frame();
    static const bool roundtrip = std::getenv("TSCH_CHECK_ROUNDTRIP") != nullptr;
    if (roundtrip && (!m || m->consumed)) check_roundtrip(defining.interp, f, symbol_name(def.name));
    return true;
  };
  script::Interpreter::decorator_hooks().push_back(std::move(hook));
  script::ModuleLoader::register_builtin("tvm.script.relax", build_relax_script_module);
}

}  // namespace tsch::bindings
