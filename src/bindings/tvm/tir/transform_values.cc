#include "bindings/tvm/tir/transform_values.h"

#include "bindings/tvm/runtime/json_values.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "support/error.h"
#include "transform/pipeline.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;
using transform::Pass;
using transform::PassContext;
using transform::PassInfo;

namespace {

class PassValue : public script::Object {
 public:
  explicit PassValue(Pass p) : pass(std::move(p)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    return std::string(pass.is_sequential() ? "Run Sequential pass: " : "Run Module pass: ") + pass.name() +
           " at the optimization level " + std::to_string(pass.info().opt_level);
  }
  Pass pass;
};

class PassInfoValue : public script::Object {
 public:
  explicit PassInfoValue(PassInfo i) : info(std::move(i)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    std::string required;
    for (const auto& r : info.required) required += (required.empty() ? "" : ", ") + r;
    return "The meta data of the pass - pass name: " + info.name + ", opt_level: " + std::to_string(info.opt_level) +
           ", required passes: [" + required + "]\n";
  }
  PassInfo info;
};

class PassContextValue : public script::Object {
 public:
  explicit PassContextValue(std::shared_ptr<const PassContext> c) : ctx(std::move(c)) {}
  TypeObject* type() const override;
  std::shared_ptr<const PassContext> ctx;
};

Value wrap_pass(Pass p) { return Value(std::make_shared<PassValue>(std::move(p))); }

std::vector<std::string> str_list(Interpreter& interp, const Value& v) {
  std::vector<std::string> out;
  if (v.is_none()) return out;
  for (const Value& x : interp.to_vector(v)) {
    auto* s = x.as<script::Str>();
    if (!s)
      raise(ExcKind::TypeError,
            "expected a list of pass names (str), got an item of type " + Interpreter::type_name(x));
    out.push_back(s->value);
  }
  return out;
}

ir::IRModule module_of(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* m = v.as<IRModuleValue>()) return m->module;
  raise(ExcKind::TypeError, what + ": expected an IRModule, got " + Interpreter::type_name(v) +
                                " (wrap a PrimFunc with tvm.IRModule({\"main\": f}))");
}

Value context_value(const PassContext& ctx) {
  return Value(std::make_shared<PassContextValue>(std::make_shared<PassContext>(ctx)));
}

std::string callable_name(Interpreter& interp, const Value& f) {
  if (auto* t = f.as<TypeObject>()) return t->name();
  if (auto* fn = f.as<script::Function>()) return fn->name;
  return Interpreter::type_name(f);
}

// A pass written in the script: `fn(mod, ctx) -> mod` (module pass) or `fn(func, mod, ctx) ->
// func` (prim_func pass); a class instance's transform_module / transform_function.
Pass script_pass(Interpreter& interp, Value fn, PassInfo info, bool is_prim_func_pass) {
  if (!is_prim_func_pass) {
    return Pass(std::move(info), [&interp, fn](const ir::IRModule& mod, const PassContext& ctx) {
      Value out = interp.call(fn, std::vector<Value>{Value(std::make_shared<IRModuleValue>(mod)), context_value(ctx)});
      return module_of(interp, out, "a module pass's result");
    });
  }
  return transform::prim_func_pass(std::move(info), [&interp, fn](const ir::PrimFunc& f, const ir::IRModule& mod,
                                                                  const PassContext& ctx) {
    std::string name = "main";
    for (const auto& [n, g] : mod->prim_funcs())
      if (g == f) name = n;
    Value out = interp.call(fn, std::vector<Value>{Value(std::make_shared<PrimFuncValue>(f, name)),
                                                   Value(std::make_shared<IRModuleValue>(mod)), context_value(ctx)});
    auto* g = out.as<PrimFuncValue>();
    if (!g) raise(ExcKind::TypeError, "a prim_func pass must return a PrimFunc, got " + Interpreter::type_name(out));
    return g->func;
  });
}

