// numpy.ndarray and tvm.nd.NDArray: conversions, operators, indexing and methods.
#include "numpy/ndarray_value.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "numpy/array_format.h"
#include "numpy/numpy_scalar.h"
#include "script/types.h"
#include "values/device_value.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using ir::DataType;
using runtime::BinaryOp;
using runtime::NDArray;
using runtime::NDArrayRef;
using runtime::Shape;
using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// The array a method works on; its elements must be on the host (a GPU array's are read
// with .numpy(), as in TVM, where NumPy's operations take host arrays only).
NDArray& self_array(Args& a) {
  NDArray& arr = *a[0].as<ArrayValue>()->array;
  if (!arr.on_host())
    raise(ExcKind::RuntimeError, "not supported yet: reading the elements of an array on " + arr.device().str() +
                                     " in place (copy it to the host with .numpy())");
  return arr;
}
// self_array's array as the shared reference a view keeps alive.
const NDArrayRef& self_ref(Args& a) {
  self_array(a);
  return a[0].as<ArrayValue>()->array;
}
// The array of a method that works wherever the array lives (numpy(), copyto, ...).
NDArray& any_array(Args& a) { return *a[0].as<ArrayValue>()->array; }

int64_t index_value(const Value& v) {
  if (v.is_integral()) return v.as_int();
  if (auto* arr = v.as<ArrayValue>()) {
    if (arr->array->ndim() == 0 && !arr->array->dtype().is_float()) return arr->array->get_i(0);
  }
  raise(ExcKind::TypeError, "'" + Interpreter::type_name(v) + "' object cannot be interpreted as an integer");
}

