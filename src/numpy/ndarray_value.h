// Arrays in scripts: numpy.ndarray and tvm.nd.NDArray share one value class around a
// runtime::NDArray (TVM's arrays convert to and from NumPy's by copying, as in TVM).
#pragma once

#include <optional>

#include "runtime/array_ops.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class ArrayValue : public script::Object {
 public:
  ArrayValue(runtime::NDArrayRef a, bool tvm) : array(std::move(a)), is_tvm(tvm) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;

  runtime::NDArrayRef array;
  bool is_tvm;
};

// A dtype as a script value: `a.dtype`, np.dtype(...), and ml_dtypes' scalar types (callable,
// converting a number; NumPy's own scalar types are classes, bindings/numpy_scalar.h).
class DTypeValue : public script::Object {
 public:
  DTypeValue(ir::DataType t, bool scalar_type) : dtype(t), is_scalar_type(scalar_type) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;

  ir::DataType dtype;
  bool is_scalar_type;  // np.float32 rather than np.dtype('float32')
};

// A scalar of a float8 dtype (ml_dtypes.float8_e4m3fn(...), an element of a float8 array):
// NumPy's other scalars become Python numbers in scripts, but these print as ml_dtypes does
// (`1`, `2.5`, `nan`: C++'s `<<` of the value as a float), so they keep their dtype. They
// compute as 0-d arrays of that dtype.
class Float8ScalarValue : public script::Object {
 public:
  explicit Float8ScalarValue(runtime::NDArrayRef zero_d) : value(std::move(zero_d)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;

  runtime::NDArrayRef value;  // 0-d, a float8 dtype
};

Value wrap_array(runtime::NDArrayRef a, bool tvm = false);
// 0-d arrays become Python scalars, as NumPy's scalars behave in scripts (a float8 one a
// Float8ScalarValue).
Value array_or_scalar(runtime::NDArrayRef a);
// A dtype from "float32", np.float32, a.dtype, or the Python types float/int/bool.
ir::DataType dtype_arg(Interpreter& interp, const Value& v);
// An array from an ndarray (shared, not copied), a number or nested lists/tuples.
runtime::NDArrayRef to_array(Interpreter& interp, const Value& v, std::optional<ir::DataType> dtype = std::nullopt);
// A shape from an int or a sequence of ints.
runtime::Shape shape_arg(Interpreter& interp, const Value& v);
// What an array operator takes as its other operand (else NotImplemented).
bool is_array_operand(const Value& v);
// Elementwise operation with NumPy's promotion (Python scalars take the array's type).
Value array_binary(Interpreter& interp, runtime::BinaryOp op, const Value& x, const Value& y);
// The same as an array, also when it has no dimensions.
runtime::NDArrayRef binary_result(Interpreter& interp, runtime::BinaryOp op, const Value& x, const Value& y);
// Runs an array operation, turning its std::invalid_argument into ValueError.
template <typename F>
auto guard_array(F&& f) -> decltype(f());

script::TypeRef numpy_ndarray_type();
script::TypeRef tvm_ndarray_type();

}  // namespace tsch::bindings

#include "script/exceptions.h"

namespace tsch::bindings {
template <typename F>
auto guard_array(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    script::raise(script::ExcKind::ValueError, e.what());
  }
}
}  // namespace tsch::bindings
