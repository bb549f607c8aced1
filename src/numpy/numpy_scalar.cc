// NumPy's scalar types: which dtypes they cover, their text, and their methods. Arithmetic
// goes through the array operations on 0-d arrays (bindings/ndarray_value.cc), which know
// NumPy 2's promotion, its weak Python scalars and each dtype's rounding and wrapping.
#include "numpy/numpy_scalar.h"

#include <fmt/format.h>

#include <cmath>

#include "numpy/array_format.h"
#include "numpy/ndarray_value.h"
#include "numpy/numpy_float_text.h"
#include "script/types.h"

namespace tsch::bindings {

using ir::DataType;
using runtime::BinaryOp;
using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// Code k (Value::numpy_dtype) is kDtypes[k - 1]; 0 stays "a Python number".
const DataType kDtypes[] = {DataType::bool_(),  DataType::int_(8),    DataType::int_(16),   DataType::int_(32),
                            DataType::int_(64), DataType::uint(8),    DataType::uint(16),   DataType::uint(32),
                            DataType::uint(64), DataType::float_(16), DataType::float_(32), DataType::float_(64)};
constexpr int kCount = sizeof(kDtypes) / sizeof(kDtypes[0]);
static_assert(kCount < script::kNumpyScalarCodes);

uint8_t code_of(DataType t) {
  for (int k = 0; k < kCount; ++k)
    if (kDtypes[k] == t) return static_cast<uint8_t>(k + 1);
  return 0;
}

DataType self_dtype(const Value& v) { return kDtypes[v.numpy_dtype() - 1]; }

// What NumPy's scalars combine with: numbers, arrays, float8 scalars, nested sequences.
bool is_operand(const Value& v) {
  return v.is_number() || v.as<ArrayValue>() || v.as<Float8ScalarValue>() || v.as<script::List>() ||
         v.as<script::Tuple>();
}

void def_arithmetic(TypeObject& t, const char* name, const char* rname, BinaryOp op) {
  t.def(name, "self, other", [op](Interpreter& interp, Args& a) -> Value {
    if (!is_operand(a[1])) return script::not_implemented_value();
    return array_binary(interp, op, a[0], a[1]);
  });
  if (!rname) return;
  t.def(rname, "self, other", [op](Interpreter& interp, Args& a) -> Value {
    if (!is_operand(a[1])) return script::not_implemented_value();
    return array_binary(interp, op, a[1], a[0]);
  });
}

enum class Bitwise { And, Or, Xor, LShift, RShift };

// The integer ufuncs the array operations lack: the result dtype is NumPy's promotion of the
// operands (weak Python ints included), the bits are computed on int64 and wrapped into it.
Value bitwise(Interpreter& interp, Bitwise op, const char* ufunc, const Value& x, const Value& y) {
  if (!(x.is_integral() && y.is_integral())) {
    if (!x.is_number() || !y.is_number()) return script::not_implemented_value();
    raise(ExcKind::TypeError,
          fmt::format("ufunc '{}' not supported for the input types, and the inputs could not be safely "
                      "coerced to any supported types according to the casting rule ''safe''",
                      ufunc));
  }
  DataType result = binary_result(interp, BinaryOp::Max, x, y)->dtype();
  int64_t a = x.as_int(), b = y.as_int(), r = 0;
  int bits = result.is_bool() ? 1 : result.bits;
  switch (op) {
    case Bitwise::And:
      r = a & b;
      break;
    case Bitwise::Or:
      r = a | b;
      break;
    case Bitwise::Xor:
      r = a ^ b;
      break;
    // NumPy's shifts by the type's width or more give 0 (or -1 shifting a negative right).
    case Bitwise::LShift:
      r = b < 0 || b >= bits ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b);
      break;
    case Bitwise::RShift:
      r = b < 0 || b >= bits ? (a < 0 && result.is_int() ? -1 : 0) : a >> b;
      break;
  }
  auto out = runtime::make_array(result, {});
  out->set_i(0, r);
  return numpy_scalar(*out);
}

void def_bitwise(TypeObject& t, const char* name, const char* rname, Bitwise op, const char* ufunc) {
  t.def(name, "self, other",
        [op, ufunc](Interpreter& interp, Args& a) { return bitwise(interp, op, ufunc, a[0], a[1]); });
  t.def(rname, "self, other",
        [op, ufunc](Interpreter& interp, Args& a) { return bitwise(interp, op, ufunc, a[1], a[0]); });
}

runtime::NDArrayRef as_array(const Value& v) {
  auto a = runtime::make_array(self_dtype(v), {});
  if (v.is_float())
    a->set_f(0, v.as_float());
  else
    a->set_i(0, v.as_int());
  return a;
}

// The value rounded to the scalar's float dtype, as an operation in that dtype stores it.
double in_dtype(double v, DataType t) {
  if (t.bits == 16) return static_cast<double>(static_cast<_Float16>(v));
  if (t.bits == 32) return static_cast<double>(static_cast<float>(v));
  return v;
}

