// Functions and modules in scripts, with TVM's API: tvm.ir.BaseFunc (attributes, printing),
// tvm.tir.PrimFunc (params, buffer_map, body), tvm.ir.GlobalVar and tvm.ir.IRModule (lookup
// by name or GlobalVar, functions, update_func, attributes). Modules are immutable in C++;
// the editing methods TVM has (`mod[gv] = f`, update_func, update) rebind the value's module.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "ir/printer.h"
#include "ir/specialize.h"
#include "script/exceptions.h"
#include "script/signature.h"
#include "script/types.h"
#include "values/attr_values.h"
#include "values/ir_values.h"
#include "values/relax_values.h"
#include "values/stmt_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

ir::BaseFunc func_of(const Value& v) { return v.as<FunctionValue>()->base_func(); }

// TVM's Object.__hash__: the node's address.
Value address_hash(const void* node) { return Value::integer(static_cast<int64_t>(reinterpret_cast<uintptr_t>(node))); }

const std::string& func_name(const Value& v) { return v.as<FunctionValue>()->name; }

// A function argument of any kind.
ir::BaseFunc function_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* f = v.as<FunctionValue>()) return f->base_func();
  if (ir::BaseFunc ext = as_extern_func_decl(v)) return ext;
  raise(ExcKind::TypeError, fmt::format("{}: expected a function (PrimFunc, Relax function, ExternFunc), got {}", what,
                                        Interpreter::type_name(v)));
}

// A module key: a name or a GlobalVar.
std::string key_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* s = v.as<script::Str>()) return s->value;
  if (auto* g = v.as<GlobalVarValue>()) return g->name_hint;
  raise(ExcKind::TypeError, fmt::format("{}: expected a str or GlobalVar, got {}", what, Interpreter::type_name(v)));
}

Value global_var(const std::string& name) { return Value(std::make_shared<GlobalVarValue>(name)); }

// TVM's message for a name the module does not have.
[[noreturn]] void raise_missing(const ir::IRModule& mod, const std::string& name) {
  std::string candidates;
  for (const auto& [n, f] : mod->functions) candidates += (candidates.empty() ? "\"" : ", \"") + n + "\"";
  raise(ExcKind::ValueError,
        fmt::format("Cannot find global var \"{}\" in the Module\ncandidates are: [{}]", name, candidates));
}

ir::AttrMap attrs_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (v.is_none()) return {};
  return to_attr_map(interp, v, what);
}

// with_attr(key, value) or with_attr({key: value, ...}), as TVM's BaseFunc.with_attr.
ir::BaseFunc func_with_attr(Interpreter& interp, ir::BaseFunc f, Args& a) {
  if (a[1].as<script::Dict>()) {
    for (auto& [k, v] : to_attr_map(interp, a[1], "with_attr")) f = ir::with_attr(f, k, std::move(v));
    return f;
  }
  return ir::with_attr(f, a.get_str(1), to_attr(interp, a[2]));
}

// script() / show() keywords: show_meta.
ir::PrintOptions print_options(Interpreter& interp, Args& a) {
  ir::PrintOptions options;
  options.show_meta = interp.truthy(a[1]);
  return options;
}

