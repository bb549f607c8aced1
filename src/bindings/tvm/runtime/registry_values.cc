#include "bindings/tvm/runtime/registry_values.h"

#include <fmt/format.h>

#include <thread>

#include "numpy/ndarray_value.h"
#include "runtime/registry.h"
#include "runtime/vm/vm.h"
#include "script/exceptions.h"
#include "script/signature.h"
#include "script/types.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

class FunctionObjValue : public script::Object {
 public:
  explicit FunctionObjValue(runtime::PackedFunc f) : func(std::move(f)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    return "<tvm.runtime.Function " + (func->name().empty() ? "(anonymous)" : func->name()) + ">";
  }
  runtime::PackedFunc func;
};

Value call_packed(Interpreter& interp, const runtime::PackedFunc& f, const std::vector<Value>& args) {
  std::vector<runtime::Any> in;
  in.reserve(args.size());
  for (const auto& a : args) in.push_back(value_to_any(interp, a));
  runtime::Any out = guard_core([&] { return (*f)(in); });
  return any_to_value(interp, out);
}

TypeRef make_function_type() {
  auto t = std::make_shared<TypeObject>("Function");
  t->set_module("tvm.runtime");
  t->def("__call__", "self, *args", [](Interpreter& interp, Args& a) {
    return call_packed(interp, a[0].as<FunctionObjValue>()->func, a.varargs());
  });
  t->def_property(
      "name", [](Interpreter&, const Value& v) { return script::make_str(v.as<FunctionObjValue>()->func->name()); });
  return t;
}

const TypeRef& function_type() {
  static TypeRef t = make_function_type();
  return t;
}

TypeObject* FunctionObjValue::type() const { return function_type().get(); }

Value register_now(Interpreter& interp, const std::string& name, const Value& f, bool override) {
  runtime::PackedFunc packed =
      f.as<FunctionObjValue>() ? f.as<FunctionObjValue>()->func : script_packed_func(interp, f, name);
  guard_core([&] {
    runtime::register_global_func(name, packed, override);
    return 0;
  });
  return wrap_packed_func(packed);
}

}  // namespace

runtime::Any value_to_any(Interpreter& interp, const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None:
      return runtime::Any();
    case Value::Tag::Bool:
      return runtime::Any::of_bool(v.as_bool());
    case Value::Tag::Int:
      return runtime::Any::of_int(v.as_int());
    case Value::Tag::Float:
      return runtime::Any::of_float(v.as_float());
    case Value::Tag::Object:
      break;
  }
  if (auto* s = v.as<script::Str>()) return runtime::Any::of_str(s->value);
  if (auto* arr = v.as<ArrayValue>()) return runtime::Any::of_ndarray(arr->array);
  if (auto* f = v.as<FunctionObjValue>()) return runtime::Any::of_function(f->func);
  if (v.as<script::Function>() || v.as<script::NativeFunction>() || v.as<script::BoundMethod>() || v.as<TypeObject>()) {
    return runtime::Any::of_function(script_packed_func(interp, v, ""));
  }
  // Anything else passes through C++ untouched and comes back as itself.
  return runtime::Any::of_object(std::make_shared<Value>(v), Interpreter::type_name(v));
}

Value any_to_value(Interpreter& interp, const runtime::Any& a) {
  using K = runtime::Any::Kind;
  switch (a.kind()) {
    case K::None:
      return Value();
    case K::Bool:
      return Value::boolean(a.as_bool());
    case K::Int:
      return Value::integer(a.as_int());
    case K::Float:
      return Value::real(a.as_float());
    case K::Str:
      return script::make_str(a.as_str());
    case K::NDArray:
      return wrap_array(a.as_ndarray(), true);
    case K::Function:
      return wrap_packed_func(a.as_function());
    case K::Object: {
      // Objects the runtime itself makes (VM storage, the VM) are not script values.
      if (a.is_object_of(runtime::vm::kStorageTypeName) || a.is_object_of(runtime::vm::kVirtualMachineTypeName)) {
        raise(ExcKind::TypeError, "a " + a.type_name() + " from the VM cannot be used in a script");
      }
      auto* held = static_cast<const Value*>(a.as_object().get());
      if (held) return *held;
      raise(ExcKind::TypeError, "a " + a.type_name() + " from C++ cannot be used in a script");
    }
    case K::Tuple: {
      std::vector<Value> items;
      for (const auto& item : a.as_tuple()) items.push_back(any_to_value(interp, item));
      return script::make_tuple(std::move(items));
    }
    case K::Shape: {
      std::vector<Value> dims;
      for (int64_t d : a.as_shape()) dims.push_back(Value::integer(d));
      return script::make_tuple(std::move(dims));
    }
  }
  return Value();
}

