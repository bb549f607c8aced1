#include "bindings/tvm/target/target_values.h"

#include <optional>

#include "bindings/tvm/runtime/json_values.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/cuda/cuda_driver.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "support/error.h"
#include "target/target_kind.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// A config dict's values as JSON; Target values (a host) become their exported config.
nlohmann::json config_of(Interpreter& interp, const Value& v) {
  if (auto* t = v.as<TargetValue>()) return t->target->export_config();
  if (auto* d = v.as<script::Dict>()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, x] : d->items()) {
      auto* key = k.as<script::Str>();
      if (!key)
        raise(ExcKind::ValueError,
              "Target object requires key of dict to be str, but get: " + Interpreter::type_name(k));
      out[key->value] = config_of(interp, x);
    }
    return out;
  }
  return value_to_json(interp, v);
}

const target::Target& target_of(const Value& v) { return v.as<TargetValue>()->target; }

Value wrap(target::Target t) { return t ? Value(std::make_shared<TargetValue>(std::move(t))) : Value(); }

Value attr_or(const Value& self, const std::string& name, Value otherwise, Interpreter& interp) {
  const auto& attrs = target_of(self)->attrs;
  auto it = attrs.find(name);
  return it == attrs.end() ? otherwise : json_to_value(interp, *it);
}

class TargetKindValue : public script::Object {
 public:
  explicit TargetKindValue(const target::TargetKind* k) : kind(k) {}
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto t = std::make_shared<TypeObject>("TargetKind");
      t->set_module("tvm.target");
      t->def_property(
          "name", [](Interpreter&, const Value& v) { return script::make_str(v.as<TargetKindValue>()->kind->name); });
      t->def_property("default_keys", [](Interpreter&, const Value& v) {
        std::vector<Value> keys;
        for (const auto& k : v.as<TargetKindValue>()->kind->default_keys) keys.push_back(script::make_str(k));
        return script::make_list(std::move(keys));
      });
      t->def_property("options", [](Interpreter& interp, const Value& v) {
        auto d = std::make_shared<script::Dict>();
        for (const auto& [name, type] : v.as<TargetKindValue>()->kind->options)
          d->set(interp, script::make_str(name), script::make_str(target::option_type_name(type)));
        return Value(d);
      });
      return t;
    }();
    return t.get();
  }
  std::string repr_hook(Interpreter&) override { return kind->name; }
  const target::TargetKind* kind;
};

}  // namespace

target::Target target_arg(Interpreter& interp, const Value& v, const std::string& fallback) {
  if (v.is_none()) return fallback.empty() ? nullptr : guard_core([&] { return target::parse_target(fallback); });
  if (auto* t = v.as<TargetValue>()) return t->target;
  if (auto* s = v.as<script::Str>()) return guard_core([&] { return target::parse_target(s->value); });
  if (v.as<script::Dict>()) return guard_core([&] { return target::target_from_config(config_of(interp, v)); });
  raise(ExcKind::ValueError, "target has to be a string or dictionary. instead get " + Interpreter::type_name(v));
}

