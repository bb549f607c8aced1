// tvm.tir.TensorIntrin: a tensor intrinsic's description and implementation (two PrimFuncs),
// registered by name for sch.tensorize — TensorIntrin.register(name, desc, impl,
// override=False), TensorIntrin.get(name, allow_missing=False), .desc / .impl. The registry
// itself is the schedule's (schedule/tensor_intrin.h), so a trace replays by name.
#include "bindings/tvm/tir/tensor_intrin_values.h"

#include "schedule/tensor_intrin.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "support/symbol.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

class TensorIntrinValue : public script::Object {
 public:
  explicit TensorIntrinValue(schedule::TensorIntrin i) : intrin(std::move(i)) {}
  TypeObject* type() const override { return tensor_intrin_type().get(); }
  std::string repr_hook(script::Interpreter&) override { return "<tvm.tir.TensorIntrin>"; }
  schedule::TensorIntrin intrin;
};

ir::PrimFunc prim_func_arg(const Value& v, const char* what) {
  auto* f = v.as<PrimFuncValue>();
  if (!f)
    raise(ExcKind::TypeError,
          std::string("TensorIntrin: ") + what + " must be a T.prim_func, got " + Interpreter::type_name(v));
  return f->func;
}

Value wrap_intrin(const schedule::TensorIntrin& intrin) { return Value(std::make_shared<TensorIntrinValue>(intrin)); }

TypeRef make_tensor_intrin_type() {
  auto t = std::make_shared<TypeObject>("TensorIntrin");
  t->set_module("tvm.tir");
  t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
    static const script::Signature sig = script::Signature::parse("desc, impl");
    Args a(interp, "TensorIntrin", sig, std::move(call));
    return wrap_intrin(schedule::make_tensor_intrin(prim_func_arg(a[0], "desc"), prim_func_arg(a[1], "impl")));
  };
  t->def(
      "register", "name, desc, impl, override=False",
      [](Interpreter& interp, Args& a) {
        schedule::TensorIntrin intrin =
            schedule::make_tensor_intrin(prim_func_arg(a[1], "desc"), prim_func_arg(a[2], "impl"));
        schedule::register_tensor_intrin(a.get_str(0), std::move(intrin), interp.truthy(a[3]));
        return Value();
      },
      "TensorIntrin.register(name, desc, impl, override=False): register a tensor intrinsic for sch.tensorize.");
  t->def(
      "get", "name, allow_missing=False",
      [](Interpreter& interp, Args& a) {
        const std::string& name = a.get_str(0);
        if (interp.truthy(a[1]) && !schedule::find_tensor_intrin(name)) return Value();
        return wrap_intrin(schedule::get_tensor_intrin(name));
      },
      "TensorIntrin.get(name, allow_missing=False): the registered intrinsic (None when missing and allowed).");
  t->def_property("desc", [](Interpreter&, const Value& v) {
    return Value(std::make_shared<PrimFuncValue>(v.as<TensorIntrinValue>()->intrin.desc, "desc"));
  });
  t->def_property("impl", [](Interpreter&, const Value& v) {
    return Value(std::make_shared<PrimFuncValue>(v.as<TensorIntrinValue>()->intrin.impl, "impl"));
  });
  return t;
}

}  // namespace

TypeRef tensor_intrin_type() {
  static TypeRef t = make_tensor_intrin_type();
  return t;
}

}  // namespace tsch::bindings
