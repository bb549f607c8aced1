// The classes of dtypes and float8 scalars in scripts: numpy.dtype (and ml_dtypes' scalar
// types, which are dtypes called as constructors) and ml_dtypes.float8_e4m3fn / float8_e5m2.
#include <cmath>

#include "numpy/array_format.h"
#include "numpy/ndarray_value.h"
#include "numpy/numpy_scalar.h"
#include "script/types.h"

namespace tsch::bindings {

using ir::DataType;
using runtime::BinaryOp;
using runtime::NDArray;
using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

void def_float8_binary(TypeObject& t, const char* name, BinaryOp op, bool reflected) {
  t.def(name, "self, other", [op, reflected](Interpreter& interp, Args& a) -> Value {
    if (!is_array_operand(a[1])) return script::not_implemented_value();
    return reflected ? array_binary(interp, op, a[1], a[0]) : array_binary(interp, op, a[0], a[1]);
  });
}

const NDArray& float8_value(Args& a) { return *a[0].as<Float8ScalarValue>()->value; }

// ml_dtypes' scalar type for one float8 dtype: conversions, arithmetic as 0-d arrays (so
// with the arrays' promotion), `.dtype`, `.item()`.
TypeRef make_float8_scalar_type(DataType dtype) {
  auto t = std::make_shared<TypeObject>(dtype_name(dtype));
  t->set_module("ml_dtypes");
  struct Op {
    const char* name;
    const char* rname;
    BinaryOp op;
  };
  for (Op o : {Op{"__add__", "__radd__", BinaryOp::Add},
               {"__sub__", "__rsub__", BinaryOp::Sub},
               {"__mul__", "__rmul__", BinaryOp::Mul},
               {"__truediv__", "__rtruediv__", BinaryOp::TrueDiv},
               {"__floordiv__", "__rfloordiv__", BinaryOp::FloorDiv},
               {"__mod__", "__rmod__", BinaryOp::Mod},
               {"__pow__", "__rpow__", BinaryOp::Pow}}) {
    def_float8_binary(*t, o.name, o.op, false);
    def_float8_binary(*t, o.rname, o.op, true);
  }
  struct Cmp {
    const char* name;
    BinaryOp op;
  };
  for (Cmp c : {Cmp{"__lt__", BinaryOp::LT},
                {"__le__", BinaryOp::LE},
                {"__gt__", BinaryOp::GT},
                {"__ge__", BinaryOp::GE},
                {"__eq__", BinaryOp::EQ},
                {"__ne__", BinaryOp::NE}})
    def_float8_binary(*t, c.name, c.op, false);
  t->def("__neg__", "self",
         [](Interpreter&, Args& a) { return array_or_scalar(runtime::unary(runtime::UnaryOp::Neg, float8_value(a))); });
  t->def("__abs__", "self",
         [](Interpreter&, Args& a) { return array_or_scalar(runtime::unary(runtime::UnaryOp::Abs, float8_value(a))); });
  t->def("__pos__", "self", [](Interpreter&, Args& a) { return a[0]; });
  t->def("__float__", "self", [](Interpreter&, Args& a) { return Value::real(float8_value(a).get_f(0)); });
  t->def("__int__", "self", [](Interpreter&, Args& a) {
    double x = float8_value(a).get_f(0);
    if (std::isnan(x)) raise(ExcKind::ValueError, "cannot convert float NaN to integer");
    if (std::isinf(x)) raise(ExcKind::OverflowError, "cannot convert float infinity to integer");
    return Value::integer(static_cast<int64_t>(x));
  });
  t->def("__bool__", "self", [](Interpreter&, Args& a) { return Value::boolean(float8_value(a).get_f(0) != 0); });
  t->def("item", "self", [](Interpreter&, Args& a) { return Value::real(float8_value(a).get_f(0)); });
  t->def("astype", "self, dtype",
         [](Interpreter& interp, Args& a) { return array_or_scalar(float8_value(a).astype(dtype_arg(interp, a[1]))); });
  t->def_property("dtype", [](Interpreter&, const Value& v) {
    return Value(std::make_shared<DTypeValue>(v.as<Float8ScalarValue>()->value->dtype(), false));
  });
  return t;
}

}  // namespace

TypeObject* Float8ScalarValue::type() const {
  static TypeRef e4m3fn = make_float8_scalar_type(DataType::float8_e4m3fn());
  static TypeRef e5m2 = make_float8_scalar_type(DataType::float8_e5m2());
  return value->dtype().code == DataType::Code::Float8E5M2 ? e5m2.get() : e4m3fn.get();
}

std::string Float8ScalarValue::repr_hook(Interpreter&) { return float8_scalar_text(value->get_f(0)); }

TypeObject* DTypeValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("dtype");
    t->set_module("numpy");
    t->def("__call__", "self, value=0", [](Interpreter& interp, Args& a) -> Value {
      return construct_numpy_scalar(interp, a[0].as<DTypeValue>()->dtype, a[1]);
    });
    // str(np.dtype('float32')) is its name; a scalar type (np.float32) prints as the class.
    t->def("__str__", "self", [](Interpreter& interp, Args& a) {
      auto* d = a[0].as<DTypeValue>();
      return script::make_str(d->is_scalar_type ? d->repr_hook(interp) : dtype_name(d->dtype));
    });
    t->def("__eq__", "self, other", [](Interpreter& interp, Args& a) {
      DataType d = a[0].as<DTypeValue>()->dtype;
      if (auto* s = a[1].as<script::Str>()) {
        auto parsed = DataType::parse(s->value);
        return Value::boolean(parsed && *parsed == d);
      }
      if (auto* o = a[1].as<DTypeValue>()) return Value::boolean(o->dtype == d);
      if (auto t = numpy_scalar_class_dtype(a[1])) return Value::boolean(*t == d);
      (void)interp;
      return Value::boolean(false);
    });
    t->def("__hash__", "self", [](Interpreter&, Args& a) {
      DataType d = a[0].as<DTypeValue>()->dtype;
      return Value::integer(static_cast<int64_t>(d.code) * 1000 + d.bits);
    });
    t->def_property(
        "name", [](Interpreter&, const Value& v) { return script::make_str(dtype_name(v.as<DTypeValue>()->dtype)); });
    t->def_property("itemsize", [](Interpreter&, const Value& v) {
      return Value::integer(runtime::element_bytes(v.as<DTypeValue>()->dtype));
    });
    return t;
  }();
  return t.get();
}

std::string DTypeValue::repr_hook(Interpreter&) {
  std::string name = dtype_name(dtype);
  // ml_dtypes' scalar types live in the ml_dtypes module (its testModuleName).
  if (is_scalar_type) return "<class '" + std::string(dtype.is_float8() ? "ml_dtypes." : "numpy.") + name + "'>";
  return dtype_repr(dtype);
}

}  // namespace tsch::bindings