// ml_dtypes' other types, which NumPy accepts by name once ml_dtypes is imported (TVM names
// several of them); tsch's arrays do not hold them.
bool is_other_ml_dtype(const std::string& name) {
  static const char* const kNames[] = {"bfloat16",
                                       "float4_e2m1fn",
                                       "float6_e2m3fn",
                                       "float6_e3m2fn",
                                       "float8_e3m4",
                                       "float8_e4m3",
                                       "float8_e4m3b11fnuz",
                                       "float8_e4m3fnuz",
                                       "float8_e5m2fnuz",
                                       "float8_e8m0fnu",
                                       "int2",
                                       "int4",
                                       "uint2",
                                       "uint4"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

// A Python number (not a NumPy scalar): NumPy 2 types it by what it meets (NEP 50).
bool is_weak_number(const Value& v) { return v.is_number() && !v.is_numpy_scalar(); }

// The dtype a Python scalar takes next to an array of type `t` (NumPy 2's weak scalars).
DataType scalar_dtype(const Value& v, const DataType* t) {
  if (v.is_bool()) return t ? *t : DataType::bool_();
  // A Python int or float cannot take a float8 dtype (ml_dtypes registers no such weak cast):
  // NumPy's resolver settles on its float32 loop.
  if (t && t->is_float8()) return DataType::float32();
  if (v.is_int()) return t && !t->is_bool() ? *t : DataType::int64();
  return t && t->is_float() ? *t : DataType::float_(64);
}

NDArrayRef scalar_array(const Value& v, DataType t) {
  // Where NumPy 2 refuses a weak Python int that its dtype cannot hold (np.int8(1) + 1000).
  if (v.is_int() && !v.is_numpy_scalar() && !python_int_fits(v.as_int(), t))
    raise(ExcKind::OverflowError,
          "Python integer " + std::to_string(v.as_int()) + " out of bounds for " + dtype_name(t));
  auto a = runtime::make_array(t, {});
  if (v.is_float())
    a->set_f(0, v.as_float());
  else
    a->set_i(0, v.as_int());
  return a;
}

// What the leaves of a nest say about its dtype: Python numbers as NumPy's array() reads them
// (any float: float64, all bools: bool, else int64), NumPy scalars by their own dtypes.
struct NestKinds {
  bool any_float = false, all_bool = true, any_python = false;
  std::optional<DataType> scalars;  // the promotion of the NumPy scalars' dtypes
};

void nested_shape(Interpreter& interp, const Value& v, size_t depth, Shape& shape, NestKinds& kinds) {
  auto* list = v.as<script::List>();
  auto* tuple = v.as<script::Tuple>();
  if (list || tuple) {
    const auto& items = list ? list->items : tuple->items;
    if (depth == shape.size())
      shape.push_back(static_cast<int64_t>(items.size()));
    else if (depth > shape.size() || shape[depth] != static_cast<int64_t>(items.size()))
      raise(ExcKind::ValueError,
            "setting an array element with a sequence. The requested array has an inhomogeneous shape");
    for (const auto& item : items) nested_shape(interp, item, depth + 1, shape, kinds);
    return;
  }
  if (depth != shape.size())
    raise(ExcKind::ValueError,
          "setting an array element with a sequence. The requested array has an inhomogeneous shape");
  if (v.as<Float8ScalarValue>()) {
    kinds.any_float = true;
    kinds.all_bool = false;
    kinds.any_python = true;
    return;
  }
  if (auto* arr = v.as<ArrayValue>()) {
    if (arr->array->ndim() != 0) raise(ExcKind::ValueError, "not supported yet: arrays nested inside lists");
    kinds.any_float |= arr->array->dtype().is_float();
    kinds.all_bool &= arr->array->dtype().is_bool();
    kinds.any_python = true;
    return;
  }
  if (!v.is_number()) raise(ExcKind::TypeError, "cannot convert " + Interpreter::type_name(v) + " to an array element");
  if (auto t = numpy_scalar_dtype(v)) {
    kinds.scalars = kinds.scalars ? runtime::promote(*kinds.scalars, *t) : *t;
    return;
  }
  kinds.any_python = true;
  kinds.any_float |= v.is_float();
  kinds.all_bool &= v.is_bool();
}

// The dtype of a nest whose every element is a float8 scalar of one dtype (NumPy keeps it:
// `np.array([a[0], a[1]])` of a float8 array is float8); nullopt for any other nest.
std::optional<DataType> float8_nest_dtype(const Value& v) {
  auto* list = v.as<script::List>();
  auto* tuple = v.as<script::Tuple>();
  if (!list && !tuple) {
    if (auto* f8 = v.as<Float8ScalarValue>()) return f8->value->dtype();
    return std::nullopt;
  }
  std::optional<DataType> common;
  for (const auto& item : list ? list->items : tuple->items) {
    std::optional<DataType> t = float8_nest_dtype(item);
    if (!t || (common && *common != *t)) return std::nullopt;
    common = t;
  }
  return common;
}

void fill_nested(const Value& v, NDArray& out, int64_t& pos) {
  auto* list = v.as<script::List>();
  auto* tuple = v.as<script::Tuple>();
  if (list || tuple) {
    for (const auto& item : list ? list->items : tuple->items) fill_nested(item, out, pos);
    return;
  }
  if (auto* f8 = v.as<Float8ScalarValue>()) {
    out.set_f(pos++, f8->value->get_f(0));
    return;
  }
  if (auto* arr = v.as<ArrayValue>()) {
    if (out.dtype().is_float())
      out.set_f(pos++, arr->array->get_f(0));
    else
      out.set_i(pos++, arr->array->get_i(0));
    return;
  }
  if (v.is_float())
    out.set_f(pos++, v.as_float());
  else
    out.set_i(pos++, v.as_int());
}

int64_t normalize_index(int64_t i, int64_t n, int axis) {
  if (i < -n || i >= n)
    raise(ExcKind::IndexError, "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                                   " with size " + std::to_string(n));
  return i < 0 ? i + n : i;
}

runtime::AxisSelect slice_select(Interpreter& interp, const script::SliceObject& s, int64_t n) {
  int64_t step = s.step.is_none() ? 1 : index_value(s.step);
  if (step == 0) raise(ExcKind::ValueError, "slice step cannot be zero");
  auto bound = [&](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t x = index_value(v);
    if (x < 0) x += n;
    if (step > 0) return std::clamp<int64_t>(x, 0, n);
    return std::clamp<int64_t>(x, -1, n - 1);
  };
  int64_t start = bound(s.start, step > 0 ? 0 : n - 1), stop = bound(s.stop, step > 0 ? n : -1);
  int64_t count = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                           : (start > stop ? (start - stop - step - 1) / -step : 0);
  return {false, start, step, count};
}

// `new_axes`: where NumPy's newaxis (None) entries put axes of size 1 in the result; without
// it, None is refused.
std::vector<runtime::AxisSelect> parse_index(Interpreter& interp, const NDArray& a, const Value& key,
                                             std::vector<size_t>* new_axes = nullptr) {
  std::vector<Value> parts;
  if (auto* t = key.as<script::Tuple>())
    parts = t->items;
  else
    parts.push_back(key);
  if (new_axes) {
    // Each None is an output axis after the slices and Nones before it; it takes no input axis.
    size_t out = 0;
    bool before_ellipsis = true;
    std::vector<Value> kept;
    size_t consuming = 0;
    for (const Value& p : parts)
      if (!p.is_none() && !(p.is_object() && p.type() == script::builtin_types().ellipsis.get())) ++consuming;
    size_t fill = consuming < static_cast<size_t>(a.ndim()) ? a.ndim() - consuming : 0;
    for (const Value& p : parts) {
      if (p.is_none()) {
        new_axes->push_back(out++);
        continue;
      }
      if (p.is_object() && p.type() == script::builtin_types().ellipsis.get()) {
        if (before_ellipsis) out += fill;
        before_ellipsis = false;
      } else if (!p.is_integral()) {
        ++out;  // a slice keeps its axis
      }
      kept.push_back(p);
    }
    parts = kept;
  }
  // `...` stands for as many full slices as the other indices leave axes.
  size_t ellipses = 0, at = 0;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].is_object() && parts[i].type() == script::builtin_types().ellipsis.get()) ++ellipses, at = i;
  if (ellipses > 1) raise(ExcKind::IndexError, "an index can only have a single ellipsis ('...')");
  if (ellipses == 1) {
    parts.erase(parts.begin() + static_cast<long>(at));
    size_t fill = parts.size() < static_cast<size_t>(a.ndim()) ? a.ndim() - parts.size() : 0;
    for (size_t k = 0; k < fill; ++k)
      parts.insert(parts.begin() + static_cast<long>(at), Value(std::make_shared<script::SliceObject>()));
  }
  if (static_cast<int>(parts.size()) > a.ndim())
    raise(ExcKind::IndexError, "too many indices for array: array is " + std::to_string(a.ndim()) +
                                   "-dimensional, but " + std::to_string(parts.size()) + " were indexed");
  std::vector<runtime::AxisSelect> sel;
  for (size_t d = 0; d < parts.size(); ++d) {
    int64_t n = a.shape()[d];
    if (auto* s = parts[d].as<script::SliceObject>()) {
      sel.push_back(slice_select(interp, *s, n));
    } else if (parts[d].is_integral()) {
      sel.push_back({true, normalize_index(parts[d].as_int(), n, static_cast<int>(d)), 1, 1});
    } else {
      raise(ExcKind::IndexError, "not supported yet: indexing arrays with " + Interpreter::type_name(parts[d]) +
                                     " (only integers and slices)");
    }
  }
  return sel;
}

Value reduce_method(Interpreter& interp, runtime::ReduceOp op, const Value& arr, const Value& axis,
                    const Value& keepdims) {
  NDArrayRef a = to_array(interp, arr);
  std::optional<int> ax;
  if (!axis.is_none()) {
    if (!axis.is_integral()) raise(ExcKind::TypeError, "not supported yet: reducing over a tuple of axes");
    ax = static_cast<int>(axis.as_int());
  }
  return array_or_scalar(guard_array([&] { return runtime::reduce(op, *a, ax, interp.truthy(keepdims)); }));
}

void def_binary(TypeObject& t, const char* name, BinaryOp op, bool reflected) {
  t.def(name, "self, other", [op, reflected](Interpreter& interp, Args& a) -> Value {
    if (!is_array_operand(a[1])) return script::not_implemented_value();
    return reflected ? array_binary(interp, op, a[1], a[0]) : array_binary(interp, op, a[0], a[1]);
  });
}

// Whether NumPy's 'same_kind' casting allows `from` -> `to`: never to a lower kind
// (float -> int, int -> uint, anything but bool -> bool). ml_dtypes gives float8_e4m3fn the
// kind 'V', which NumPy ranks below every number kind, so only casts to it from itself pass;
// float8_e5m2 has kind 'f' (ml_dtypes' GetCustomFloatDescrProto).
bool same_kind_castable(DataType from, DataType to) {
  auto rank = [](DataType t) {
    return t.code == DataType::Code::Float8E4M3FN ? -1 : t.is_bool() ? 0 : t.is_uint() ? 1 : t.is_int() ? 2 : 3;
  };
  return from == to || rank(from) <= rank(to);
}

// `a op= b` on an array (NumPy's `ufunc(a, b, out=a)`): the result is computed as for
// `a op b`, must keep a's shape and cast back to a's dtype by 'same_kind', and is written
// into a's memory, so every name for the array (and every view of it) sees it.
void def_inplace(TypeObject& t, const char* name, BinaryOp op, const char* ufunc) {
  t.def(name, "self, other", [op, ufunc](Interpreter& interp, Args& a) -> Value {
    if (!is_array_operand(a[1])) return script::not_implemented_value();
    NDArray& self = self_array(a);
    NDArrayRef result = binary_result(interp, op, a[0], a[1]);
    if (result->shape() != self.shape()) {
      raise(ExcKind::ValueError,
            "non-broadcastable output operand with shape " + runtime::compact_shape_string(self.shape()) +
                " doesn't match the broadcast shape " + runtime::compact_shape_string(result->shape()));
    }
    if (!same_kind_castable(result->dtype(), self.dtype())) {
      raise(ExcKind::TypeError, fmt::format("Cannot cast ufunc '{}' output from {} to {} with casting rule 'same_kind'",
                                            ufunc, dtype_repr(result->dtype()), dtype_repr(self.dtype())));
    }
    guard_array([&] {
      runtime::assign(self, {}, *result);
      return 0;
    });
    return a[0];
  });
}

// The ints of `f(*dims)` or `f(dims)`.
std::vector<int64_t> int_list(Interpreter& interp, Args& a) {
  std::vector<Value> items = a.varargs();
  if (items.size() == 1 && (items[0].as<script::List>() || items[0].as<script::Tuple>()))
    items = interp.to_vector(items[0]);
  std::vector<int64_t> out;
  for (const auto& v : items) out.push_back(index_value(v));
  return out;
}

NDArrayRef reshape(const NDArrayRef& ref, std::vector<int64_t> dims) {
  const NDArray& a = *ref;
  int64_t known = 1, unknown = -1;
  bool too_big = false;  // a product past int64 cannot be the array's size
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown >= 0) raise(ExcKind::ValueError, "can only specify one unknown dimension");
      unknown = static_cast<int64_t>(i);
    } else {
      too_big |= __builtin_mul_overflow(known, dims[i], &known);
    }
  }
  if (!too_big && unknown >= 0 && known > 0 && a.size() % known == 0) dims[unknown] = a.size() / known;
  if (too_big || runtime::shape_size(dims) != a.size() || (unknown >= 0 && dims[unknown] < 0))
    raise(ExcKind::ValueError, "cannot reshape array of size " + std::to_string(a.size()) + " into shape " +
                                   runtime::compact_shape_string(dims));
  return runtime::reshape_view(ref, dims);  // a view, as NumPy's, where the array is dense
}

