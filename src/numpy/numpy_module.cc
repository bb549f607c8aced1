// The built-in `numpy` module: array creation, elementwise math with broadcasting,
// reductions, matmul, numpy.random (MT19937, seeded as NumPy's legacy RandomState so
// np.random.seed(0); np.random.rand() gives NumPy's numbers), numpy.testing, and .npy files.
#include <cmath>
#include <random>

#include "numpy/array_format.h"
#include "numpy/ndarray_value.h"
#include "numpy/numpy_modules.h"
#include "numpy/numpy_scalar.h"
#include "runtime/npy_io.h"
#include "script/modules.h"
#include "values/relax_values.h"

namespace tsch::bindings {

using ir::DataType;
using runtime::BinaryOp;
using runtime::NDArray;
using runtime::NDArrayRef;
using runtime::Shape;
using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using tsch::intern;

namespace {

// NumPy's legacy RandomState: MT19937 plus its double and Gaussian recipes.
struct RandomState {
  std::mt19937 mt{5489u};
  bool has_gauss = false;
  double gauss = 0;

  void seed(uint32_t s) {
    mt.seed(s);
    has_gauss = false;
  }
  double next_double() {
    uint32_t a = mt() >> 5, b = mt() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }
  double next_gauss() {
    if (has_gauss) {
      has_gauss = false;
      return gauss;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * next_double() - 1.0;
      x2 = 2.0 * next_double() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss = f * x1;
    has_gauss = true;
    return f * x2;
  }
  // A uniform integer in [0, range] by masked rejection, as NumPy's legacy randint.
  uint64_t bounded(uint64_t range) {
    if (range == 0) return 0;
    uint64_t mask = range;
    for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
    for (;;) {
      uint64_t v = range <= 0xffffffffu ? (mt() & mask) : ((static_cast<uint64_t>(mt()) << 32 | mt()) & mask);
      if (v <= range) return v;
    }
  }
};

RandomState& rng() {
  static RandomState state;
  return state;
}

// Shape from `size=` (None: a scalar) or from varargs dims (rand(2, 3)).
std::optional<Shape> size_arg(Interpreter& interp, const Value& v) {
  if (v.is_none()) return std::nullopt;
  return shape_arg(interp, v);
}

Shape dims_from_varargs(Interpreter& interp, Args& a) {
  Shape s;
  for (const auto& v : a.varargs()) {
    if (!v.is_integral())
      raise(ExcKind::TypeError, "'" + Interpreter::type_name(v) + "' object cannot be interpreted as an integer");
    if (v.as_int() < 0) raise(ExcKind::ValueError, "negative dimensions are not allowed");
    s.push_back(v.as_int());
  }
  (void)interp;
  return s;
}

template <typename F>
Value random_array(std::optional<Shape> shape, DataType t, F&& draw) {
  auto out = runtime::make_array(t, shape ? *shape : Shape{});
  for (int64_t i = 0; i < out->size(); ++i) {
    if (t.is_float())
      out->set_f(i, draw());
    else
      out->set_i(i, static_cast<int64_t>(draw()));
  }
  return array_or_scalar(out);
}

Value filled(Interpreter& interp, const Value& shape, const Value& dtype, double value, DataType dflt) {
  DataType t = dtype.is_none() ? dflt : dtype_arg(interp, dtype);
  auto out = runtime::make_array(t, shape_arg(interp, shape));
  if (value != 0)
    for (int64_t i = 0; i < out->size(); ++i) out->set_f(i, value);
  return wrap_array(out);
}

void def_unary(Namespace& ns, const char* name, runtime::UnaryOp op) {
  script::def_function(ns, name, "x", [op](Interpreter& interp, Args& a) {
    return array_or_scalar(runtime::unary(op, *to_array(interp, a[0])));
  });
}

void def_binary(Namespace& ns, const char* name, BinaryOp op) {
  script::def_function(ns, name, "x1, x2",
                       [op](Interpreter& interp, Args& a) { return array_binary(interp, op, a[0], a[1]); });
}

void def_reduce(Namespace& ns, const char* name, runtime::ReduceOp op) {
  script::def_function(ns, name, "a, axis=None, keepdims=False", [op, name](Interpreter& interp, Args& a) {
    return interp.call(interp.get_attr(wrap_array(to_array(interp, a[0])), intern(name)),
                       std::vector<Value>{a[1], a[2]});
  });
}

// NumPy's assert_allclose report: mismatch count, largest differences, both arrays.
void assert_allclose(Interpreter& interp, Args& a, const char* fn) {
  NDArrayRef actual = to_array(interp, a[0]), desired = to_array(interp, a[1]);
  double rtol = a.get_float(2), atol = a.get_float(3);
  bool equal_nan = interp.truthy(a[4]);
  std::string header =
      "\nNot equal to tolerance rtol=" + interp.repr(Value::real(rtol)) + ", atol=" + interp.repr(Value::real(atol));
  if (a.given(5)) header = "\n" + interp.str(a[5]) + header;
  Shape shape = guard_array([&] { return runtime::broadcast_shapes(actual->shape(), desired->shape()); });
  if ((actual->shape() != desired->shape()) && !(actual->ndim() == 0 || desired->ndim() == 0)) {
    raise(ExcKind::AssertionError, header + "\n\n(shapes " + runtime::shape_string(actual->shape()) + ", " +
                                       runtime::shape_string(desired->shape()) +
                                       " mismatch)\n x: " + array_repr(*actual) + "\n y: " + array_repr(*desired));
  }
  NDArrayRef x = runtime::broadcast_to(*actual, shape), y = runtime::broadcast_to(*desired, shape);
  int64_t bad = 0;
  double max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < x->size(); ++i) {
    double u = x->get_f(i), v = y->get_f(i);
    bool ok;
    if (std::isnan(u) || std::isnan(v))
      ok = equal_nan && std::isnan(u) && std::isnan(v);
    else if (std::isinf(u) || std::isinf(v))
      ok = u == v;
    else
      ok = std::fabs(u - v) <= atol + rtol * std::fabs(v);
    if (ok) continue;
    ++bad;
    double d = std::fabs(u - v);
    if (!std::isnan(d)) {
      max_abs = std::max(max_abs, d);
      if (v != 0)
        max_rel = std::max(max_rel, d / std::fabs(v));
      else
        max_rel = INFINITY;
    }
  }
  if (bad == 0) return;
  char pct[64];
  std::snprintf(pct, sizeof pct, "%.3g", 100.0 * bad / x->size());
  std::string msg = header + "\n\nMismatched elements: " + std::to_string(bad) + " / " + std::to_string(x->size()) +
                    " (" + pct + "%)\nMax absolute difference among violations: " + interp.repr(Value::real(max_abs)) +
                    "\nMax relative difference among violations: " + interp.repr(Value::real(max_rel)) +
                    "\n ACTUAL: " + array_repr(*actual) + "\n DESIRED: " + array_repr(*desired);
  (void)fn;
  raise(ExcKind::AssertionError, msg);
}

void build_random(Interpreter&, script::Module& m) {
  Namespace& ns = *m.globals;
  script::def_function(ns, "seed", "seed=None", [](Interpreter&, Args& a) {
    int64_t s = a[0].is_none() ? static_cast<int64_t>(std::random_device{}()) : a.get_int(0);
    if (s < 0 || s > 0xffffffffLL) raise(ExcKind::ValueError, "Seed must be between 0 and 2**32 - 1");
    rng().seed(static_cast<uint32_t>(s));
    return Value();
  });
  script::def_function(ns, "rand", "*shape", [](Interpreter& interp, Args& a) {
    Shape s = dims_from_varargs(interp, a);
    return random_array(a.varargs().empty() ? std::nullopt : std::optional<Shape>(s), DataType::float_(64),
                        [] { return rng().next_double(); });
  });
  script::def_function(ns, "randn", "*shape", [](Interpreter& interp, Args& a) {
    Shape s = dims_from_varargs(interp, a);
    return random_array(a.varargs().empty() ? std::nullopt : std::optional<Shape>(s), DataType::float_(64),
                        [] { return rng().next_gauss(); });
  });
  auto sample = [](Interpreter& interp, Args& a) {
    return random_array(size_arg(interp, a[0]), DataType::float_(64), [] { return rng().next_double(); });
  };
  script::def_function(ns, "random", "size=None", sample);
  script::def_function(ns, "random_sample", "size=None", sample);
  script::def_function(ns, "uniform", "low=0.0, high=1.0, size=None", [](Interpreter& interp, Args& a) {
    double lo = a.get_float(0), hi = a.get_float(1);
    return random_array(size_arg(interp, a[2]), DataType::float_(64),
                        [lo, hi] { return lo + (hi - lo) * rng().next_double(); });
  });
  script::def_function(ns, "normal", "loc=0.0, scale=1.0, size=None", [](Interpreter& interp, Args& a) {
    double loc = a.get_float(0), scale = a.get_float(1);
    return random_array(size_arg(interp, a[2]), DataType::float_(64),
                        [loc, scale] { return loc + scale * rng().next_gauss(); });
  });
  script::def_function(ns, "randint", "low, high=None, size=None, dtype='int64'", [](Interpreter& interp, Args& a) {
    int64_t lo = a.get_int(0), hi = a[1].is_none() ? lo : a.get_int(1);
    if (a[1].is_none()) lo = 0;
    if (lo >= hi) raise(ExcKind::ValueError, "low >= high");
    DataType t = dtype_arg(interp, a[3]);
    uint64_t range = static_cast<uint64_t>(hi - lo - 1);
    return random_array(size_arg(interp, a[2]), t,
                        [lo, range] { return static_cast<double>(lo + static_cast<int64_t>(rng().bounded(range))); });
  });
}

void build_testing(Interpreter&, script::Module& m) {
  Namespace& ns = *m.globals;
  script::def_function(ns, "assert_allclose",
                       "actual, desired, rtol=1e-07, atol=0, equal_nan=True, err_msg=None, verbose=True",
                       [](Interpreter& interp, Args& a) {
                         assert_allclose(interp, a, "assert_allclose");
                         return Value();
                       });
  auto exact = [](Interpreter& interp, Args& a) {
    NDArrayRef x = to_array(interp, a[0]), y = to_array(interp, a[1]);
    bool same = x->shape() == y->shape();
    for (int64_t i = 0; same && i < x->size(); ++i)
      same = x->get_f(i) == y->get_f(i) || (std::isnan(x->get_f(i)) && std::isnan(y->get_f(i)));
    if (!same)
      raise(ExcKind::AssertionError, "\nArrays are not equal\n x: " + array_repr(*x) + "\n y: " + array_repr(*y));
    return Value();
  };
  script::def_function(ns, "assert_equal", "actual, desired, err_msg=None", exact);
  script::def_function(ns, "assert_array_equal", "actual, desired, err_msg=None", exact);
}

void build_numpy(Interpreter& interp, script::Module& m) {  // function-length: table (one def per script name)
  Namespace& ns = *m.globals;
  struct Named {
    const char* name;
    DataType t;
  };
  for (Named n : {Named{"float16", DataType::float_(16)},
                  {"float32", DataType::float32()},
                  {"float64", DataType::float_(64)},
                  {"int8", DataType::int_(8)},
                  {"int16", DataType::int_(16)},
                  {"int32", DataType::int32()},
                  {"int64", DataType::int64()},
                  {"uint8", DataType::uint(8)},
                  {"uint16", DataType::uint(16)},
                  {"uint32", DataType::uint(32)},
                  {"uint64", DataType::uint(64)},
                  {"bool_", DataType::bool_()},
                  {"double", DataType::float_(64)},
                  {"single", DataType::float32()},
                  {"half", DataType::float_(16)}}) {
    ns.set(intern(n.name), Value(numpy_scalar_class(n.t)));
  }
  ns.set(intern("bool"), *ns.find(intern("bool_")));
  for (bool b : {false, true}) {
    auto scalar = runtime::make_array(DataType::bool_(), {});
    scalar->set_i(0, b);
    ns.set(intern(b ? "True_" : "False_"), numpy_scalar(*scalar));
  }
  ns.set(intern("ndarray"), Value(numpy_ndarray_type()));
  ns.set(intern("pi"), Value::real(M_PI));
  ns.set(intern("e"), Value::real(M_E));
  ns.set(intern("inf"), Value::real(INFINITY));
  ns.set(intern("nan"), Value::real(NAN));
  ns.set(intern("newaxis"), Value());  // NumPy's newaxis is None
  ns.set(intern("__version__"), script::make_str("2.0.0-tsch"));
  script::def_function(ns, "dtype", "name", [](Interpreter& interp, Args& a) {
    return Value(std::make_shared<DTypeValue>(dtype_arg(interp, a[0]), false));
  });
  auto array_fn = [](Interpreter& interp, Args& a) {
    std::optional<DataType> t;
    if (!a[1].is_none()) t = dtype_arg(interp, a[1]);
    NDArrayRef arr = to_array(interp, a[0], t);
    return wrap_array(arr->copy());
  };
  script::def_function(ns, "array", "object, dtype=None", array_fn);
  script::def_function(ns, "asarray", "a, dtype=None", [](Interpreter& interp, Args& a) {
    std::optional<DataType> t;
    if (!a[1].is_none()) t = dtype_arg(interp, a[1]);
    if (auto* arr = a[0].as<ArrayValue>(); arr && !arr->is_tvm && (!t || *t == arr->array->dtype())) return a[0];
    return wrap_array(to_array(interp, a[0], t)->copy());
  });
  script::def_function(ns, "zeros", "shape, dtype=None", [](Interpreter& interp, Args& a) {
    return filled(interp, a[0], a[1], 0, DataType::float_(64));
  });
  script::def_function(ns, "empty", "shape, dtype=None", [](Interpreter& interp, Args& a) {
    return filled(interp, a[0], a[1], 0, DataType::float_(64));
  });
  script::def_function(ns, "ones", "shape, dtype=None", [](Interpreter& interp, Args& a) {
    return filled(interp, a[0], a[1], 1, DataType::float_(64));
  });
  script::def_function(ns, "full", "shape, fill_value, dtype=None", [](Interpreter& interp, Args& a) {
    DataType dflt = a[1].is_float() ? DataType::float_(64) : a[1].is_bool() ? DataType::bool_() : DataType::int64();
    DataType t = a[2].is_none() ? dflt : dtype_arg(interp, a[2]);
    auto out = runtime::make_array(t, shape_arg(interp, a[0]));
    // np.full copies the value in with an array cast; into float8 that rounds through float32
    // (ml_dtypes' casts), where storing a Python float into one element rounds it directly.
    runtime::assign(*out, {}, *(t.is_float8() ? to_array(interp, a[1]) : to_array(interp, a[1], t)));
    return wrap_array(out);
  });
  auto like = [](double value) {
    return [value](Interpreter& interp, Args& a) {
      NDArrayRef src = to_array(interp, a[0]);
      DataType t = a[1].is_none() ? src->dtype() : dtype_arg(interp, a[1]);
      auto out = runtime::make_array(t, src->shape());
      if (value != 0)
        for (int64_t i = 0; i < out->size(); ++i) out->set_f(i, value);
      return wrap_array(out);
    };
  };
  script::def_function(ns, "zeros_like", "a, dtype=None", like(0));
  script::def_function(ns, "empty_like", "a, dtype=None", like(0));
  script::def_function(ns, "ones_like", "a, dtype=None", like(1));
  script::def_function(ns, "arange", "start, stop=None, step=None, dtype=None", [](Interpreter& interp, Args& a) {
    Value start = a[0], stop = a[1], step = a[2];
    if (stop.is_none()) {
      stop = start;
      start = Value::integer(0);
    }
    if (step.is_none()) step = Value::integer(1);
    bool fl = start.is_float() || stop.is_float() || step.is_float();
    DataType t = a[3].is_none() ? (fl ? DataType::float_(64) : DataType::int64()) : dtype_arg(interp, a[3]);
    double s0 = start.as_float(), s1 = stop.as_float(), st = step.as_float();
    if (st == 0) raise(ExcKind::ZeroDivisionError, "division by zero");
    double count = std::ceil((s1 - s0) / st);
    if (std::isnan(count)) raise(ExcKind::ValueError, "arange: cannot compute length");
    if (count > 9.0e18) raise(ExcKind::ValueError, "Maximum allowed size exceeded");
    int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
    auto out = runtime::make_array(t, {n});
    for (int64_t i = 0; i < n; ++i) {
      if (!fl && !t.is_float())
        out->set_i(i, start.as_int() + i * step.as_int());
      else
        out->set_f(i, s0 + i * st);
    }
    return wrap_array(out);
  });
  script::def_function(
      ns, "linspace", "start, stop, num=50, endpoint=True, dtype=None", [](Interpreter& interp, Args& a) {
        double s0 = a.get_float(0), s1 = a.get_float(1);
        int64_t n = a.get_int(2);
        if (n < 0) raise(ExcKind::ValueError, "Number of samples, " + std::to_string(n) + ", must be non-negative.");
        bool endpoint = interp.truthy(a[3]);
        DataType t = a[4].is_none() ? DataType::float_(64) : dtype_arg(interp, a[4]);
        auto out = runtime::make_array(t, {n});
        double div = endpoint ? n - 1 : n;
        for (int64_t i = 0; i < n; ++i) out->set_f(i, div > 0 ? s0 + (s1 - s0) * i / div : s0);
        return wrap_array(out);
      });
  script::def_function(ns, "reshape", "a, newshape", [](Interpreter& interp, Args& a) {
    return interp.call(interp.get_attr(wrap_array(to_array(interp, a[0])), intern("reshape")),
                       std::vector<Value>{a[1]});
  });
  script::def_function(ns, "transpose", "a, axes=None", [](Interpreter& interp, Args& a) {
    Value arr = wrap_array(to_array(interp, a[0]));
    std::vector<Value> args;
    if (!a[1].is_none()) args.push_back(a[1]);
    return interp.call(interp.get_attr(arr, intern("transpose")), std::move(args));
  });
  auto mm = [](Interpreter& interp, Args& a) {
    return array_or_scalar(
        guard_array([&] { return runtime::matmul(*to_array(interp, a[0]), *to_array(interp, a[1])); }));
  };
  script::def_function(ns, "matmul", "x1, x2", mm);
  script::def_function(ns, "dot", "a, b", [](Interpreter& interp, Args& a) {
    if (a[0].is_number() || a[1].is_number()) return array_binary(interp, BinaryOp::Mul, a[0], a[1]);
    return array_or_scalar(guard_array(
        [&] { return runtime::matmul(*to_array(interp, a[0]), *to_array(interp, a[1]), runtime::MatmulKind::Dot); }));
  });
  def_binary(ns, "add", BinaryOp::Add);
  def_binary(ns, "subtract", BinaryOp::Sub);
  def_binary(ns, "multiply", BinaryOp::Mul);
  def_binary(ns, "divide", BinaryOp::TrueDiv);
  def_binary(ns, "true_divide", BinaryOp::TrueDiv);
  def_binary(ns, "floor_divide", BinaryOp::FloorDiv);
  def_binary(ns, "mod", BinaryOp::Mod);
  def_binary(ns, "power", BinaryOp::Pow);
  def_binary(ns, "maximum", BinaryOp::Max);
  def_binary(ns, "minimum", BinaryOp::Min);
  def_binary(ns, "equal", BinaryOp::EQ);
  def_binary(ns, "not_equal", BinaryOp::NE);
  def_binary(ns, "less", BinaryOp::LT);
  def_binary(ns, "greater", BinaryOp::GT);
  def_unary(ns, "negative", runtime::UnaryOp::Neg);
  def_unary(ns, "abs", runtime::UnaryOp::Abs);
  def_unary(ns, "absolute", runtime::UnaryOp::Abs);
  def_unary(ns, "exp", runtime::UnaryOp::Exp);
  def_unary(ns, "log", runtime::UnaryOp::Log);
  def_unary(ns, "sqrt", runtime::UnaryOp::Sqrt);
  def_unary(ns, "tanh", runtime::UnaryOp::Tanh);
  def_unary(ns, "floor", runtime::UnaryOp::Floor);
  def_unary(ns, "ceil", runtime::UnaryOp::Ceil);
  def_unary(ns, "logical_not", runtime::UnaryOp::Not);
  def_reduce(ns, "sum", runtime::ReduceOp::Sum);
  def_reduce(ns, "max", runtime::ReduceOp::Max);
  def_reduce(ns, "amax", runtime::ReduceOp::Max);
  def_reduce(ns, "min", runtime::ReduceOp::Min);
  def_reduce(ns, "amin", runtime::ReduceOp::Min);
  def_reduce(ns, "mean", runtime::ReduceOp::Mean);
  def_reduce(ns, "argmax", runtime::ReduceOp::ArgMax);
  def_reduce(ns, "argmin", runtime::ReduceOp::ArgMin);
  def_reduce(ns, "prod", runtime::ReduceOp::Prod);
  // np.clip(a, a_min, a_max): maximum then minimum (either bound may be None, not both).
  script::def_function(ns, "clip", "a, a_min, a_max", [](Interpreter& interp, Args& a) {
    if (a[1].is_none() && a[2].is_none()) raise(ExcKind::ValueError, "One of max or min must be given");
    Value out = a[0].is_number() ? a[0] : wrap_array(to_array(interp, a[0]));
    if (!a[1].is_none()) out = array_binary(interp, BinaryOp::Max, out, a[1]);
    if (!a[2].is_none()) out = array_binary(interp, BinaryOp::Min, out, a[2]);
    return out;
  });
  // np.outer(a, b): a flattened as a column times b flattened as a row.
  script::def_function(ns, "outer", "a, b", [](Interpreter& interp, Args& a) {
    NDArrayRef x = to_array(interp, a[0]), y = to_array(interp, a[1]);
    auto as_shape = [&](const NDArrayRef& arr, bool column) {
      Value flat = wrap_array(arr);
      std::vector<Value> dims = column ? std::vector<Value>{Value::integer(arr->size()), Value::integer(1)}
                                       : std::vector<Value>{Value::integer(1), Value::integer(arr->size())};
      return interp.call(interp.get_attr(flat, intern("reshape")),
                         std::vector<Value>{script::make_tuple(std::move(dims))});
    };
    return array_binary(interp, BinaryOp::Mul, as_shape(x, true), as_shape(y, false));
  });
  script::def_function(ns, "where", "condition, x, y", [](Interpreter& interp, Args& a) {
    NDArrayRef c = to_array(interp, a[0]);
    NDArrayRef x = to_array(interp, a[1]), y = to_array(interp, a[2]);
    DataType t = runtime::promote(x->dtype(), y->dtype());
    Shape s = guard_array(
        [&] { return runtime::broadcast_shapes(runtime::broadcast_shapes(c->shape(), x->shape()), y->shape()); });
    NDArrayRef cb = runtime::broadcast_to(*c, s), xb = runtime::broadcast_to(*x->astype(t), s),
               yb = runtime::broadcast_to(*y->astype(t), s);
    auto out = runtime::make_array(t, s);
    for (int64_t i = 0; i < out->size(); ++i) {
      const NDArray& src = cb->get_f(i) != 0 ? *xb : *yb;
      if (t.is_float())
        out->set_f(i, src.get_f(i));
      else
        out->set_i(i, src.get_i(i));
    }
    return array_or_scalar(out);
  });
  script::def_function(ns, "allclose", "a, b, rtol=1e-05, atol=1e-08", [](Interpreter& interp, Args& a) {
    NDArrayRef x = to_array(interp, a[0]), y = to_array(interp, a[1]);
    Shape s = guard_array([&] { return runtime::broadcast_shapes(x->shape(), y->shape()); });
    NDArrayRef xb = runtime::broadcast_to(*x, s), yb = runtime::broadcast_to(*y, s);
    double rtol = a.get_float(2), atol = a.get_float(3);
    for (int64_t i = 0; i < xb->size(); ++i)
      if (!(std::fabs(xb->get_f(i) - yb->get_f(i)) <= atol + rtol * std::fabs(yb->get_f(i))))
        return Value::boolean(false);
    return Value::boolean(true);
  });
  script::def_function(ns, "array_equal", "a1, a2", [](Interpreter& interp, Args& a) {
    NDArrayRef x = to_array(interp, a[0]), y = to_array(interp, a[1]);
    if (x->shape() != y->shape()) return Value::boolean(false);
    for (int64_t i = 0; i < x->size(); ++i)
      if (x->get_f(i) != y->get_f(i)) return Value::boolean(false);
    return Value::boolean(true);
  });
  script::def_function(ns, "save", "file, arr", [](Interpreter& interp, Args& a) {
    std::string path = a.get_path(0);
    if (path.size() < 4 || path.substr(path.size() - 4) != ".npy") path += ".npy";
    NDArrayRef arr = to_array(interp, a[1]);
    if (arr->dtype().is_float8())
      raise(ExcKind::NotImplementedError,
            "not supported yet: saving an array of dtype " + dtype_name(arr->dtype()) + " to .npy");
    try {
      runtime::save_npy(path, *arr);
    } catch (const runtime::NpyError& e) {
      raise(ExcKind::OSError, e.what());
    }
    return Value();
  });
  script::def_function(ns, "load", "file", [](Interpreter&, Args& a) {
    try {
      return wrap_array(runtime::load_npy(a.get_path(0)));
    } catch (const runtime::NpyError& e) {
      raise(e.format ? ExcKind::ValueError : ExcKind::OSError, e.what());
    }
  });
  ns.set(intern("random"), Value(interp.modules().import(interp, "numpy.random", "")));
  ns.set(intern("testing"), Value(interp.modules().import(interp, "numpy.testing", "")));
}

}  // namespace

void register_numpy_module() {
  // numpy / tvm.nd arrays are Relax constants (R.const(array), a call's argument): the Relax
  // values below this folder take them through this hook.
  set_array_constant_hook([](const Value& v) -> std::shared_ptr<runtime::NDArray> {
    auto* arr = v.as<ArrayValue>();
    return arr ? arr->array->copy() : nullptr;
  });
  script::ModuleLoader::register_builtin("numpy", build_numpy);
  script::ModuleLoader::register_builtin("numpy.random", build_random);
  script::ModuleLoader::register_builtin("numpy.testing", build_testing);
}

}  // namespace tsch::bindings