TypeRef target_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Target");
    t->set_module("tvm.target");
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("target, host=None");
      Args a(interp, "Target", sig, std::move(call));
      target::Target tgt = target_arg(interp, a[0]);
      if (a.given(1)) tgt = target::with_host(tgt, target_arg(interp, a[1]));
      return wrap(tgt);
    };
    t->def("__str__", "self", [](Interpreter&, Args& a) { return script::make_str(target_of(a[0])->str()); });
    t->def_property("kind", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<TargetKindValue>(target_of(v)->kind));
    });
    t->def_property("host", [](Interpreter&, const Value& v) { return wrap(target_of(v)->host); });
    t->def_property("tag", [](Interpreter&, const Value& v) { return script::make_str(target_of(v)->tag); });
    t->def_property("keys", [](Interpreter&, const Value& v) {
      std::vector<Value> keys;
      for (const auto& k : target_of(v)->keys) keys.push_back(script::make_str(k));
      return script::make_list(std::move(keys));
    });
    t->def_property("attrs",
                    [](Interpreter& interp, const Value& v) { return json_to_value(interp, target_of(v)->attrs); });
    // TVM's shortcuts for common attributes, with its fallbacks.
    for (const auto& [name, fallback] :
         std::vector<std::pair<std::string, Value>>{{"arch", script::make_str("")},
                                                    {"mcpu", script::make_str("")},
                                                    {"model", script::make_str("unknown")},
                                                    {"device_name", script::make_str("")},
                                                    {"mattr", script::make_list()},
                                                    {"libs", script::make_list()},
                                                    {"l2_cache_size_bytes", Value::integer(0)},
                                                    {"max_function_args", Value::integer(0)}}) {
      std::string key = name == "device_name" ? "device" : name;
      Value otherwise = fallback;
      t->def_property(
          name, [key, otherwise](Interpreter& interp, const Value& v) { return attr_or(v, key, otherwise, interp); });
    }
    for (const std::string name : {"max_num_threads", "thread_warp_size", "max_shared_memory_per_block",
                                   "max_block_size_x", "max_block_size_y"}) {
      t->def_property(name, [name](Interpreter& interp, const Value& v) {
        Value x = attr_or(v, name, Value(), interp);
        if (x.is_none()) raise(ExcKind::KeyError, "'" + name + "'");
        return x;
      });
    }
    t->def(
        "export", "self",
        [](Interpreter& interp, Args& a) { return json_to_value(interp, target_of(a[0])->export_config()); },
        "export() -> dict: the target's config (kind, tag, keys, attributes, host).");
    t->def("with_host", "self, host=None", [](Interpreter& interp, Args& a) {
      return wrap(a.given(1) ? target::with_host(target_of(a[0]), target_arg(interp, a[1]))
                             : target::without_host(target_of(a[0])));
    });
    t->def("without_host", "self", [](Interpreter&, Args& a) { return wrap(target::without_host(target_of(a[0]))); });
    t->def("get_target_device_type", "self",
           [](Interpreter&, Args& a) { return Value::integer(target_of(a[0])->device_type()); });
    t->def("__enter__", "self", [](Interpreter&, Args& a) {
      target::enter_target_scope(target_of(a[0]));
      return a[0];
    });
    t->def("__exit__", "self, ptype, value, trace", [](Interpreter&, Args& a) {
      target::exit_target_scope(target_of(a[0]));
      return Value();
    });
    // Static methods (called on the class).
    t->def(
        "current", "allow_none=True",
        [](Interpreter&, Args& a) {
          target::Target cur = target::current_target();
          if (!cur && !a.get_bool(0))
            raise(ExcKind::ValueError, "Target context required. Please set it by constructing a TargetContext");
          return wrap(cur);
        },
        "Target.current(allow_none=True): the target of the innermost `with target:` block, or None.");
    t->def("list_kinds", "", [](Interpreter&, Args&) {
      std::vector<Value> names;
      for (const auto& k : target::TargetKind::list_kinds()) names.push_back(script::make_str(k));
      return script::make_list(std::move(names));
    });
    t->def("canon_target", "target", [](Interpreter& interp, Args& a) { return wrap(target_arg(interp, a[0])); });
    return t;
  }();
  return t;
}

TypeObject* TargetValue::type() const { return target_type().get(); }

void register_tvm_target_module() {
  // A CUDA target without -arch takes the architecture of device 0 where there is one.
  target::set_device_query([](int device_type, const std::string& attr) -> std::optional<std::string> {
    if (device_type != 2 || attr != "compute_version" || runtime::cuda_device_count() == 0) return std::nullopt;
    try {
      return runtime::cuda::compute_version(0);
    } catch (const UserError&) {
      return std::nullopt;
    }
  });
  script::ModuleLoader::register_builtin("tvm.target", [](Interpreter&, script::Module& m) {
    m.globals->set(intern("Target"), Value(target_type()));
    script::def_function(
        *m.globals, "cuda", "model='unknown', arch=None, options=None",
        [](Interpreter& interp, Args& a) {
          std::string text = "cuda -model=" + a.get_str(0);
          if (a.given(1)) text += " -arch=" + a.get_str(1);
          if (auto* s = a[2].as<script::Str>())
            text += " " + s->value;
          else if (a.given(2))
            for (const Value& o : interp.to_vector(a[2])) text += " " + interp.str(o);
          return wrap(target_arg(interp, script::make_str(text)));
        },
        "cuda(model='unknown', arch=None, options=None): a CUDA target (Target(\"cuda -model=... -arch=...\")).");
    script::def_function(*m.globals, "list_tags", "", [](Interpreter&, Args&) {
      std::vector<Value> names;
      for (const auto& k : target::list_tags()) names.push_back(script::make_str(k));
      return script::make_list(std::move(names));
    });
  });
}

}  // namespace tsch::bindings