Value to_list(const NDArray& a, int axis, int64_t base) {
  if (axis == a.ndim()) {
    if (a.dtype().is_bool()) return Value::boolean(a.get_i(base) != 0);
    if (a.dtype().is_float()) return Value::real(a.get_f(base));
    return Value::integer(a.get_i(base));
  }
  int64_t stride = 1;
  for (int d = axis + 1; d < a.ndim(); ++d) stride *= a.shape()[d];
  std::vector<Value> items;
  for (int64_t i = 0; i < a.shape()[axis]; ++i) items.push_back(to_list(a, axis + 1, base + i * stride));
  return script::make_list(std::move(items));
}

void install_common(TypeObject& t, bool tvm) {
  t.def_property("shape", [](Interpreter&, const Value& v) {
    std::vector<Value> dims;
    for (int64_t d : v.as<ArrayValue>()->array->shape()) dims.push_back(Value::integer(d));
    return script::make_tuple(std::move(dims));
  });
  t.def_property("dtype", [tvm](Interpreter&, const Value& v) -> Value {
    DataType d = v.as<ArrayValue>()->array->dtype();
    if (tvm) return script::make_str(dtype_name(d));  // TVM's NDArray.dtype is a str
    return Value(std::make_shared<DTypeValue>(d, false));
  });
  t.def_property("ndim",
                 [](Interpreter&, const Value& v) { return Value::integer(v.as<ArrayValue>()->array->ndim()); });
  t.def_property("size",
                 [](Interpreter&, const Value& v) { return Value::integer(v.as<ArrayValue>()->array->size()); });
  t.def("__len__", "self", [](Interpreter&, Args& a) {
    const NDArray& arr = any_array(a);
    if (arr.ndim() == 0) raise(ExcKind::TypeError, "len() of unsized object");
    return Value::integer(arr.shape()[0]);
  });
}