TypeRef make_base_func_type() {
  auto t = std::make_shared<TypeObject>("BaseFunc");
  t->set_module("tvm.ir");
  t->def(
      "script", "self, show_meta=False, name=None",
      [](Interpreter& interp, Args& a) {
        std::string name = a[2].is_none() ? func_name(a[0]) : a.get_str(2);
        return script::make_str(ir::script(func_of(a[0]), name, print_options(interp, a)));
      },
      "script(show_meta=False, name=None): the function as TVMScript text, named `name` when given (show_meta: "
      "constants included, so the text reads back).");
  t->def(
      "show", "self, show_meta=False",
      [](Interpreter& interp, Args& a) {
        interp.write_stdout(ir::script(func_of(a[0]), func_name(a[0]), print_options(interp, a)));
        return Value();
      },
      "show(show_meta=False): print the function as TVMScript.");
  t->def_property("attrs", [](Interpreter&, const Value& v) { return wrap_attrs(func_of(v)->attrs); });
  // TVM's Object identity: == is same_as, the hash the node's address (a schedule's
  // copy-on-write shows in `sch.mod["main"].__hash__()`).
  auto same = [](Args& a) {
    auto* other = a[1].as<FunctionValue>();
    return other && other->base_func() == func_of(a[0]);
  };
  t->def("same_as", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
  t->def("__eq__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
  t->def("__ne__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(!same(a)); });
  t->def("__hash__", "self", [](Interpreter&, Args& a) { return address_hash(func_of(a[0]).get()); });
  t->hashes_by_value = true;  // not inherited: each function type sets it too
  t->def(
      "with_attr", "self, attr_key_or_dict, attr_value=None",
      [](Interpreter& interp, Args& a) {
        return wrap_function(func_with_attr(interp, func_of(a[0]), a), func_name(a[0]));
      },
      "with_attr(key, value) or with_attr({key: value}): a copy of the function with the attribute(s) set.");
  t->def("with_attrs", "self, attr_map", [](Interpreter& interp, Args& a) {
    ir::BaseFunc f = func_of(a[0]);
    for (auto& [k, v] : to_attr_map(interp, a[1], "with_attrs")) f = ir::with_attr(f, k, std::move(v));
    return wrap_function(f, func_name(a[0]));
  });
  t->def("without_attr", "self, attr_key", [](Interpreter&, Args& a) {
    return wrap_function(ir::without_attr(func_of(a[0]), a.get_str(1)), func_name(a[0]));
  });
  return t;
}

const ir::PrimFunc& prim_func_of(const Value& v) { return v.as<PrimFuncValue>()->func; }

// tvm.tir.PrimFunc(params, body, ret_type=None, buffer_map=None, attrs=None): a function
// built outside TVMScript, as TVM's constructor builds it — a Buffer among the params becomes a
// handle Var of its name bound to it; no global_symbol is added.
Value construct_prim_func(Interpreter& interp, TypeObject*, script::CallArgs& call) {
  static const script::Signature sig =
      script::Signature::parse("params, body, ret_type=None, buffer_map=None, attrs=None, span=None");
  Args a(interp, "PrimFunc", sig, std::move(call));
  auto f = std::make_shared<ir::PrimFuncNode>();
  for (const Value& p : interp.to_vector(a[0])) {
    if (auto* b = p.as<BufferValue>()) {
      ir::Var var = ir::make_var(b->buffer->name, ir::DataType::handle());
      f->params.push_back(var);
      f->buffer_map.emplace_back(var, b->buffer);
    } else if (auto* e = p.as<ExprValue>(); e && ir::as<ir::VarNode>(e->expr)) {
      f->params.push_back(std::static_pointer_cast<const ir::VarNode>(e->expr));
    } else {
      raise(ExcKind::TypeError, "params can only contain Var or Buffer");
    }
  }
  auto* body = a[1].as<StmtValue>();
  if (!body) a.type_error(1, "a tvm.tir.Stmt");
  f->body = body->stmt;
  if (!a[2].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: tvm.tir.PrimFunc with a ret_type");
  if (!a[3].is_none()) {
    auto* d = a[3].as<script::Dict>();
    if (!d) a.type_error(3, "a dict of Var to Buffer");
    for (const auto& [k, v] : d->items()) {
      auto* e = k.as<ExprValue>();
      auto* b = v.as<BufferValue>();
      if (!e || !ir::as<ir::VarNode>(e->expr) || !b)
        raise(ExcKind::TypeError, "PrimFunc: buffer_map maps parameter Vars to Buffers");
      ir::Var var = std::static_pointer_cast<const ir::VarNode>(e->expr);
      if (std::find(f->params.begin(), f->params.end(), var) == f->params.end()) {
        raise(ExcKind::ValueError, "PrimFunc: buffer_map key " + var->name + " is not a parameter");
      }
      f->buffer_map.emplace_back(var, b->buffer);
    }
  }
  ir::BaseFunc func = f;
  if (!a[4].is_none()) {
    for (auto& [k, v] : to_attr_map(interp, a[4], "PrimFunc attrs")) func = ir::with_attr(func, k, std::move(v));
  }
  return wrap_function(func, "main");
}

TypeRef make_prim_func_type() {
  auto t = std::make_shared<TypeObject>("PrimFunc", std::vector<TypeRef>{base_func_type()});
  t->set_module("tvm.tir");
  t->hashes_by_value = true;  // BaseFunc's identity
  t->constructor = construct_prim_func;
  t->def_property("params", [](Interpreter&, const Value& v) {
    std::vector<Value> out;
    for (const auto& p : prim_func_of(v)->params) out.push_back(wrap(ir::PrimExpr(p)));
    return script::make_list(std::move(out));
  });
  t->def_property("buffer_map", [](Interpreter& interp, const Value& v) {
    auto d = std::make_shared<script::Dict>();
    for (const auto& [var, buf] : prim_func_of(v)->buffer_map) d->set(interp, wrap(ir::PrimExpr(var)), wrap(buf));
    return Value(d);
  });
  t->def_property("body", [](Interpreter&, const Value& v) { return wrap(prim_func_of(v)->body); });
  t->def_property("ret_type",
                  [](Interpreter&, const Value& v) { return script::make_str(prim_func_of(v)->ret_type.to_string()); });
  // specialize({param: value or buffer}): TVM's PrimFunc.specialize (ir/specialize.h).
  t->def(
      "specialize", "self, param_map",
      [](Interpreter& interp, Args& a) {
        auto* map = a[1].as<script::Dict>();
        if (!map) a.type_error(1, "a dict of parameters to values or buffers");
        std::vector<std::pair<ir::Var, ir::SpecializeTo>> bindings;
        for (const auto& [key, value] : map->items()) {
          const ir::PrimExpr var = to_expr(interp, key, "specialize parameter");
          if (!ir::as<ir::VarNode>(var))
            raise(ExcKind::TypeError, "specialize: a key must be a parameter (a tvm.tir.Var), got " + ir::script(var));
          ir::SpecializeTo to;
          if (auto* b = value.as<BufferValue>())
            to.buffer = b->buffer;
          else
            to.value = to_expr_as(interp, value, var->dtype, "specialize value");
          bindings.emplace_back(std::static_pointer_cast<const ir::VarNode>(var), to);
        }
        ir::PrimFunc out = guard_core([&] { return ir::specialize(prim_func_of(a[0]), bindings); });
        if (out == prim_func_of(a[0])) return a[0];
        return wrap_function(out, a[0].as<PrimFuncValue>()->name);
      },
      "specialize(param_map): the function with parameters bound to values or buffers.");
  return t;
}

TypeRef make_global_var_type() {
  auto t = std::make_shared<TypeObject>("GlobalVar");
  t->set_module("tvm.ir");
  t->hashes_by_value = true;
  t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
    static const script::Signature sig = script::Signature::parse("name_hint");
    Args a(interp, "GlobalVar", sig, std::move(call));
    return global_var(a.get_str(0));
  };
  t->def_property("name_hint",
                  [](Interpreter&, const Value& v) { return script::make_str(v.as<GlobalVarValue>()->name_hint); });
  t->def("__eq__", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<GlobalVarValue>();
    return Value::boolean(other && other->name_hint == a[0].as<GlobalVarValue>()->name_hint);
  });
  t->def("__ne__", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<GlobalVarValue>();
    return Value::boolean(!other || other->name_hint != a[0].as<GlobalVarValue>()->name_hint);
  });
  t->def("__hash__", "self", [](Interpreter&, Args& a) {
    return Value::integer(static_cast<int64_t>(std::hash<std::string>()(a[0].as<GlobalVarValue>()->name_hint) >> 1));
  });
  return t;
}

IRModuleValue& module_value(const Value& v) { return *v.as<IRModuleValue>(); }

// `mod.functions`: TVM's tvm.ir.container.Map of GlobalVar to function, read-only. It holds
// the module node it was read from, so it shows that module object's functions even after
// the script's IRModule value is rebound to an edited copy, as TVM's Map stays the old one
// when the module copies it on write.
class FunctionMapValue : public script::Object {
 public:
  explicit FunctionMapValue(ir::IRModule m) : module(std::move(m)) {}
  TypeObject* type() const override { return function_map_type().get(); }
  std::string repr_hook(Interpreter& interp) override { return interp.repr(Value(as_dict(interp))); }
  std::shared_ptr<script::Dict> as_dict(Interpreter& interp) const {
    auto d = std::make_shared<script::Dict>();
    for (const auto& [n, f] : module->functions) d->set(interp, global_var(n), wrap_function(f, n));
    return d;
  }
  ir::IRModule module;

 private:
  static const TypeRef& function_map_type();
};

const TypeRef& FunctionMapValue::function_map_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Map");
    type->set_module("tvm.ir.container");
    auto map_of = [](const Value& v) -> const ir::IRModuleNode& { return *v.as<FunctionMapValue>()->module; };
    auto list_of = [](Interpreter& interp, const Value& v, int which) {
      std::vector<Value> out;
      for (const auto& [n, f] : v.as<FunctionMapValue>()->module->functions) {
        if (which == 0)
          out.push_back(global_var(n));
        else if (which == 1)
          out.push_back(wrap_function(f, n));
        else
          out.push_back(script::make_tuple({global_var(n), wrap_function(f, n)}));
      }
      return script::make_list(std::move(out));
    };
    type->def("__getitem__", "self, key", [map_of](Interpreter& interp, Args& a) -> Value {
      std::string name = key_arg(interp, a[1], "Map[]");
      if (ir::BaseFunc f = map_of(a[0]).lookup(name)) return wrap_function(f, name);
      script::raise_key_error(a[1]);
    });
    type->def(
        "get", "self, key, default=None",
        [map_of](Interpreter& interp, Args& a) -> Value {
          std::string name = key_arg(interp, a[1], "Map.get");
          if (ir::BaseFunc f = map_of(a[0]).lookup(name)) return wrap_function(f, name);
          return a[2];
        },
        "get(key, default=None): the function bound to a GlobalVar (or name), else default.");
    type->def("__contains__", "self, key", [map_of](Interpreter& interp, Args& a) {
      // Any other key is simply absent, as with a dict.
      if (!a[1].as<script::Str>() && !a[1].as<GlobalVarValue>()) return Value::boolean(false);
      return Value::boolean(map_of(a[0]).lookup(key_arg(interp, a[1], "in Map")) != nullptr);
    });
    type->def("__len__", "self", [map_of](Interpreter&, Args& a) {
      return Value::integer(static_cast<int64_t>(map_of(a[0]).functions.size()));
    });
    type->def("__iter__", "self",
              [list_of](Interpreter& interp, Args& a) { return Value(interp.iter(list_of(interp, a[0], 0))); });
    type->def(
        "keys", "self", [list_of](Interpreter& interp, Args& a) { return list_of(interp, a[0], 0); },
        "keys(): the GlobalVars, in definition order.");
    type->def(
        "values", "self", [list_of](Interpreter& interp, Args& a) { return list_of(interp, a[0], 1); },
        "values(): the functions, in definition order.");
    type->def(
        "items", "self", [list_of](Interpreter& interp, Args& a) { return list_of(interp, a[0], 2); },
        "items(): (GlobalVar, function) pairs, in definition order.");
    // TVM's Object identity: the address of the module node's function table, so a module
    // copied on write gives its Map another hash.
    auto same = [](Args& a) {
      auto* other = a[1].as<FunctionMapValue>();
      return other && &other->module->functions == &a[0].as<FunctionMapValue>()->module->functions;
    };
    type->def("same_as", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
    type->def("__eq__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
    type->def("__ne__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(!same(a)); });
    type->def("__hash__", "self", [map_of](Interpreter&, Args& a) { return address_hash(&map_of(a[0]).functions); });
    type->hashes_by_value = true;
    return type;
  }();
  return t;
}

// A copy of the value's module for an edit.
std::shared_ptr<ir::IRModuleNode> editable(const Value& v) {
  return std::make_shared<ir::IRModuleNode>(*module_value(v).module);
}

Value wrap_module(ir::IRModule m) { return Value(std::make_shared<IRModuleValue>(std::move(m))); }

ir::IRModule module_from_args(Interpreter& interp, const Value& functions, const Value& attrs) {
  auto mod = std::make_shared<ir::IRModuleNode>();
  if (auto* d = functions.as<script::Dict>()) {
    for (const auto& [k, v] : d->items()) {
      if (!k.as<script::Str>() && !k.as<GlobalVarValue>())
        raise(ExcKind::TypeError, "Expect functions to be Dict[GlobalVar, Function]");
      mod->set(key_arg(interp, k, "IRModule"), function_arg(interp, v, "IRModule"));
    }
  } else if (!functions.is_none()) {
    raise(ExcKind::TypeError, "IRModule: functions must be a dict of GlobalVar (or name) to function, got " +
                                  Interpreter::type_name(functions));
  }
  mod->attrs = attrs_arg(interp, attrs, "IRModule attrs");
  return mod;
}

TypeRef make_ir_module_type() {
  auto t = std::make_shared<TypeObject>("IRModule");
  t->set_module("tvm.ir.module");  // the Python class TVM defines it as
  t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
    static const script::Signature sig = script::Signature::parse("functions=None, attrs=None, global_infos=None");
    Args a(interp, "IRModule", sig, std::move(call));
    if (a.given(2) && !a[2].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: IRModule global_infos");
    return wrap_module(module_from_args(interp, a[0], a[1]));
  };
  // TVM's Object identity, as BaseFunc's. The editing methods rebind the value to a new
  // module node, so its hash changes with them (TVM edits the node in place).
  auto same = [](Args& a) {
    auto* other = a[1].as<IRModuleValue>();
    return other && other->module == a[0].as<IRModuleValue>()->module;
  };
  t->def("same_as", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
  t->def("__eq__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(same(a)); });
  t->def("__ne__", "self, other", [same](Interpreter&, Args& a) { return Value::boolean(!same(a)); });
  t->def("__hash__", "self", [](Interpreter&, Args& a) { return address_hash(module_value(a[0]).module.get()); });
  t->hashes_by_value = true;
  // IRModule.from_expr(func): a module holding func under its global symbol, else "main"
  // (TVM's IRModule::FromExpr; called on the class).
  t->def("from_expr", "expr, functions=None, type_defs=None", [](Interpreter& interp, Args& a) {
    ir::IRModule mod = module_from_args(interp, a[1], Value());
    auto out = std::make_shared<ir::IRModuleNode>(*mod);
    ir::BaseFunc f = function_arg(interp, a[0], "IRModule.from_expr");
    const ir::AttrValue* symbol = ir::find_attr(f->attrs, "global_symbol");
    out->set(symbol && symbol->kind == ir::AttrValue::Kind::Str ? symbol->s : "main", f);
    return wrap_module(out);
  });
  t->def(
      "script", "self, show_meta=False",
      [](Interpreter& interp, Args& a) {
        return script::make_str(ir::script(module_value(a[0]).module, print_options(interp, a)));
      },
      "script(show_meta=False): the module as TVMScript text (show_meta: constants included, so the text reads back).");
  t->def(
      "show", "self, show_meta=False",
      [](Interpreter& interp, Args& a) {
        interp.write_stdout(ir::script(module_value(a[0]).module, print_options(interp, a)));
        return Value();
      },
      "show(): print the module as TVMScript.");
  t->def("__getitem__", "self, var", [](Interpreter& interp, Args& a) -> Value {
    const ir::IRModule& mod = module_value(a[0]).module;
    std::string name = key_arg(interp, a[1], "IRModule[]");
    if (ir::BaseFunc f = mod->lookup(name)) return wrap_function(f, name);
    raise_missing(mod, name);
  });
  t->def("__setitem__", "self, var, val", [](Interpreter& interp, Args& a) {
    auto mod = editable(a[0]);
    mod->set(key_arg(interp, a[1], "IRModule[]"), function_arg(interp, a[2], "IRModule[] ="));
    module_value(a[0]).module = mod;
    return Value();
  });
  t->def("__delitem__", "self, var", [](Interpreter& interp, Args& a) {
    auto mod = editable(a[0]);
    std::string name = key_arg(interp, a[1], "del IRModule[]");
    if (!mod->remove(name)) raise_missing(module_value(a[0]).module, name);
    module_value(a[0]).module = mod;
    return Value();
  });
  t->def("__contains__", "self, var", [](Interpreter& interp, Args& a) {
    return Value::boolean(module_value(a[0]).module->lookup(key_arg(interp, a[1], "in IRModule")) != nullptr);
  });
  t->def("__len__", "self", [](Interpreter&, Args& a) {
    return Value::integer(static_cast<int64_t>(module_value(a[0]).module->functions.size()));
  });
  t->def_property(
      "functions",
      [](Interpreter&, const Value& v) { return Value(std::make_shared<FunctionMapValue>(module_value(v).module)); },
      "functions: a read-only tvm.ir.container.Map of GlobalVar to function, a view of this module object.");
  t->def(
      "functions_items", "self",
      [](Interpreter&, Args& a) {
        auto functions = module_value(a[0]).module->functions;
        std::stable_sort(functions.begin(), functions.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        std::vector<Value> items;
        for (const auto& [n, f] : functions) items.push_back(script::make_tuple({global_var(n), wrap_function(f, n)}));
        return script::make_list(std::move(items));
      },
      "functions_items(): (GlobalVar, function) pairs sorted by name.");
  t->def("get_global_var", "self, name", [](Interpreter&, Args& a) {
    const ir::IRModule& mod = module_value(a[0]).module;
    if (!mod->lookup(a.get_str(1))) raise_missing(mod, a.get_str(1));
    return global_var(a.get_str(1));
  });
  t->def(
      "get_global_vars", "self",
      [](Interpreter&, Args& a) {
        std::vector<std::string> names;
        for (const auto& [n, f] : module_value(a[0]).module->functions) names.push_back(n);
        std::sort(names.begin(), names.end());
        std::vector<Value> vars;
        for (const auto& n : names) vars.push_back(global_var(n));
        return script::make_list(std::move(vars));
      },
      "get_global_vars(): the module's GlobalVars sorted by name.");
  t->def(
      "update_func", "self, var, func",
      [](Interpreter& interp, Args& a) {
        auto mod = editable(a[0]);
        mod->set(key_arg(interp, a[1], "update_func"), function_arg(interp, a[2], "update_func"));
        module_value(a[0]).module = mod;
        return Value();
      },
      "update_func(gv, func): bind gv to func in this module.");
  t->def(
      "update", "self, other",
      [](Interpreter& interp, Args& a) {
        auto mod = editable(a[0]);
        for (const auto& [n, f] : to_module(interp, a[1], "update")->functions) mod->set(n, f);
        module_value(a[0]).module = mod;
        return Value();
      },
      "update(other): add other's functions to this module (replacing those of the same name).");
  t->def("clone", "self", [](Interpreter&, Args& a) { return wrap_module(module_value(a[0]).module); });
  t->def_property("attrs", [](Interpreter&, const Value& v) { return wrap_attrs(module_value(v).module->attrs); });
  t->def("get_attr", "self, attr_key", [](Interpreter& interp, Args& a) {
    const ir::AttrValue* v = ir::find_attr(module_value(a[0]).module->attrs, a.get_str(1));
    return v ? attr_to_value(interp, *v) : Value();
  });
  t->def(
      "with_attr", "self, attr_key, attr_value",
      [](Interpreter& interp, Args& a) {
        auto mod = editable(a[0]);
        ir::set_attr(mod->attrs, a.get_str(1), to_attr(interp, a[2]));
        return wrap_module(mod);
      },
      "with_attr(key, value): a copy of the module with the attribute set.");
  t->def("with_attrs", "self, attr_map", [](Interpreter& interp, Args& a) {
    auto mod = editable(a[0]);
    for (auto& [k, v] : to_attr_map(interp, a[1], "with_attrs")) ir::set_attr(mod->attrs, k, std::move(v));
    return wrap_module(mod);
  });
  t->def("without_attr", "self, attr_key", [](Interpreter&, Args& a) {
    auto mod = editable(a[0]);
    ir::erase_attr(mod->attrs, a.get_str(1));
    return wrap_module(mod);
  });
  return t;
}

}  // namespace

TypeRef base_func_type() {
  static TypeRef t = make_base_func_type();
  return t;
}
TypeRef prim_func_type() {
  static TypeRef t = make_prim_func_type();
  return t;
}
TypeRef ir_module_type() {
  static TypeRef t = make_ir_module_type();
  return t;
}
TypeRef global_var_type() {
  static TypeRef t = make_global_var_type();
  return t;
}

TypeObject* PrimFuncValue::type() const { return prim_func_type().get(); }
TypeObject* IRModuleValue::type() const { return ir_module_type().get(); }
TypeObject* GlobalVarValue::type() const { return global_var_type().get(); }

std::string FunctionValue::repr_hook(Interpreter&) { return ir::script(base_func(), name); }
std::string IRModuleValue::repr_hook(Interpreter&) { return ir::script(module); }

// `mod.main`: the function of that name (TVMScript's `cls.f` inside a module reads the same).
bool IRModuleValue::get_attr_hook(Interpreter&, Symbol name, Value& out) {
  if (ir::BaseFunc f = module->lookup(symbol_name(name))) {
    out = wrap_function(f, symbol_name(name));
    return true;
  }
  return false;
}

std::map<ir::FuncKind, FunctionWrapper>& function_wrappers() {
  static std::map<ir::FuncKind, FunctionWrapper> table;
  return table;
}

Value wrap_function(const ir::BaseFunc& f, const std::string& name) {
  if (ir::PrimFunc p = ir::as_prim_func(f)) return Value(std::make_shared<PrimFuncValue>(p, name));
  auto it = function_wrappers().find(f->func_kind());
  if (it == function_wrappers().end())
    raise(ExcKind::NotImplementedError, std::string("not supported yet: ") + f->type_key() + " in scripts");
  return it->second(f, name);
}

ir::IRModule to_module(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* m = v.as<IRModuleValue>()) return m->module;
  if (auto* f = v.as<FunctionValue>()) {
    auto mod = std::make_shared<ir::IRModuleNode>();
    mod->functions.emplace_back("main", f->base_func());
    return mod;
  }
  // A schedule (or anything else) that holds a module as .mod: say to pass that.
  Value held;
  bool has_mod = interp.try_get_attr(v, intern("mod"), held) && held.as<IRModuleValue>();
  raise(ExcKind::TypeError, fmt::format("{}: expected an IRModule or a PrimFunc, got {}{}", what,
                                        Interpreter::type_name(v), has_mod ? "; pass its module, .mod (sch.mod)" : ""));
}

}  // namespace tsch::bindings
