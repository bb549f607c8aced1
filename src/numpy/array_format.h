// NumPy-style text of arrays: repr (`array([[1., 2.]], dtype=float32)`) and str
// (`[[1. 2.]]`), with NumPy's float formatting (shortest unique digits, at most 8 after the
// point, aligned columns, scientific notation for wide ranges) and summarization of large arrays.
#pragma once

#include <string>

#include "runtime/ndarray.h"

namespace tsch::bindings {

std::string array_repr(const runtime::NDArray& a);
std::string array_str(const runtime::NDArray& a);
// One element as NumPy prints a scalar of that dtype (e.g. "0.1", "3", "True").
std::string scalar_text(const runtime::NDArray& a, int64_t i);
// The name NumPy uses for a dtype ("float32", "bool", "float8_e4m3fn", ...).
std::string dtype_name(ir::DataType t);
// repr(np.dtype(t)): "dtype('float32')"; ml_dtypes' user dtypes print their type's name
// unquoted, "dtype(float8_e4m3fn)" (NumPy's _dtype._scalar_str, isbuiltin == 2).
std::string dtype_repr(ir::DataType t);
// str() and repr() of an ml_dtypes float8 scalar: the value as a float through C++'s `<<`
// (6 significant digits, as "%g"), NaN without its sign: "1", "2.5", "0.00195312", "nan".
std::string float8_scalar_text(double value);

}  // namespace tsch::bindings