TypeRef make_numpy_type() {  // function-length: table (one def per script name)
  auto t = std::make_shared<TypeObject>("ndarray");
  t->set_module("numpy");
  install_common(*t, false);
  t->def_property("T", [](Interpreter&, const Value& v) {
    const NDArrayRef& a = v.as<ArrayValue>()->array;
    std::vector<int> axes;
    for (int d = a->ndim(); d-- > 0;) axes.push_back(d);
    return wrap_array(runtime::transpose_view(a, axes));
  });
  t->def("__str__", "self", [](Interpreter&, Args& a) { return script::make_str(array_str(self_array(a))); });
  t->def_property("itemsize", [](Interpreter&, const Value& v) {
    return Value::integer(runtime::element_bytes(v.as<ArrayValue>()->array->dtype()));
  });
  t->def_property("nbytes", [](Interpreter&, const Value& v) {
    return Value::integer(static_cast<int64_t>(v.as<ArrayValue>()->array->nbytes()));
  });
  def_binary(*t, "__add__", BinaryOp::Add, false);
  def_binary(*t, "__radd__", BinaryOp::Add, true);
  def_binary(*t, "__sub__", BinaryOp::Sub, false);
  def_binary(*t, "__rsub__", BinaryOp::Sub, true);
  def_binary(*t, "__mul__", BinaryOp::Mul, false);
  def_binary(*t, "__rmul__", BinaryOp::Mul, true);
  def_binary(*t, "__truediv__", BinaryOp::TrueDiv, false);
  def_binary(*t, "__rtruediv__", BinaryOp::TrueDiv, true);
  def_binary(*t, "__floordiv__", BinaryOp::FloorDiv, false);
  def_binary(*t, "__rfloordiv__", BinaryOp::FloorDiv, true);
  def_binary(*t, "__mod__", BinaryOp::Mod, false);
  def_binary(*t, "__rmod__", BinaryOp::Mod, true);
  def_binary(*t, "__pow__", BinaryOp::Pow, false);
  def_binary(*t, "__rpow__", BinaryOp::Pow, true);
  def_inplace(*t, "__iadd__", BinaryOp::Add, "add");
  def_inplace(*t, "__isub__", BinaryOp::Sub, "subtract");
  def_inplace(*t, "__imul__", BinaryOp::Mul, "multiply");
  def_inplace(*t, "__itruediv__", BinaryOp::TrueDiv, "divide");
  def_inplace(*t, "__ifloordiv__", BinaryOp::FloorDiv, "floor_divide");
  def_inplace(*t, "__imod__", BinaryOp::Mod, "remainder");
  def_inplace(*t, "__ipow__", BinaryOp::Pow, "power");
  def_inplace(*t, "__iand__", BinaryOp::And, "bitwise_and");
  def_inplace(*t, "__ior__", BinaryOp::Or, "bitwise_or");
  def_binary(*t, "__lt__", BinaryOp::LT, false);
  def_binary(*t, "__le__", BinaryOp::LE, false);
  def_binary(*t, "__gt__", BinaryOp::GT, false);
  def_binary(*t, "__ge__", BinaryOp::GE, false);
  def_binary(*t, "__eq__", BinaryOp::EQ, false);
  def_binary(*t, "__ne__", BinaryOp::NE, false);
  def_binary(*t, "__and__", BinaryOp::And, false);
  def_binary(*t, "__or__", BinaryOp::Or, false);
  t->def("__matmul__", "self, other", [](Interpreter& interp, Args& a) {
    return array_or_scalar(guard_array([&] { return runtime::matmul(self_array(a), *to_array(interp, a[1])); }));
  });
  t->def("__rmatmul__", "self, other", [](Interpreter& interp, Args& a) {
    return array_or_scalar(guard_array([&] { return runtime::matmul(*to_array(interp, a[1]), self_array(a)); }));
  });
  t->def("__neg__", "self",
         [](Interpreter&, Args& a) { return wrap_array(runtime::unary(runtime::UnaryOp::Neg, self_array(a))); });
  t->def("__pos__", "self", [](Interpreter&, Args& a) { return wrap_array(self_array(a).copy()); });
  t->def("__abs__", "self",
         [](Interpreter&, Args& a) { return wrap_array(runtime::unary(runtime::UnaryOp::Abs, self_array(a))); });
  t->def("__bool__", "self", [](Interpreter&, Args& a) {
    const NDArray& arr = self_array(a);
    if (arr.size() != 1)
      raise(ExcKind::ValueError,
            "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
    return Value::boolean(arr.get_f(0) != 0);
  });
  t->def("__float__", "self", [](Interpreter&, Args& a) {
    const NDArray& arr = self_array(a);
    if (arr.size() != 1) raise(ExcKind::TypeError, "only length-1 arrays can be converted to Python scalars");
    return Value::real(arr.get_f(0));
  });
  t->def("__int__", "self", [](Interpreter&, Args& a) {
    const NDArray& arr = self_array(a);
    if (arr.size() != 1) raise(ExcKind::TypeError, "only length-1 arrays can be converted to Python scalars");
    return Value::integer(arr.dtype().is_float() ? static_cast<int64_t>(arr.get_f(0)) : arr.get_i(0));
  });
  // Basic indexing gives a view, as NumPy's: `b = a[0]; b[...] = 0` clears a's first row.
  t->def("__getitem__", "self, key", [](Interpreter& interp, Args& a) {
    const NDArrayRef& arr = a[0].as<ArrayValue>()->array;
    std::vector<size_t> new_axes;
    auto sel = parse_index(interp, *arr, a[1], &new_axes);
    NDArrayRef part = runtime::view(arr, sel);
    if (!new_axes.empty()) part = runtime::expand_dims_view(part, new_axes);
    if (part->ndim() == 0) return array_or_scalar(part);
    return Value(std::make_shared<ArrayValue>(part, a[0].as<ArrayValue>()->is_tvm));
  });
  t->def("__setitem__", "self, key, value", [](Interpreter& interp, Args& a) {
    NDArray& arr = self_array(a);
    std::vector<size_t> new_axes;
    auto sel = parse_index(interp, arr, a[1], &new_axes);
    NDArrayRef v = to_array(interp, a[2], a[2].is_number() ? std::optional<DataType>(arr.dtype()) : std::nullopt);
    if (!new_axes.empty()) {
      // Through the view the key selects (its new axes of size 1 broadcast the value).
      NDArrayRef target = runtime::expand_dims_view(runtime::view(self_ref(a), sel), new_axes);
      guard_array([&] {
        runtime::assign(*target, {}, *v);
        return 0;
      });
      return Value();
    }
    guard_array([&] {
      runtime::assign(arr, sel, *v);
      return 0;
    });
    return Value();
  });
  t->def("__iter__", "self", [](Interpreter& interp, Args& a) {
    auto arr = a[0].as<ArrayValue>()->array;
    if (arr->ndim() == 0) raise(ExcKind::TypeError, "iteration over a 0-d array");
    std::vector<Value> rows;
    for (int64_t i = 0; i < arr->shape()[0]; ++i) {
      NDArrayRef row = runtime::view(arr, {{true, i, 1, 1}});
      rows.push_back(row->ndim() == 0 ? array_or_scalar(row) : Value(std::make_shared<ArrayValue>(row, false)));
    }
    return Value(interp.iter(script::make_list(std::move(rows))));
  });
  t->def("astype", "self, dtype",
         [](Interpreter& interp, Args& a) { return wrap_array(self_array(a).astype(dtype_arg(interp, a[1]))); });
  t->def("copy", "self", [](Interpreter&, Args& a) { return wrap_array(self_array(a).copy()); });
  // reshape, ravel and transpose give views (writes through them reach the array); flatten
  // always copies, as NumPy's.
  t->def("reshape", "self, *shape",
         [](Interpreter& interp, Args& a) { return wrap_array(reshape(self_ref(a), int_list(interp, a))); });
  t->def("flatten", "self", [](Interpreter&, Args& a) { return wrap_array(reshape(self_array(a).copy(), {-1})); });
  t->def("ravel", "self", [](Interpreter&, Args& a) { return wrap_array(reshape(self_ref(a), {-1})); });
  t->def("transpose", "self, *axes", [](Interpreter& interp, Args& a) {
    const NDArrayRef& arr = self_ref(a);
    std::vector<int64_t> given = int_list(interp, a);
    std::vector<int> axes;
    if (given.empty())
      for (int d = arr->ndim(); d-- > 0;) axes.push_back(d);
    else
      for (int64_t x : given) axes.push_back(static_cast<int>(x));
    return wrap_array(guard_array([&] { return runtime::transpose_view(arr, axes); }));
  });
  t->def("tolist", "self", [](Interpreter&, Args& a) { return to_list(self_array(a), 0, 0); });
  t->def("item", "self", [](Interpreter&, Args& a) {
    const NDArray& arr = self_array(a);
    if (arr.size() != 1) raise(ExcKind::ValueError, "can only convert an array of size 1 to a Python scalar");
    return to_list(arr, arr.ndim(), 0);
  });
  t->def("fill", "self, value", [](Interpreter& interp, Args& a) {
    NDArray& arr = self_array(a);
    runtime::assign(arr, {}, *to_array(interp, a[1], arr.dtype()));
    return Value();
  });
  struct Reduction {
    const char* name;
    runtime::ReduceOp op;
  };
  for (Reduction r : {Reduction{"sum", runtime::ReduceOp::Sum},
                      {"max", runtime::ReduceOp::Max},
                      {"min", runtime::ReduceOp::Min},
                      {"mean", runtime::ReduceOp::Mean},
                      {"argmax", runtime::ReduceOp::ArgMax},
                      {"argmin", runtime::ReduceOp::ArgMin},
                      {"prod", runtime::ReduceOp::Prod}}) {
    runtime::ReduceOp op = r.op;
    t->def(r.name, "self, axis=None, keepdims=False",
           [op](Interpreter& interp, Args& a) { return reduce_method(interp, op, a[0], a[1], a[2]); });
  }
  return t;
}

TypeRef make_tvm_type() {
  auto t = std::make_shared<TypeObject>("NDArray");
  t->set_module("tvm.nd");
  install_common(*t, true);
  auto to_numpy = [](Interpreter&, Args& a) {
    return wrap_array(guard_core([&] { return runtime::to_host(any_array(a)); }));
  };
  t->def("numpy", "self", to_numpy,
         "numpy(): a copy of the data as a numpy.ndarray (from the device for a GPU array).");
  t->def("asnumpy", "self", to_numpy, "asnumpy(): the older name of numpy().");
  t->def_property("device",
                  [](Interpreter&, const Value& v) { return wrap_device(v.as<ArrayValue>()->array->device()); });
  t->def("copyfrom", "self, source", [](Interpreter& interp, Args& a) {
    NDArray& dst = any_array(a);
    NDArrayRef src = to_array(interp, a[1]);
    if (src->shape() != dst.shape())
      raise(ExcKind::ValueError, "array shape do not match the shape of NDArray " +
                                     runtime::shape_string(src->shape()) + " vs " + runtime::shape_string(dst.shape()));
    if (src->dtype() != dst.dtype() || !src->is_dense()) src = src->astype(dst.dtype());
    guard_core([&] {
      runtime::copy_array(*src, dst);
      return 0;
    });
    return a[0];
  });
  t->def("copyto", "self, target", [](Interpreter& interp, Args& a) -> Value {
    const NDArray& src = any_array(a);
    auto* dst = a[1].as<ArrayValue>();
    if (!dst) {  // a device: a copy there
      runtime::Device dev = device_arg(interp, a[1]);
      return wrap_array(guard_core([&] {
                          runtime::NDArrayRef out = runtime::make_device_array(src.dtype(), src.shape(), dev);
                          runtime::copy_array(src, *out);
                          return out;
                        }),
                        true);
    }
    if (src.shape() != dst->array->shape() || src.dtype() != dst->array->dtype())
      raise(ExcKind::ValueError, "copyto: shape or dtype mismatch");
    guard_core([&] {
      runtime::copy_array(src, *dst->array);
      return 0;
    });
    return a[1];
  });
  return t;
}

}  // namespace

