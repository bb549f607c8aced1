#include "values/ir_type_values.h"

#include <fmt/format.h>

#include <functional>

#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/object.h"
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

// tvm.ir.PrimType(dtype): printed as TVMScript names it (`T.float32`).
class PrimTypeValue : public script::Object {
 public:
  explicit PrimTypeValue(ir::DataType t) : dtype(t) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "T." + dtype.to_string(); }
  ir::DataType dtype;
};

// tvm.ir.PointerType(element_type, storage_scope): `T.handle("float32", "global")`.
class PointerTypeValue : public script::Object {
 public:
  explicit PointerTypeValue(ir::PointerType t) : pointer(std::move(t)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return ir::script(pointer); }
  ir::PointerType pointer;
};

// TVM compares types by identity; a Var hands out a new object for its annotation each time,
// so tsch's compare by value (equal types are interchangeable: they hold no other state).
void def_value_equality(TypeObject& t, std::function<bool(const Value&, const Value&)> equal,
                        std::function<size_t(const Value&)> hash) {
  t.hashes_by_value = true;
  t.def("__eq__", "self, other", [equal](Interpreter&, Args& a) { return Value::boolean(equal(a[0], a[1])); });
  t.def("__ne__", "self, other", [equal](Interpreter&, Args& a) { return Value::boolean(!equal(a[0], a[1])); });
  t.def("__hash__", "self",
        [hash](Interpreter&, Args& a) { return Value::integer(static_cast<int64_t>(hash(a[0]) >> 1)); });
}

size_t dtype_hash(ir::DataType t) { return std::hash<std::string>()(t.to_string()); }

TypeRef prim_type_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("PrimType");
    type->set_module("tvm.ir.type");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("dtype, span=None");
      Args a(interp, "PrimType", sig, std::move(call));
      return Value(std::make_shared<PrimTypeValue>(to_dtype(interp, a[0], "tvm.ir.PrimType dtype")));
    };
    type->def_property("dtype", [](Interpreter&, const Value& v) {
      return script::make_str(v.as<PrimTypeValue>()->dtype.to_string());
    });
    def_value_equality(
        *type,
        [](const Value& x, const Value& y) {
          return y.as<PrimTypeValue>() && x.as<PrimTypeValue>()->dtype == y.as<PrimTypeValue>()->dtype;
        },
        [](const Value& x) { return dtype_hash(x.as<PrimTypeValue>()->dtype); });
    return type;
  }();
  return t;
}

TypeRef pointer_type_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("PointerType");
    type->set_module("tvm.ir.type");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("element_type, storage_scope=\"\"");
      Args a(interp, "PointerType", sig, std::move(call));
      auto* element = a[0].as<PrimTypeValue>();
      if (a[0].as<PointerTypeValue>()) {
        raise(ExcKind::NotImplementedError,
              "not supported yet: a pointer to a pointer (tsch's pointers point to primitive types)");
      }
      if (!element) a.type_error(0, "a tvm.ir.PrimType");
      std::string scope = a.get_str(1);
      // TVM's PointerType: an empty storage scope is the global one.
      return Value(
          std::make_shared<PointerTypeValue>(ir::PointerType{element->dtype, scope.empty() ? "global" : scope}));
    };
    type->def_property("element_type", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<PrimTypeValue>(v.as<PointerTypeValue>()->pointer.element_type));
    });
    type->def_property("storage_scope", [](Interpreter&, const Value& v) {
      return script::make_str(v.as<PointerTypeValue>()->pointer.storage_scope);
    });
    def_value_equality(
        *type,
        [](const Value& x, const Value& y) {
          return y.as<PointerTypeValue>() && x.as<PointerTypeValue>()->pointer == y.as<PointerTypeValue>()->pointer;
        },
        [](const Value& x) {
          const ir::PointerType& p = x.as<PointerTypeValue>()->pointer;
          return dtype_hash(p.element_type) * 31 + std::hash<std::string>()(p.storage_scope);
        });
    return type;
  }();
  return t;
}

TypeObject* PrimTypeValue::type() const { return prim_type_type().get(); }
TypeObject* PointerTypeValue::type() const { return pointer_type_type().get(); }

Value fresh_var(ir::Var v) {
  auto value = std::make_shared<ExprValue>(ir::PrimExpr(std::move(v)));
  value->fresh = true;
  return Value(value);
}