// module_pass / prim_func_pass: a pass from a function or, for a class, a callable that makes
// the pass from an instance; without pass_func, the decorator.
Value make_decorated_pass(Interpreter& interp, Args& a, bool is_prim_func_pass) {
  const char* what = is_prim_func_pass ? "prim_func_pass" : "module_pass";
  if (a[1].is_none())
    raise(ExcKind::ValueError,
          std::string("Please provide opt_level for the ") + (is_prim_func_pass ? "prim_func" : "module") + " pass.");
  int64_t opt_level = a.get_int(1);
  Value name = a[2];
  std::vector<std::string> required = str_list(interp, a[3]);
  auto create = [&interp, opt_level, name, required, is_prim_func_pass](const Value& f) -> Value {
    PassInfo info{name.is_none() ? callable_name(interp, f) : interp.str(name), static_cast<int>(opt_level), required};
    if (f.as<TypeObject>()) {
      const char* method = is_prim_func_pass ? "transform_function" : "transform_module";
      return Value(std::make_shared<script::NativeFunction>(
          info.name, script::Signature::parse("*args, **kwargs"),
          [f, info, method, is_prim_func_pass](Interpreter& interp, Args& call) {
            script::CallArgs args;
            args.positional = call.varargs();
            args.keywords = call.kwargs();
            Value instance = interp.call(f, std::move(args));
            Value bound = interp.get_attr(instance, intern(method));
            return wrap_pass(script_pass(interp, bound, info, is_prim_func_pass));
          }));
    }
    return wrap_pass(script_pass(interp, f, info, is_prim_func_pass));
  };
  if (!a[0].is_none()) return create(a[0]);
  return Value(std::make_shared<script::NativeFunction>(what, script::Signature::parse("pass_func"),
                                                        [create](Interpreter&, Args& b) { return create(b[0]); }));
}

}  // namespace

TypeObject* PassValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Pass");
    t->set_module("tvm.transform");
    t->def(
        "__call__", "self, mod",
        [](Interpreter& interp, Args& a) {
          const Pass& p = a[0].as<PassValue>()->pass;
          ir::IRModule mod = module_of(interp, a[1], p.name());
          return Value(std::make_shared<IRModuleValue>(guard_core([&] { return p(mod); })));
        },
        "pass(mod) -> IRModule: run the pass under the current PassContext.");
    t->def_property("info", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<PassInfoValue>(v.as<PassValue>()->pass.info()));
    });
    return t;
  }();
  return t.get();
}

TypeObject* PassInfoValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("PassInfo");
    t->set_module("tvm.transform");
    t->def_property("name",
                    [](Interpreter&, const Value& v) { return script::make_str(v.as<PassInfoValue>()->info.name); });
    t->def_property("opt_level",
                    [](Interpreter&, const Value& v) { return Value::integer(v.as<PassInfoValue>()->info.opt_level); });
    t->def_property("required", [](Interpreter&, const Value& v) {
      std::vector<Value> names;
      for (const auto& r : v.as<PassInfoValue>()->info.required) names.push_back(script::make_str(r));
      return script::make_list(std::move(names));
    });
    return t;
  }();
  return t.get();
}