bool is_array_operand(const Value& v) {
  return v.is_number() || v.as<ArrayValue>() || v.as<Float8ScalarValue>() || v.as<script::List>() ||
         v.as<script::Tuple>();
}

TypeRef numpy_ndarray_type() {
  static TypeRef t = make_numpy_type();
  return t;
}

TypeRef tvm_ndarray_type() {
  static TypeRef t = make_tvm_type();
  return t;
}

TypeObject* ArrayValue::type() const { return is_tvm ? tvm_ndarray_type().get() : numpy_ndarray_type().get(); }

std::string ArrayValue::repr_hook(Interpreter&) {
  if (!is_tvm) return array_repr(*array);
  NDArrayRef host = array->on_host() ? array : guard_core([&] { return runtime::to_host(*array); });
  return "<tvm.nd.NDArray shape=" + runtime::shape_string(array->shape()) + ", " + array->device().str() + ">\n" +
         array_repr(*host);
}

Value wrap_array(NDArrayRef a, bool tvm) { return Value(std::make_shared<ArrayValue>(std::move(a), tvm)); }

Value array_or_scalar(NDArrayRef a) {
  if (a->ndim() != 0) return wrap_array(std::move(a));
  if (a->dtype().is_float8()) return Value(std::make_shared<Float8ScalarValue>(a->copy()));
  return numpy_scalar(*a);
}