// round(x) is a Python int; round(x, n) NumPy's np.round: x * 10**n (a weak Python float, so
// in x's dtype), rint, / 10**n — / and * swapped for negative n —; integers round in float64
// and come back to their dtype.
Value round_scalar(const Value& self, const Value& ndigits) {
  DataType t = self_dtype(self);
  if (ndigits.is_none()) {
    if (!self.is_float()) return Value::integer(self.as_int());
    double v = self.as_float();
    if (std::isnan(v)) raise(ExcKind::ValueError, "cannot convert float NaN to integer");
    if (std::isinf(v)) raise(ExcKind::OverflowError, "cannot convert float infinity to integer");
    return Value::integer(static_cast<int64_t>(std::nearbyint(v)));
  }
  if (!ndigits.is_integral())
    raise(ExcKind::TypeError, "'" + Interpreter::type_name(ndigits) + "' object cannot be interpreted as an integer");
  int64_t n = ndigits.as_int();
  if (!self.is_float() && n >= 0) return self;
  DataType compute = self.is_float() ? t : DataType::float_(64);
  double scale = std::pow(10.0, static_cast<double>(n < 0 ? -n : n));
  double v = self.as_float();
  double r = n >= 0 ? in_dtype(v * in_dtype(scale, compute), compute) : in_dtype(v / in_dtype(scale, compute), compute);
  r = std::nearbyint(r);
  r = n >= 0 ? in_dtype(r / in_dtype(scale, compute), compute) : in_dtype(r * in_dtype(scale, compute), compute);
  auto out = runtime::make_array(t, {});
  if (t.is_float())
    out->set_f(0, r);
  else
    out->set_i(0, static_cast<int64_t>(r));
  return numpy_scalar(*out);
}

TypeRef make_scalar_type(DataType dtype) {
  std::vector<TypeRef> bases;
  // np.float64 subclasses Python's float (isinstance(np.float64(1), float) is True).
  if (dtype == DataType::float_(64)) bases.push_back(script::builtin_types().float_);
  std::string name = dtype.is_bool() ? "bool" : dtype_name(dtype);
  auto t = std::make_shared<TypeObject>(name, std::move(bases));
  t->set_module("numpy");
  t->constructor = [dtype, name](Interpreter& interp, TypeObject*, script::CallArgs& call) {
    if (!call.keywords.empty()) raise(ExcKind::TypeError, name + "() takes no keyword arguments");
    if (call.positional.size() > 1)
      raise(ExcKind::TypeError, fmt::format("{}() takes at most 1 argument ({} given)", name, call.positional.size()));
    return construct_numpy_scalar(interp, dtype, call.positional.empty() ? Value::integer(0) : call.positional[0]);
  };
  t->def("__str__", "self", [](Interpreter&, Args& a) { return script::make_str(numpy_scalar_str(a[0])); });
  t->def("__repr__", "self", [](Interpreter&, Args& a) { return script::make_str(numpy_scalar_repr(a[0])); });
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
               {"__pow__", "__rpow__", BinaryOp::Pow},
               {"__lt__", nullptr, BinaryOp::LT},
               {"__le__", nullptr, BinaryOp::LE},
               {"__gt__", nullptr, BinaryOp::GT},
               {"__ge__", nullptr, BinaryOp::GE},
               {"__eq__", nullptr, BinaryOp::EQ},
               {"__ne__", nullptr, BinaryOp::NE}})
    def_arithmetic(*t, o.name, o.rname, o.op);
  def_bitwise(*t, "__and__", "__rand__", Bitwise::And, "bitwise_and");
  def_bitwise(*t, "__or__", "__ror__", Bitwise::Or, "bitwise_or");
  def_bitwise(*t, "__xor__", "__rxor__", Bitwise::Xor, "bitwise_xor");
  def_bitwise(*t, "__lshift__", "__rlshift__", Bitwise::LShift, "left_shift");
  def_bitwise(*t, "__rshift__", "__rrshift__", Bitwise::RShift, "right_shift");
  t->def("__neg__", "self", [](Interpreter&, Args& a) {
    if (a[0].is_bool())
      raise(ExcKind::TypeError,
            "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the "
            "logical_not function instead.");
    return numpy_scalar(*runtime::unary(runtime::UnaryOp::Neg, *as_array(a[0])));
  });
  t->def("__pos__", "self", [](Interpreter&, Args& a) { return a[0]; });
  t->def("__abs__", "self", [](Interpreter&, Args& a) {
    if (a[0].is_bool()) return a[0];
    return numpy_scalar(*runtime::unary(runtime::UnaryOp::Abs, *as_array(a[0])));
  });
  t->def("__invert__", "self", [](Interpreter&, Args& a) {
    if (a[0].is_float())
      raise(ExcKind::TypeError,
            "ufunc 'invert' not supported for the input types, and the inputs could not be safely coerced "
            "to any supported types according to the casting rule ''safe''");
    auto out = runtime::make_array(self_dtype(a[0]), {});
    out->set_i(0, a[0].is_bool() ? !a[0].as_bool() : ~a[0].as_int());
    return numpy_scalar(*out);
  });
  t->def("__round__", "self, ndigits=None", [](Interpreter&, Args& a) { return round_scalar(a[0], a[1]); });
  t->def("item", "self", [](Interpreter&, Args& a) { return a[0].plain(); }, "item(): the value as a Python number.");
  t->def("tolist", "self", [](Interpreter&, Args& a) { return a[0].plain(); });
  t->def("astype", "self, dtype",
         [](Interpreter& interp, Args& a) { return array_or_scalar(as_array(a[0])->astype(dtype_arg(interp, a[1]))); });
  t->def_property(
      "dtype", [](Interpreter&, const Value& v) { return Value(std::make_shared<DTypeValue>(self_dtype(v), false)); });
  t->def_property("itemsize",
                  [](Interpreter&, const Value& v) { return Value::integer(runtime::element_bytes(self_dtype(v))); });
  t->def_property("ndim", [](Interpreter&, const Value&) { return Value::integer(0); });
  t->def_property("shape", [](Interpreter&, const Value&) { return script::make_tuple({}); });
  t->def_property("size", [](Interpreter&, const Value&) { return Value::integer(1); });
  if (dtype.is_float()) {
    t->def("is_integer", "self", [](Interpreter&, Args& a) {
      double v = a[0].as_float();
      return Value::boolean(std::isfinite(v) && v == std::floor(v));
    });
  }
  return t;
}