runtime::PackedFunc script_packed_func(Interpreter& interp, const Value& fn, const std::string& name) {
  std::weak_ptr<const void> alive = interp.lifetime();
  Interpreter* ip = &interp;
  std::thread::id owner = std::this_thread::get_id();
  return runtime::make_packed_func(
      [alive, ip, fn, name, owner](const std::vector<runtime::Any>& args) {
        std::string what = name.empty() ? "a script function" : "the script function `" + name + "`";
        TSCH_USER_ASSERT(!alive.expired(), RuntimeError)
            << what << " cannot be called: the script that defined it has ended";
        // The interpreter runs on one thread: a kernel's parallel loop must not call back into it.
        TSCH_USER_ASSERT(std::this_thread::get_id() == owner, RuntimeError)
            << what << " cannot be called from another thread (a packed call in a parallel loop)";
        std::vector<Value> in;
        in.reserve(args.size());
        for (const auto& a : args) in.push_back(any_to_value(*ip, a));
        return value_to_any(*ip, ip->call(fn, std::move(in)));
      },
      name);
}

Value wrap_packed_func(runtime::PackedFunc f) { return Value(std::make_shared<FunctionObjValue>(std::move(f))); }

void install_function_type(script::Namespace& runtime_ns) {
  runtime_ns.set(intern("Function"), Value(function_type()));
  runtime_ns.set(intern("PackedFunc"), Value(function_type()));
}

void install_registry(script::Namespace& ns) {
  auto register_func = [](Interpreter& interp, Args& a) -> Value {
    Value name_or_func = a[0];
    Value f = a[1];
    bool override = interp.truthy(a[2]);
    if (!name_or_func.as<script::Str>() && Interpreter::is_callable(name_or_func)) {
      f = name_or_func;
      name_or_func = interp.get_attr(f, intern("__name__"));
    }
    auto* name = name_or_func.as<script::Str>();
    if (!name) raise(ExcKind::ValueError, "expect string function name");
    if (!f.is_none()) return register_now(interp, name->value, f, override);
    // The decorator form: @tvm.register_func("env.linear", override=True).
    std::string n = name->value;
    auto deco = std::make_shared<script::Namespace>();
    script::def_function(*deco, "register", "f", [n, override](Interpreter& interp, Args& b) {
      return register_now(interp, n, b[0], override);
    });
    return *deco->find(intern("register"));
  };
  const char* doc =
      "register_func(name, f=None, override=False): put f in the global function registry (decorator form too).";
  script::def_function(ns, "register_func", "func_name, f=None, override=False", register_func, doc);
  script::def_function(ns, "register_global_func", "func_name, f=None, override=False", register_func, doc);
  script::def_function(
      ns, "get_global_func", "name, allow_missing=False",
      [](Interpreter& interp, Args& a) -> Value {
        const std::string& name = a.get_str(0);
        if (interp.truthy(a[1])) {
          runtime::PackedFunc f = runtime::find_global_func(name);
          return f ? wrap_packed_func(f) : Value();
        }
        return wrap_packed_func(guard_core([&] { return runtime::get_global_func(name); }));
      },
      "get_global_func(name, allow_missing=False): the registered function (None when missing and allowed).");
  script::def_function(ns, "list_global_func_names", "", [](Interpreter&, Args&) {
    std::vector<Value> names;
    for (const auto& n : runtime::list_global_func_names()) names.push_back(script::make_str(n));
    return script::make_list(std::move(names));
  });
}

}  // namespace tsch::bindings