DataType dtype_arg(Interpreter& interp, const Value& v) {
  if (auto* d = v.as<DTypeValue>()) return d->dtype;
  if (auto t = numpy_scalar_class_dtype(v)) return *t;
  if (auto* s = v.as<script::Str>()) {
    std::string name = s->value == "float" ? "float64" : s->value == "int" ? "int64" : s->value;
    if (is_other_ml_dtype(name))
      raise(ExcKind::NotImplementedError,
            "not supported yet: arrays of dtype '" + name +
                "' (of ml_dtypes' types, tsch's arrays hold float8_e4m3fn and float8_e5m2)");
    auto t = DataType::parse(name);
    if (!t || !runtime::is_array_dtype(*t)) raise(ExcKind::TypeError, "data type '" + s->value + "' not understood");
    return *t;
  }
  if (auto* t = v.as<TypeObject>()) {
    if (t->name() == "float") return DataType::float_(64);
    if (t->name() == "int") return DataType::int64();
    if (t->name() == "bool") return DataType::bool_();
  }
  raise(ExcKind::TypeError, "data type " + interp.repr(v) + " not understood");
}

NDArrayRef to_array(Interpreter& interp, const Value& v, std::optional<DataType> dtype) {
  if (auto* f8 = v.as<Float8ScalarValue>())
    return dtype && *dtype != f8->value->dtype() ? f8->value->astype(*dtype) : f8->value;
  if (auto* arr = v.as<ArrayValue>()) {
    // A GPU array's elements come to the host (np.asarray(nd) does as much in TVM).
    if (!arr->array->on_host()) {
      NDArrayRef host = guard_core([&] { return runtime::to_host(*arr->array); });
      return dtype && *dtype != host->dtype() ? host->astype(*dtype) : host;
    }
    if (dtype && *dtype != arr->array->dtype()) return arr->array->astype(*dtype);
    return arr->array;
  }
  if (auto t = numpy_scalar_dtype(v)) {
    auto own = scalar_array(v, *t);
    return dtype && *dtype != *t ? own->astype(*dtype) : own;
  }
  if (v.is_number()) return scalar_array(v, dtype ? *dtype : scalar_dtype(v, nullptr));
  Shape shape;
  NestKinds kinds;
  nested_shape(interp, v, 0, shape, kinds);
  if (!dtype) dtype = float8_nest_dtype(v);
  // NumPy's inference: empty or any float -> float64, all bools -> bool, else int64; NumPy
  // scalars keep their dtypes, promoted with the Python numbers' (np.array([np.float32(1)]) is
  // float32).
  DataType python = kinds.any_float || runtime::shape_size(shape) == 0 ? DataType::float_(64)
                    : kinds.all_bool                                   ? DataType::bool_()
                                                                       : DataType::int64();
  DataType t = dtype              ? *dtype
               : !kinds.scalars   ? python
               : kinds.any_python ? runtime::promote(*kinds.scalars, python)
                                  : *kinds.scalars;
  auto out = runtime::make_array(t, shape);
  int64_t pos = 0;
  fill_nested(v, *out, pos);
  return out;
}