namespace {

// tir.add_lower_pass: [(phase, pass), ...] with phase >= 0 (3 and above: the last phase).
std::vector<transform::PhasePass> phase_passes(Interpreter& interp, const Value& v) {
  const char* expected = "PassContext config 'tir.add_lower_pass' expects a list of (phase, pass) pairs";
  if (!v.as<script::List>() && !v.as<script::Tuple>())
    raise(ExcKind::TypeError, std::string(expected) + ", got " + Interpreter::type_name(v));
  std::vector<transform::PhasePass> out;
  for (const Value& item : interp.to_vector(v)) {
    std::vector<Value> pair =
        item.as<script::List>() || item.as<script::Tuple>() ? interp.to_vector(item) : std::vector<Value>{};
    auto* pass = pair.size() == 2 ? pair[1].as<PassValue>() : nullptr;
    if (!pass || !pair[0].is_int()) raise(ExcKind::TypeError, std::string(expected) + ", got " + interp.repr(item));
    if (pair[0].as_int() < 0)
      raise(ExcKind::ValueError,
            "tir.add_lower_pass: phase must be at least 0, got " + std::to_string(pair[0].as_int()));
    out.push_back({static_cast<int>(std::min<int64_t>(pair[0].as_int(), 3)), std::make_shared<const Pass>(pass->pass)});
  }
  return out;
}

TypeRef pass_context_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("PassContext");
    t->set_module("tvm.transform");
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse(
          "opt_level=2, required_pass=None, disabled_pass=None, instruments=None, config=None");
      Args a(interp, "PassContext", sig, std::move(call));
      auto ctx = std::make_shared<PassContext>();
      ctx->opt_level = static_cast<int>(a.get_int(0));
      ctx->required_pass = str_list(interp, a[1]);
      ctx->disabled_pass = str_list(interp, a[2]);
      if (!a[4].is_none()) {
        auto* config = a[4].as<script::Dict>();
        if (!config)
          raise(ExcKind::TypeError, "PassContext: config must be a dict, got " + Interpreter::type_name(a[4]));
        for (const auto& [k, v] : config->items()) {
          auto* key = k.as<script::Str>();
          if (!key) raise(ExcKind::TypeError, "PassContext: config keys must be str, got " + Interpreter::type_name(k));
          guard_core([&] {
            PassContext::validate_config_key(key->value);
            return 0;
          });
          if (key->value == "tir.add_lower_pass") {
            ctx->lower_passes = phase_passes(interp, v);
            continue;
          }
          ctx->config[key->value] = value_to_json(interp, v);
        }
        guard_core([&] {
          PassContext::validate_config(ctx->config);
          return 0;
        });
      }
      // Instruments written in the script: objects with run_before_pass / run_after_pass.
      if (!a[3].is_none()) {
        for (const Value& inst : interp.to_vector(a[3])) {
          transform::PassInstrument pi;
          pi.name = Interpreter::type_name(inst);
          for (bool before : {true, false}) {
            Symbol method = intern(before ? "run_before_pass" : "run_after_pass");
            if (!inst.as<script::Instance>() || !inst.as<script::Instance>()->cls()->lookup(method)) continue;
            auto hook = [&interp, inst, method](const ir::IRModule& mod, const PassInfo& info) {
              interp.call(interp.get_attr(inst, method),
                          std::vector<Value>{Value(std::make_shared<IRModuleValue>(mod)),
                                             Value(std::make_shared<PassInfoValue>(info))});
            };
            (before ? pi.run_before_pass : pi.run_after_pass) = hook;
          }
          ctx->instruments.push_back(std::move(pi));
        }
      }
      return Value(std::make_shared<PassContextValue>(ctx));
    };
    auto ctx_of = [](const Value& v) -> const PassContext& { return *v.as<PassContextValue>()->ctx; };
    t->def_property("opt_level",
                    [ctx_of](Interpreter&, const Value& v) { return Value::integer(ctx_of(v).opt_level); });
    t->def_property("config",
                    [ctx_of](Interpreter& interp, const Value& v) { return json_to_value(interp, ctx_of(v).config); });
    t->def_property("required_pass", [ctx_of](Interpreter&, const Value& v) {
      std::vector<Value> names;
      for (const auto& r : ctx_of(v).required_pass) names.push_back(script::make_str(r));
      return script::make_list(std::move(names));
    });
    t->def_property("disabled_pass", [ctx_of](Interpreter&, const Value& v) {
      std::vector<Value> names;
      for (const auto& r : ctx_of(v).disabled_pass) names.push_back(script::make_str(r));
      return script::make_list(std::move(names));
    });
    t->def("__enter__", "self", [](Interpreter&, Args& a) {
      PassContext::enter(a[0].as<PassContextValue>()->ctx);
      return a[0];
    });
    t->def("__exit__", "self, ptype, value, trace", [](Interpreter&, Args&) {
      PassContext::exit();
      return Value();
    });
    // Static methods (called on the class).
    t->def(
        "current", "", [](Interpreter&, Args&) { return context_value(PassContext::current()); },
        "PassContext.current(): the context of the innermost `with PassContext(...)` block, or the default one.");
    t->def("list_configs", "", [](Interpreter& interp, Args&) {
      auto d = std::make_shared<script::Dict>();
      for (const std::string& key : PassContext::list_configs())
        d->set(interp, script::make_str(key), script::make_str("bool"));
      return Value(d);
    });
    return t;
  }();
  return t;
}

}  // namespace