std::string scope_arg(const Value& v, const std::string& what) {
  if (v.is_none()) return "global";
  auto* s = v.as<script::Str>();
  if (!s)
    raise(ExcKind::TypeError,
          fmt::format("{}: the storage scope is a string such as \"shared\", got {}", what, Interpreter::type_name(v)));
  return s->value.empty() ? "global" : s->value;
}

// T.Ptr(dtype, storage_scope) / T.ptr / T.buffer_var: a fresh pointer variable.
Value fresh_pointer(Interpreter& interp, const Value& dtype, const Value& scope, const std::string& what) {
  return fresh_var(ir::make_pointer_var("v", to_dtype(interp, dtype, what + " dtype"), scope_arg(scope, what)));
}

// TVM's PtrProxy: `T.Ptr[T.float32]`, `T.Ptr["float32", "shared"]`, `T.Ptr(T.float32)`.
class PtrProxyValue : public script::Object {
 public:
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto type = std::make_shared<TypeObject>("PtrProxy");
      type->set_module("tvm.script.parser.tir.entry");
      type->def("__call__", "self, dtype, storage_scope=\"global\"",
                [](Interpreter& interp, Args& a) { return fresh_pointer(interp, a[1], a[2], "T.Ptr"); });
      type->def("__getitem__", "self, keys", [](Interpreter& interp, Args& a) {
        if (auto* t = a[1].as<script::Tuple>()) {
          if (t->items.size() != 2) raise(ExcKind::TypeError, "T.Ptr[dtype, storage_scope] takes two items");
          return fresh_pointer(interp, t->items[0], t->items[1], "T.Ptr");
        }
        return fresh_pointer(interp, a[1], Value(), "T.Ptr");
      });
      return type;
    }();
    return t.get();
  }
};

}  // namespace

Value type_annotation_value(const ir::VarNode& var) {
  if (var.type_annotation) return Value(std::make_shared<PointerTypeValue>(*var.type_annotation));
  return Value(std::make_shared<PrimTypeValue>(var.dtype));
}

VarType to_var_type(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* p = v.as<PointerTypeValue>()) return {ir::DataType::handle(), p->pointer};
  if (auto* p = v.as<PrimTypeValue>()) return {p->dtype, std::nullopt};
  return {to_dtype(interp, v, what), std::nullopt};
}

ir::Var make_typed_var(std::string name, const VarType& type) {
  if (type.pointer)
    return ir::make_pointer_var(std::move(name), type.pointer->element_type, type.pointer->storage_scope);
  return ir::make_var(std::move(name), type.dtype);
}

const ir::VarNode* pointer_var_annotation(const Value& v) {
  auto* e = v.as<ExprValue>();
  if (!e || !e->fresh) return nullptr;
  auto* var = ir::as<ir::VarNode>(e->expr);
  return var && var->type_annotation ? var : nullptr;
}

Value fresh_handle_var(Interpreter& interp, const Value& dtype, const Value& storage_scope) {
  if (auto* s = dtype.as<script::Str>(); s && s->value == "tensormap") {
    raise(ExcKind::NotImplementedError,
          "not supported yet: T.handle(\"tensormap\") (TVM's CUDA tensor-map descriptors)");
  }
  std::string scope = scope_arg(storage_scope, "T.handle");
  // TVM's Handle: no pointee and the global scope is an opaque handle (PrimType("handle")).
  if (dtype.is_none() && scope == "global") return fresh_var(ir::make_var("v", ir::DataType::handle()));
  ir::DataType element = dtype.is_none() ? ir::DataType::void_() : to_dtype(interp, dtype, "T.handle pointee dtype");
  return fresh_var(ir::make_pointer_var("v", element, scope));
}

void def_pointer_functions(script::Namespace& ns) {
  ns.set(intern("Ptr"), Value(std::make_shared<PtrProxyValue>()));
  def_function(ns, "ptr", "dtype, storage_scope=\"global\", is_size_var=False",
               [](Interpreter& interp, Args& a) { return fresh_pointer(interp, a[0], a[1], "T.ptr"); });
  def_function(ns, "buffer_var", "dtype, storage_scope=\"global\"",
               [](Interpreter& interp, Args& a) { return fresh_pointer(interp, a[0], a[1], "T.buffer_var"); });
}

void def_ir_types(script::Namespace& ns) {
  ns.set(intern("PrimType"), Value(prim_type_type()));
  ns.set(intern("PointerType"), Value(pointer_type_type()));
}

}  // namespace tsch::bindings