Shape shape_arg(Interpreter& interp, const Value& v) {
  Shape shape;
  if (v.is_integral()) {
    shape.push_back(v.as_int());
  } else {
    for (const auto& d : interp.to_vector(v)) shape.push_back(index_value(d));
  }
  for (int64_t d : shape)
    if (d < 0) raise(ExcKind::ValueError, "negative dimensions are not allowed");
  return shape;
}

Value array_binary(Interpreter& interp, BinaryOp op, const Value& x, const Value& y) {
  return array_or_scalar(binary_result(interp, op, x, y));
}

NDArrayRef binary_result(Interpreter& interp, BinaryOp op, const Value& x, const Value& y) {
  // The dtype a Python number meets: an array's, or a float8 scalar's (NumPy's scalars are
  // strong, so they type the weak Python number as an array does).
  auto typed = [](const Value& v) -> std::optional<DataType> {
    if (auto* arr = v.as<ArrayValue>()) return arr->array->dtype();
    if (auto* f8 = v.as<Float8ScalarValue>()) return f8->value->dtype();
    return numpy_scalar_dtype(v);
  };
  std::optional<DataType> dx = typed(x), dy = typed(y);
  const DataType* tx = dx ? &*dx : nullptr;
  const DataType* ty = dy ? &*dy : nullptr;
  // NumPy 2 compares a Python int with any integer, in range or not (np.uint8(1) < -1 is
  // False): an int that the other dtype cannot hold is compared as int64.
  auto weak = [&](const Value& v, const DataType* other) {
    DataType t = scalar_dtype(v, other);
    bool comparison = op == BinaryOp::LT || op == BinaryOp::LE || op == BinaryOp::GT || op == BinaryOp::GE ||
                      op == BinaryOp::EQ || op == BinaryOp::NE;
    if (comparison && v.is_int() && !python_int_fits(v.as_int(), t)) t = DataType::int64();
    return scalar_array(v, t);
  };
  NDArrayRef a = is_weak_number(x) ? weak(x, ty) : to_array(interp, x);
  NDArrayRef b = is_weak_number(y) ? weak(y, tx) : to_array(interp, y);
  DataType result = runtime::promote(a->dtype(), b->dtype());
  if (op == BinaryOp::TrueDiv && !result.is_float()) result = DataType::float_(64);
  if (op == BinaryOp::Sub && result.is_bool())
    raise(ExcKind::TypeError, "numpy boolean subtract, the `-` operator, is not supported");
  return guard_array([&] { return runtime::binary(op, *a, *b, result); });
}

}  // namespace tsch::bindings
