// The values the R.* namespace hands to the Relax front end, and struct info annotations
// (`R.Tensor((1, "m"), "float32")`, usable uncalled: `x: R.Tensor`) whose string dimensions
// resolve through the function being parsed.
#include "frontend/relax_specs.h"

#include <fmt/format.h>

#include <cctype>
#include <functional>

#include "frontend/ir_module_frame.h"
#include "frontend/relax_parser.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "script/types.h"
#include "values/ir_values.h"
#include "values/relax_values.h"

namespace tsch::frontend {

using bindings::guard_ir;
using bindings::StructInfoValue;
using bindings::to_dtype;
using bindings::to_expr;
using bindings::wrap_relax;
using script::Args;
using script::ExcKind;
using script::Interpreter;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

ir::PrimExpr to_dim(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* s = v.as<script::Str>()) {
    const std::string& name = s->value;
    bool ident = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) ident &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!ident)
      raise(ExcKind::NotImplementedError, "not supported yet: an expression as a string dimension (\"" + name +
                                              "\"); declare the variable with T.int64()");
    if (auto* frame = current_relax_frame()) return frame->symbolic_var(name);
    return ir::make_var(name, ir::DataType::int64());
  }
  ir::PrimExpr e = to_expr(interp, v, what);
  if (!e->dtype.is_integer())
    raise(ExcKind::TypeError, what + ": a dimension must be an integer, got " + e->dtype.to_string());
  return e->dtype == ir::DataType::int64() ? e : guard_ir([&] { return ir::cast(ir::DataType::int64(), e); });
}

}  // namespace

std::vector<ir::PrimExpr> to_dims(Interpreter& interp, const Value& v, const std::string& what) {
  if (!v.as<script::Tuple>() && !v.as<script::List>()) {
    raise(ExcKind::TypeError, what + ": expected a tuple or list of dimensions, got " + Interpreter::type_name(v));
  }
  std::vector<ir::PrimExpr> out;
  for (const auto& item : interp.to_vector(v)) out.push_back(to_dim(interp, item, what));
  return out;
}

namespace {

ir::DataType dtype_or_void(Interpreter& interp, const Value& v, const std::string& what) {
  if (v.is_none()) return ir::DataType::void_();
  if (auto* s = v.as<script::Str>(); s && s->value.empty()) return ir::DataType::void_();
  return to_dtype(interp, v, what);
}

// R.Tensor, R.Shape, R.Tuple, R.Callable, R.Prim: callable, and usable uncalled as an
// annotation (`x: R.Tensor` is a tensor of unknown shape and dtype).
class SInfoFactory : public script::Object {
 public:
  explicit SInfoFactory(relax::SInfoKind k) : kind(k) {}
  TypeObject* type() const override;
  relax::SInfoKind kind;
};

Value make_tensor_sinfo(Interpreter& interp, Args& a) {
  Value shape = a[1], dtype = a[2];
  if (shape.as<script::Str>() && dtype.is_none()) std::swap(shape, dtype);  // R.Tensor("float32", ndim=2)
  ir::DataType t = dtype_or_void(interp, dtype, "R.Tensor dtype");
  int64_t ndim = a[4].is_none() ? -1 : a.get_int(4);
  if (shape.is_none())
    return Value(std::make_shared<StructInfoValue>(relax::tensor_sinfo_ndim(static_cast<int>(ndim), t)));
  std::vector<ir::PrimExpr> dims = to_dims(interp, shape, "R.Tensor shape");
  if (ndim != -1 && ndim != static_cast<int64_t>(dims.size())) {
    a.value_error(4, fmt::format("ndim={} contradicts the shape's {} dimensions", ndim, dims.size()));
  }
  return Value(std::make_shared<StructInfoValue>(relax::tensor_sinfo(std::move(dims), t)));
}

Value make_shape_sinfo(Interpreter& interp, Args& a) {
  if (a[1].is_none())
    return Value(std::make_shared<StructInfoValue>(
        relax::shape_sinfo_ndim(a[2].is_none() ? -1 : static_cast<int>(a.get_int(2)))));
  return Value(std::make_shared<StructInfoValue>(relax::shape_sinfo(to_dims(interp, a[1], "R.Shape values"))));
}

Value make_prim_sinfo(Interpreter& interp, Args& a) {
  if (!a[2].is_none()) {
    ir::PrimExpr v =
        a[2].as<script::Str>() ? to_dim(interp, a[2], "R.Prim value") : to_expr(interp, a[2], "R.Prim value");
    return Value(std::make_shared<StructInfoValue>(relax::prim_sinfo(v->dtype, v)));
  }
  if (a[1].is_none()) raise(ExcKind::TypeError, "R.Prim needs a dtype or a value");
  return Value(std::make_shared<StructInfoValue>(relax::prim_sinfo(to_dtype(interp, a[1], "R.Prim dtype"))));
}

Value make_tuple_sinfo(Interpreter& interp, Args& a) {
  std::vector<relax::StructInfo> fields;
  for (const auto& f : a.varargs()) fields.push_back(to_struct_info(interp, f, "R.Tuple field"));
  return Value(std::make_shared<StructInfoValue>(relax::tuple_sinfo(std::move(fields))));
}

Value make_callable_sinfo(Interpreter& interp, Args& a) {
  relax::StructInfo ret = a[2].is_none() ? relax::object_sinfo() : to_struct_info(interp, a[2], "R.Callable ret");
  bool purity = interp.truthy(a[3]);
  if (a[1].is_none()) return Value(std::make_shared<StructInfoValue>(relax::opaque_func_sinfo(ret, purity)));
  std::vector<relax::StructInfo> params;
  for (const auto& p : interp.to_vector(a[1])) params.push_back(to_struct_info(interp, p, "R.Callable parameter"));
  return Value(std::make_shared<StructInfoValue>(relax::func_sinfo(std::move(params), ret, purity)));
}

TypeObject* SInfoFactory::type() const {
  auto make = [](const char* name, const char* sig, std::function<Value(Interpreter&, Args&)> fn) {
    auto type = std::make_shared<TypeObject>(name);
    type->set_module("tvm.script.relax");
    type->def("__call__", sig, std::move(fn));
    return type;
  };
  static TypeRef tensor = make("Tensor", "self, shape=None, dtype=None, vdevice=None, ndim=None",
                               [](Interpreter& interp, Args& a) { return make_tensor_sinfo(interp, a); });
  static TypeRef shape = make("Shape", "self, values=None, ndim=None",
                              [](Interpreter& interp, Args& a) { return make_shape_sinfo(interp, a); });
  static TypeRef prim = make("Prim", "self, dtype=None, value=None",
                             [](Interpreter& interp, Args& a) { return make_prim_sinfo(interp, a); });
  static TypeRef tuple =
      make("Tuple", "self, *fields", [](Interpreter& interp, Args& a) { return make_tuple_sinfo(interp, a); });
  static TypeRef callable = make("Callable", "self, params=None, ret=None, purity=True",
                                 [](Interpreter& interp, Args& a) { return make_callable_sinfo(interp, a); });
  switch (kind) {
    case relax::SInfoKind::Tensor:
      return tensor.get();
    case relax::SInfoKind::Shape:
      return shape.get();
    case relax::SInfoKind::Prim:
      return prim.get();
    case relax::SInfoKind::Tuple:
      return tuple.get();
    default:
      return callable.get();
  }
}

}  // namespace

