// Array arithmetic behind the built-in numpy: broadcasting elementwise operations,
// reductions, matmul, transposes and strided selections. Errors are std::invalid_argument
// with NumPy's wording; the numpy binding turns them into ValueError.
#pragma once

#include <optional>

#include "runtime/ndarray.h"

namespace tsch::runtime {

enum class BinaryOp { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, Max, Min, EQ, NE, LT, LE, GT, GE, And, Or };
enum class UnaryOp { Neg, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Floor, Ceil, Not };
enum class ReduceOp { Sum, Max, Min, Mean, ArgMax, ArgMin, Prod };

// NumPy's result type for two array dtypes (a float8 one as ml_dtypes' ufunc loops resolve).
ir::DataType promote(ir::DataType a, ir::DataType b);
Shape broadcast_shapes(const Shape& a, const Shape& b);

NDArrayRef binary(BinaryOp op, const NDArray& a, const NDArray& b, ir::DataType result);
NDArrayRef unary(UnaryOp op, const NDArray& a);
// axis: nullopt reduces everything.
NDArrayRef reduce(ReduceOp op, const NDArray& a, std::optional<int> axis, bool keepdims);
// Matmul: NumPy's matmul ufunc; Dot: np.dot, which differs only for a float8 pair (ml_dtypes'
// dot function: float32 sums, a float8 result; matmul gives float32).
enum class MatmulKind { Matmul, Dot };
NDArrayRef matmul(const NDArray& a, const NDArray& b, MatmulKind kind = MatmulKind::Matmul);
NDArrayRef transpose(const NDArray& a, const std::vector<int>& axes);
// Copies `a` broadcast to `shape`.
NDArrayRef broadcast_to(const NDArray& a, const Shape& shape);

// One axis of a basic index: a single position (the axis disappears) or a strided range.
struct AxisSelect {
  bool single = false;
  int64_t start = 0, step = 1, count = 0;
};
NDArrayRef select(const NDArray& a, const std::vector<AxisSelect>& sel);
// The selection as a view sharing `a`'s memory (NumPy's basic indexing).
NDArrayRef view(const NDArrayRef& a, const std::vector<AxisSelect>& sel);
// Views sharing `a`'s memory, as NumPy gives them: the axes permuted (a.T, a.transpose());
// axes of size 1 inserted before the given output positions (a[None], a[:, np.newaxis]); a
// new shape of the same size (a.reshape, a.ravel) — a view of a dense array, a copy of a
// strided one (which NumPy also copies when no strides fit). std::invalid_argument for bad
// axes.
NDArrayRef transpose_view(const NDArrayRef& a, const std::vector<int>& axes);
NDArrayRef expand_dims_view(const NDArrayRef& a, const std::vector<size_t>& positions);
NDArrayRef reshape_view(const NDArrayRef& a, const Shape& shape);
// Writes `value` (broadcast to the selection's shape) into the selection.
void assign(NDArray& a, const std::vector<AxisSelect>& sel, const NDArray& value);

}  // namespace tsch::runtime
