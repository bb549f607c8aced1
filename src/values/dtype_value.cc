// TVMScript's dtypes as values (`T.float32`: an annotation, a constant or cast when called,
// a fresh variable when called bare) and the dtype a script value names.
#include "values/dtype_value.h"

#include <fmt/format.h>

#include <cmath>

#include "ir/op.h"
#include "script/exceptions.h"
#include "script/types.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

TypeRef dtype_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("DType");
    type->set_module("tvm.script.tir");
    type->def("__call__", "self, value=None, storage_scope=\"global\", *, is_size_var=False, is_unknown_type=False",
              [](Interpreter& interp, Args& a) -> Value {
                ir::DataType dt = a[0].as<TirDTypeValue>()->dtype;
                // `T.handle("float32", "shared")`: a pointer variable (TVM's PointerType annotation).
                if (dt.is_handle() && (a[1].is_none() || a[1].as<script::Str>() || a[1].as<TirDTypeValue>()))
                  return fresh_handle_var(interp, a[1], a[2]);
                if (a[1].is_none()) {
                  // `n = T.int64()`: a fresh variable named by the assignment.
                  auto v = std::make_shared<ExprValue>(ir::PrimExpr(ir::make_var("v", dt)));
                  v->fresh = true;
                  return Value(v);
                }
                if (dt.lanes > 1 && !a[1].is_none()) {
                  // A vector type called on a scalar broadcasts it (`T.int16x32(1)`).
                  ir::DataType elem = dt.element_of();
                  ir::PrimExpr scalar = a[1].is_number()
                                            ? (elem.is_float() ? ir::make_float(a[1].as_float(), elem)
                                                               : ir::make_int(a[1].as_int(), elem))
                                            : guard_ir([&] { return ir::cast(elem, to_expr(interp, a[1], "value")); });
                  return wrap(ir::PrimExpr(std::make_shared<ir::BroadcastNode>(scalar, dt.lanes)));
                }
                if (a[1].is_number()) {
                  if (dt.is_float()) return wrap(ir::make_float(a[1].as_float(), dt));
                  if (dt.is_bool()) return wrap(ir::make_bool(interp.truthy(a[1])));
                  if (a[1].is_float()) return wrap(ir::make_int(static_cast<int64_t>(a[1].as_float()), dt));
                  return wrap(ir::make_int(a[1].as_int(), dt));
                }
                if (auto* s = a[1].as<script::Str>(); s && dt.is_float()) {
                  double v = s->value == "inf" ? INFINITY : s->value == "-inf" ? -INFINITY : NAN;
                  return wrap(ir::make_float(v, dt));
                }
                return wrap(guard_ir([&] { return ir::cast(dt, to_expr(interp, a[1], "value")); }));
              });
    return type;
  }();
  return t;
}

TypeObject* TirDTypeValue::type() const { return dtype_type().get(); }

ir::DataType to_dtype(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* d = v.as<TirDTypeValue>()) return d->dtype;
  if (auto* s = v.as<script::Str>()) {
    if (auto t = ir::DataType::parse(s->value)) return *t;
    if (ir::DataType::is_unsupported_tvm_name(s->value)) {
      raise(ExcKind::NotImplementedError,
            fmt::format("not supported yet: the dtype \"{}\" ({}; tsch's 8-bit floats are float8_e4m3fn and "
                        "float8_e5m2)",
                        s->value, what));
    }
    raise(ExcKind::ValueError, fmt::format("{}: unknown dtype \"{}\"", what, s->value));
  }
  raise(ExcKind::TypeError,
        fmt::format("{}: expected a dtype such as \"float32\", got {}", what, Interpreter::type_name(v)));
}

}  // namespace tsch::bindings