#define TSCH_SIMPLE_TYPE(Cls, name)                   \
  TypeObject* Cls::type() const {                     \
    static TypeRef t = [] {                           \
      auto type = std::make_shared<TypeObject>(name); \
      type->set_module("tvm.script.relax");           \
      return type;                                    \
    }();                                              \
    return t.get();                                   \
  }
TSCH_SIMPLE_TYPE(MatchCastValue, "MatchCastPair")
TSCH_SIMPLE_TYPE(DataflowHeaderValue, "DataflowFrame")
TSCH_SIMPLE_TYPE(ModuleRefValue, "ModuleReference")
#undef TSCH_SIMPLE_TYPE

bool ModuleRefValue::get_attr_hook(Interpreter&, Symbol name, Value& out) {
  IRModuleFrame* m = current_ir_module_frame();
  std::string n = symbol_name(name);
  if (!m || m->consumed) return false;
  const auto* kind = global_kind(*m, n);
  if (!kind) {
    raise(ExcKind::AttributeError, fmt::format("module {} has no function named {}", class_name, n));
  }
  relax::StructInfo sinfo;
  if (*kind == IRModuleFrame::GlobalKind::RelaxFunction && signature_of) sinfo = signature_of(n);
  // A prim_func returns nothing and writes its outputs: an impure call (TVM's PrimFunc
  // struct info).
  if (!sinfo && *kind == IRModuleFrame::GlobalKind::PrimFunc)
    sinfo = relax::opaque_func_sinfo(relax::void_sinfo(), false);
  if (!sinfo) sinfo = relax::opaque_func_sinfo(relax::object_sinfo(), false);
  out = wrap_relax(relax::make_global_var(n, sinfo));
  return true;
}

Value sinfo_factory(relax::SInfoKind kind) { return Value(std::make_shared<SInfoFactory>(kind)); }

relax::StructInfo to_struct_info(Interpreter& interp, const Value& v, const std::string& what) {
  (void)interp;
  if (auto* s = v.as<StructInfoValue>()) return s->sinfo;
  if (auto* f = v.as<SInfoFactory>()) {
    switch (f->kind) {
      case relax::SInfoKind::Tensor:
        return relax::tensor_sinfo_ndim(-1, ir::DataType::void_());
      case relax::SInfoKind::Shape:
        return relax::shape_sinfo_ndim(-1);
      case relax::SInfoKind::Tuple:
        return relax::void_sinfo();
      case relax::SInfoKind::Func:
        return relax::opaque_func_sinfo(relax::object_sinfo(), false);
      case relax::SInfoKind::Prim:
        raise(ExcKind::TypeError, what + ": R.Prim needs a dtype, e.g. R.Prim(\"int64\")");
      case relax::SInfoKind::Object:
        return relax::object_sinfo();
    }
  }
  raise(ExcKind::TypeError, fmt::format("{}: expected struct info such as R.Tensor((1, \"n\"), \"float32\"), got {}",
                                        what, Interpreter::type_name(v)));
}

}  // namespace tsch::frontend