// The classes, made and registered with the interpreter on first use.
const std::vector<TypeRef>& scalar_classes() {
  static const std::vector<TypeRef> classes = [] {
    std::vector<TypeRef> out;
    for (int k = 0; k < kCount; ++k) {
      out.push_back(make_scalar_type(kDtypes[k]));
      script::register_numpy_scalar_type(static_cast<uint8_t>(k + 1), out.back());
    }
    return out;
  }();
  return classes;
}

void register_types() { (void)scalar_classes(); }

}  // namespace

bool has_numpy_scalar(DataType t) { return code_of(t) != 0; }

TypeRef numpy_scalar_class(DataType t) {
  uint8_t code = code_of(t);
  return code ? scalar_classes()[code - 1] : nullptr;
}

std::optional<DataType> numpy_scalar_class_dtype(const Value& v) {
  auto* cls = v.as<TypeObject>();
  if (!cls) return std::nullopt;
  const auto& classes = scalar_classes();
  for (int k = 0; k < kCount; ++k)
    if (classes[k].get() == cls) return kDtypes[k];
  return std::nullopt;
}

Value construct_numpy_scalar(Interpreter& interp, DataType t, const Value& value) {
  Value v = value;
  // Text reads as Python's float() or int() reads it (np.float32("abc") is float()'s ValueError).
  if (v.as<script::Str>()) {
    const auto& types = script::builtin_types();
    v = interp.call(Value(t.is_float() ? types.float_ : t.is_bool() ? types.bool_ : types.int_), std::vector<Value>{v});
  }
  return array_or_scalar(to_array(interp, v, t));
}

std::optional<DataType> numpy_scalar_dtype(const Value& v) {
  if (!v.is_numpy_scalar()) return std::nullopt;
  return self_dtype(v);
}

Value numpy_scalar(const runtime::NDArray& a, int64_t i) {
  register_types();
  DataType t = a.dtype();
  Value number = t.is_bool()    ? Value::boolean(a.get_i(i) != 0)
                 : t.is_float() ? Value::real(a.get_f(i))
                                : Value::integer(a.get_i(i));
  return Value::numpy_scalar(number, code_of(t));
}

std::string numpy_scalar_str(const Value& v) {
  DataType t = self_dtype(v);
  if (t.is_bool()) return v.as_bool() ? "True" : "False";
  if (t.is_float()) return numpy_float_text(v.as_float(), t.bits);
  // uint64 keeps its bits in the int64.
  if (t.is_uint() && t.bits == 64) return std::to_string(static_cast<uint64_t>(v.as_int()));
  return std::to_string(v.as_int());
}

std::string numpy_scalar_repr(const Value& v) {
  DataType t = self_dtype(v);
  if (t.is_bool()) return v.as_bool() ? "np.True_" : "np.False_";
  return "np." + dtype_name(t) + "(" + numpy_scalar_str(v) + ")";
}

bool python_int_fits(int64_t value, DataType t) {
  if (t.is_uint()) return value >= 0 && (t.bits >= 64 || value < (int64_t{1} << t.bits));
  if (t.is_int() && t.bits < 64) return value >= -(int64_t{1} << (t.bits - 1)) && value < (int64_t{1} << (t.bits - 1));
  return true;
}

}  // namespace tsch::bindings
