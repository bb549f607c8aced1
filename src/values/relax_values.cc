// Relax values in scripts: expressions, struct info and functions as script objects, and the
// conversions between script values and Relax expressions.
#include "values/relax_values.h"

#include <fmt/format.h>

#include "relax/op.h"
#include "relax/printer.h"
#include "script/exceptions.h"
#include "script/types.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {
ArrayConstantHook array_constant_hook = nullptr;
}  // namespace

void set_array_constant_hook(ArrayConstantHook hook) { array_constant_hook = hook; }

TypeObject* RelaxExprValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Expr");
    type->set_module("tvm.relax");
    type->def("__getitem__", "self, index", [](Interpreter&, Args& a) {
      relax::Expr e = a[0].as<RelaxExprValue>()->expr;
      return wrap_relax(guard_core([&] { return relax::make_tuple_get_item(e, static_cast<int>(a.get_int(1))); }));
    });
    type->def("__call__", "self, *args", [](Interpreter& interp, Args& a) {
      relax::Expr f = a[0].as<RelaxExprValue>()->expr;
      std::vector<relax::Expr> args;
      for (const auto& v : a.varargs()) args.push_back(to_relax_expr(interp, v, "argument"));
      return wrap_relax(guard_core([&] { return relax::make_call(f, std::move(args)); }));
    });
    type->def_property("struct_info", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<StructInfoValue>(relax::sinfo_of(v.as<RelaxExprValue>()->expr)));
    });
    type->def_property("name_hint", [](Interpreter&, const Value& v) {
      auto* var = relax::as<relax::VarNode>(v.as<RelaxExprValue>()->expr);
      if (!var) raise(ExcKind::AttributeError, "only Relax variables have a name_hint");
      return script::make_str(var->name);
    });
    return type;
  }();
  return t.get();
}

std::string RelaxExprValue::repr_hook(Interpreter&) {
  if (auto* v = relax::as<relax::VarNode>(expr)) return v->name;
  if (auto* g = relax::as<relax::GlobalVarNode>(expr)) return "I.GlobalVar(\"" + g->name + "\")";
  return "<relax." + std::string(expr->kind == relax::ExprKind::Call ? "Call" : "Expr") + ": " +
         relax::sinfo_text(relax::sinfo_of(expr)) + ">";
}

TypeObject* StructInfoValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("StructInfo");
    type->set_module("tvm.relax");
    return type;
  }();
  return t.get();
}

TypeRef relax_function_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Function", std::vector<TypeRef>{base_func_type()});
    type->set_module("tvm.relax");
    type->hashes_by_value = true;  // BaseFunc's identity: == is same_as
    type->def_property("params", [](Interpreter&, const Value& v) {
      std::vector<Value> out;
      for (const auto& p : v.as<RelaxFunctionValue>()->func->params) out.push_back(wrap_relax(p));
      return script::make_list(std::move(out));
    });
    type->def_property("ret_struct_info", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<StructInfoValue>(v.as<RelaxFunctionValue>()->func->ret_sinfo));
    });
    type->def_property("is_pure", [](Interpreter&, const Value& v) {
      return Value::boolean(v.as<RelaxFunctionValue>()->func->is_pure);
    });
    return type;
  }();
  return t;
}

TypeObject* RelaxFunctionValue::type() const { return relax_function_type().get(); }

TypeObject* MetadataPlaceholderValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("metadata");
    type->set_module("tvm.script.relax");
    type->def("__getitem__", "self, key", [](Interpreter&, Args&) -> Value {
      raise(ExcKind::ValueError,
            "metadata constants: this text was printed without show_meta=True, which leaves their values out (print it "
            "with script(show_meta=True), or define the constants with R.const(numpy_array))");
    });
    return type;
  }();
  return t.get();
}

TypeObject* HiddenDataflowVarValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("DataflowVarOutOfScope");
    type->set_module("tvm.script.relax");
    return type;
  }();
  return t.get();
}

ir::BaseFunc as_extern_func_decl(const Value& v) {
  auto* e = v.as<RelaxExprValue>();
  if (!e || e->expr->kind != relax::ExprKind::ExternFunc) return nullptr;
  auto ext = std::make_shared<relax::ExternFuncDeclNode>();
  ext->global_symbol_name = relax::as<relax::ExternFuncNode>(e->expr)->global_symbol;
  return ext;
}

bool is_relax_expr(const Value& v) { return v.as<RelaxExprValue>() || v.as<HiddenDataflowVarValue>(); }

Value wrap_relax(relax::Expr e) { return Value(std::make_shared<RelaxExprValue>(std::move(e))); }

relax::Expr to_relax_expr(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* r = v.as<RelaxExprValue>()) return r->expr;
  if (auto* h = v.as<HiddenDataflowVarValue>()) {
    raise(ExcKind::NameError,
          fmt::format(
              "{} is a dataflow variable of the block at line {} and is not visible after it; list it in that block's "
              "R.output(...) to use it here",
              h->name, h->block_line));
  }
  if (v.as<script::Tuple>() || v.as<script::List>()) {
    std::vector<relax::Expr> fields;
    for (const auto& item : interp.to_vector(v)) fields.push_back(to_relax_expr(interp, item, what));
    return relax::make_tuple(std::move(fields));
  }
  if (v.is_number()) {
    // As relax.const: Python ints are int32, floats float32.
    ir::DataType t = v.is_bool()    ? ir::DataType::bool_()
                     : v.is_float() ? ir::DataType::float32()
                                    : ir::DataType::int32();
    auto data = std::make_shared<runtime::NDArray>(t, runtime::Shape{});
    if (v.is_float())
      data->set_f(0, v.as_float());
    else
      data->set_i(0, v.is_bool() ? v.as_bool() : v.as_int());
    return relax::make_constant(data);
  }
  if (auto* e = v.as<ExprValue>()) return relax::make_prim_value(e->expr);
  if (array_constant_hook) {
    if (auto data = array_constant_hook(v)) return relax::make_constant(data);
  }
  if (auto* f = v.as<FunctionValue>()) {
    raise(ExcKind::TypeError,
          fmt::format("{}: a function value ({}) is not a Relax expression here; refer to a module function as "
                      "cls.{}",
                      what, f->name, f->name));
  }
  raise(ExcKind::TypeError, fmt::format("{}: expected a Relax value, got {}", what, Interpreter::type_name(v)));
}

}  // namespace tsch::bindings
