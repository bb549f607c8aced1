// The `inspect` module, the part scripts use to look at classes and functions: isclass,
// isfunction, ismethod, and signature(f).parameters (names and defaults, in order).
#include <utility>

#include "bindings/python/python_modules.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"

namespace tsch::script {
namespace {

// inspect.Parameter.empty: the marker of a parameter without a default.
const TypeRef& empty_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("_empty");
    type->set_module("inspect");
    return type;
  }();
  return t;
}

class ParameterValue : public Object {
 public:
  std::string name;
  std::string prefix;            // "*" or "**" for the collecting parameters
  bool after_bare_star = false;  // the first keyword-only parameter after a bare `*`
  Value default_value = Value(empty_type());
  bool has_default = false;
  TypeObject* type() const override { return parameter_type().get(); }
  std::string repr_hook(Interpreter& interp) override { return "<Parameter \"" + text(interp) + "\">"; }
  std::string text(Interpreter& interp) const {
    return prefix + name + (has_default ? "=" + interp.repr(default_value) : "");
  }
  static const TypeRef& parameter_type() {
    static TypeRef t = [] {
      auto type = std::make_shared<TypeObject>("Parameter");
      type->set_module("inspect");
      type->dict().set(intern("empty"), Value(empty_type()));
      type->def_property("name", [](Interpreter&, const Value& v) { return make_str(v.as<ParameterValue>()->name); });
      type->def_property("default", [](Interpreter&, const Value& v) { return v.as<ParameterValue>()->default_value; });
      return type;
    }();
    return t;
  }
};

class SignatureValue : public Object {
 public:
  std::vector<std::shared_ptr<ParameterValue>> params;
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto type = std::make_shared<TypeObject>("Signature");
      type->set_module("inspect");
      type->def_property("parameters", [](Interpreter& interp, const Value& v) {
        // Python's is a read-only ordered mapping; a dict in the same order serves scripts.
        auto d = std::make_shared<Dict>();
        for (const auto& p : v.as<SignatureValue>()->params) d->set(interp, make_str(p->name), Value(p));
        return Value(d);
      });
      type->def("__str__", "self",
                [](Interpreter& interp, Args& a) { return make_str(a[0].as<SignatureValue>()->text(interp)); });
      return type;
    }();
    return t.get();
  }
  std::string repr_hook(Interpreter& interp) override { return "<Signature " + text(interp) + ">"; }
  std::string text(Interpreter& interp) const {
    std::string out = "(";
    for (size_t i = 0; i < params.size(); ++i) {
      out += (i ? ", " : "") + std::string(params[i]->after_bare_star ? "*, " : "") + params[i]->text(interp);
    }
    return out + ")";
  }
};

std::shared_ptr<SignatureValue> signature_of(const Value& f) {
  auto sig = std::make_shared<SignatureValue>();
  if (auto* fn = f.as<Function>()) {
    bool bare_star = false;
    for (size_t i = 0; i < fn->params->size(); ++i) {
      const ast::Param& p = (*fn->params)[i];
      if (p.kind == ast::Param::Kind::KwOnlyMarker) bare_star = true;
      if (p.kind == ast::Param::Kind::KwOnlyMarker || p.kind == ast::Param::Kind::PosOnlyMarker) continue;
      auto param = std::make_shared<ParameterValue>();
      param->after_bare_star = std::exchange(bare_star, false);
      param->name = symbol_name(p.name);
      param->prefix = p.kind == ast::Param::Kind::VarArgs ? "*" : p.kind == ast::Param::Kind::VarKw ? "**" : "";
      if (fn->has_default[i]) {
        param->has_default = true;
        param->default_value = fn->defaults[i];
      }
      sig->params.push_back(param);
    }
    return sig;
  }
  if (auto* native = f.as<NativeFunction>()) {
    bool star_seen = false;
    for (const Parameter& p : native->signature.params()) {
      auto param = std::make_shared<ParameterValue>();
      param->after_bare_star = p.kind == Parameter::Kind::KeywordOnly && !star_seen;
      star_seen = star_seen || p.kind == Parameter::Kind::VarArgs || p.kind == Parameter::Kind::KeywordOnly;
      param->name = p.name;
      param->prefix = p.kind == Parameter::Kind::VarArgs ? "*" : p.kind == Parameter::Kind::VarKeywords ? "**" : "";
      if (p.has_default) {
        param->has_default = true;
        param->default_value = p.default_value;
      }
      sig->params.push_back(param);
    }
    return sig;
  }
  if (auto* bound = f.as<BoundMethod>()) {
    // The bound first parameter is not part of the method's signature.
    auto inner = signature_of(bound->func);
    if (inner && !inner->params.empty() && inner->params[0]->prefix.empty()) inner->params.erase(inner->params.begin());
    return inner;
  }
  if (auto* cm = f.as<ClassMethod>()) return signature_of(cm->func);
  if (auto* sm = f.as<StaticMethod>()) return signature_of(sm->func);
  return nullptr;
}

}  // namespace

void register_inspect_module() {
  ModuleLoader::register_builtin("inspect", [](Interpreter&, Module& m) {
    Namespace& ns = *m.globals;
    ns.set(intern("Parameter"), Value(ParameterValue::parameter_type()));
    def_function(
        ns, "isclass", "object", [](Interpreter&, Args& a) { return Value::boolean(a[0].as<TypeObject>() != nullptr); },
        "isclass(object): True for classes.");
    def_function(
        ns, "isfunction", "object",
        [](Interpreter&, Args& a) { return Value::boolean(a[0].as<Function>() != nullptr); },
        "isfunction(object): True for functions defined in scripts (def or lambda).");
    def_function(
        ns, "ismethod", "object",
        [](Interpreter&, Args& a) {
          auto* bound = a[0].as<BoundMethod>();
          return Value::boolean(bound && bound->func.as<Function>());
        },
        "ismethod(object): True for methods of script classes bound to an object or class.");
    def_function(
        ns, "signature", "obj",
        [](Interpreter& interp, Args& a) {
          auto sig = signature_of(a[0]);
          if (!sig) {
            if (!Interpreter::is_callable(a[0]))
              raise(ExcKind::TypeError, interp.repr(a[0]) + " is not a callable object");
            raise(ExcKind::ValueError, "not supported yet: inspect.signature of " + interp.repr(a[0]));
          }
          return Value(sig);
        },
        "signature(obj): the parameters of a function or method, in order (.parameters: name -> Parameter).");
  });
}

}  // namespace tsch::script