TypeObject* PassContextValue::type() const { return pass_context_type().get(); }

namespace {

void build_transform(Interpreter&, script::Module& m) {
  script::Namespace& ns = *m.globals;
  ns.set(intern("PassContext"), Value(pass_context_type()));
  // The Pass class itself, for isinstance(x, tvm.ir.transform.Pass).
  Value probe = wrap_pass(Pass({"identity", 0, {}}, [](const ir::IRModule& mod, const PassContext&) { return mod; }));
  ns.set(intern("Pass"), Value(probe.type()->shared_from_this()));
  script::def_function(
      ns, "Sequential", "passes=None, opt_level=0, name='sequential', required=None, traceable=False",
      [](Interpreter& interp, Args& a) {
        std::vector<Pass> passes;
        if (!a[0].is_none()) {
          for (const Value& p : interp.to_vector(a[0])) {
            auto* pv = p.as<PassValue>();
            if (!pv) raise(ExcKind::TypeError, "Sequential: expected passes, got " + Interpreter::type_name(p));
            passes.push_back(pv->pass);
          }
        }
        return wrap_pass(transform::sequential(std::move(passes),
                                               {a.get_str(2), static_cast<int>(a.get_int(1)), str_list(interp, a[3])}));
      },
      "Sequential(passes, opt_level=0, name='sequential'): the passes in order, each when the PassContext enables it.");
  script::def_function(
      ns, "module_pass", "pass_func=None, opt_level=None, name=None, required=None, traceable=False",
      [](Interpreter& interp, Args& a) { return make_decorated_pass(interp, a, false); },
      "@module_pass(opt_level=0): a pass from fn(mod, ctx) -> mod, or from a class with transform_module(self, mod, "
      "ctx).");
  script::def_function(
      ns, "PrintIR", "header='', show_meta_data=False",
      [](Interpreter& interp, Args& a) {
        std::string header = a.get_str(0);
        return wrap_pass(Pass({"PrintIR", 0, {}}, [&interp, header](const ir::IRModule& mod, const PassContext&) {
          interp.write_stdout(header + "\n" + ir::script(mod));
          return mod;
        }));
      },
      "PrintIR(header=''): a pass that prints the module and returns it unchanged.");
}

void build_tir_transform(Interpreter&, script::Module& m) {
  script::Namespace& ns = *m.globals;
  for (const auto& [name, make] : transform::named_passes()) {
    auto factory = make;
    script::def_function(ns, name, "", [factory](Interpreter&, Args&) { return wrap_pass(factory()); });
  }
  script::def_function(
      ns, "prim_func_pass", "pass_func=None, opt_level=None, name=None, required=None, traceable=False",
      [](Interpreter& interp, Args& a) { return make_decorated_pass(interp, a, true); },
      "@prim_func_pass(opt_level=0): a pass from fn(func, mod, ctx) -> func applied to each PrimFunc, or from a class "
      "with "
      "transform_function(self, func, mod, ctx).");
}

}  // namespace

Value wrap_transform_pass(transform::Pass p) { return wrap_pass(std::move(p)); }

void register_tvm_transform_modules() {
  script::ModuleLoader::register_builtin("tvm.transform", build_transform);
  script::ModuleLoader::register_builtin("tvm.ir.transform", build_transform);
  script::ModuleLoader::register_builtin("tvm.tir.transform", build_tir_transform);
}

}  // namespace tsch::bindings
