// NumPy's scalar types (numpy.float32, numpy.int64, numpy.bool, ...) in scripts: numbers that
// carry their dtype (script::Value::numpy_dtype), so every consumer of numbers takes them as
// it takes Python's, while type(), printing and the operators behave as NumPy 2's. They come
// from indexing an array down to one element, reductions and np.float32(x).
#pragma once

#include <optional>

#include "runtime/ndarray.h"
#include "script/interpreter.h"

namespace tsch::bindings {

// Whether NumPy scalars of `t` are tagged numbers (not float8: Float8ScalarValue).
bool has_numpy_scalar(ir::DataType t);
// The dtype of a NumPy scalar; nullopt for a plain number or any other value.
std::optional<ir::DataType> numpy_scalar_dtype(const script::Value& v);
// Element `i` of `a` as a NumPy scalar of a's dtype (has_numpy_scalar(a.dtype())).
script::Value numpy_scalar(const runtime::NDArray& a, int64_t i = 0);
// NumPy 2's str and repr: `0.1`, `np.float32(0.1)`, `np.True_`.
std::string numpy_scalar_str(const script::Value& v);
std::string numpy_scalar_repr(const script::Value& v);
// numpy.float32 & co. as script types: what type() of a scalar gives, callable as NumPy's
// constructor (np.float32(x)), so `type(x) is np.float32` and isinstance work.
script::TypeRef numpy_scalar_class(ir::DataType t);
// The dtype of such a class (np.float32 -> float32); nullopt for any other value.
std::optional<ir::DataType> numpy_scalar_class_dtype(const script::Value& v);
// np.float32(value) & co.: a number, a NumPy scalar or an array of one element converted,
// text read as Python's float()/int()/bool() read it.
script::Value construct_numpy_scalar(script::Interpreter& interp, ir::DataType t, const script::Value& value);

// A Python int meeting an integer dtype must fit it (NumPy 2: "Python integer 1000 out of
// bounds for int8"); false where it does not.
bool python_int_fits(int64_t value, ir::DataType t);

}  // namespace tsch::bindings
