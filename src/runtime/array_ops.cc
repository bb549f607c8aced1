#include "runtime/array_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "runtime/float8_element.h"
#include "runtime/thread_pool.h"

// The matmul kernel's attributes: cloned per ISA (GCC, the release build), or kept out of the
// sanitizers' instrumentation (clang, the sanitizer build; clang cannot combine the two).
#if defined(__clang__)
#define TSCH_GEMM_KERNEL __attribute__((no_sanitize("address", "undefined", "coverage")))
#else
#define TSCH_GEMM_KERNEL __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

namespace tsch::runtime {

using ir::DataType;

namespace {

// NumPy's result for a float8 dtype `f` against another array dtype `o`. ml_dtypes registers
// its ufunc loops for (f, f) only, with safe casts bool/int8/uint8 -> f and f -> float32 /
// float64; NumPy's legacy type resolver then takes the first loop both operands cast to
// safely: f's own when `o` casts to f, else float32 ('ff'; float16, int16, uint16 and the other
// float8 cast to it), else float64 ('dd').
DataType promote_float8(DataType f, DataType o) {
  if (o == f || o.is_bool() || ((o.is_int() || o.is_uint()) && o.bits == 8)) return f;
  bool fits_float32 = o.is_float8() || (o.is_float() && o.bits <= 32) || ((o.is_int() || o.is_uint()) && o.bits == 16);
  return fits_float32 ? DataType::float32() : DataType::float_(64);
}

}  // namespace

DataType promote(DataType a, DataType b) {
  if (a.is_float8()) return promote_float8(a, b);
  if (b.is_float8()) return promote_float8(b, a);
  if (a == b) return a;
  if (a.is_bool()) return b;
  if (b.is_bool()) return a;
  if (a.is_float() && b.is_float()) return a.bits >= b.bits ? a : b;
  if (a.is_float() || b.is_float()) {
    DataType f = a.is_float() ? a : b, i = a.is_float() ? b : a;
    // NumPy: an integer needs a float wide enough to hold it (int8→float16, int16→float32, else float64).
    int need = i.bits <= 8 ? 16 : i.bits <= 16 ? 32 : 64;
    return DataType::float_(std::max(f.bits, need));
  }
  if (a.is_int() == b.is_int()) return a.bits >= b.bits ? a : b;
  DataType s = a.is_int() ? a : b, u = a.is_int() ? b : a;
  if (s.bits > u.bits) return s;
  return u.bits >= 64 ? DataType::float_(64) : DataType::int_(u.bits * 2);
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      throw std::invalid_argument("operands could not be broadcast together with shapes " + compact_shape_string(a) +
                                  " " + compact_shape_string(b));
    out[i] = x == 1 ? y : x;
  }
  return out;
}

namespace {

// Element strides of `shape` seen through the broadcast `out` shape (0 on broadcast axes).
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    size_t i = shape.size() - 1 - k, o = out.size() - 1 - k;
    strides[o] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

// Calls f(out_index, offset_a, offset_b) over the broadcast iteration space.
template <typename F>
void for_each_broadcast(const Shape& out, const std::vector<int64_t>& sa, const std::vector<int64_t>& sb, F&& f) {
  int64_t total = shape_size(out);
  size_t n = out.size();
  std::vector<int64_t> idx(n, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < total; ++i) {
    f(i, oa, ob);
    for (size_t d = n; d-- > 0;) {
      if (++idx[d] < out[d]) {
        oa += sa[d];
        ob += sb[d];
        break;
      }
      oa -= sa[d] * (out[d] - 1);
      ob -= sb[d] * (out[d] - 1);
      idx[d] = 0;
    }
  }
}

// Comparisons and logical operators, the same for float and integer operands.
template <typename T>
bool compare(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::EQ:
      return x == y;
    case BinaryOp::NE:
      return x != y;
    case BinaryOp::LT:
      return x < y;
    case BinaryOp::LE:
      return x <= y;
    case BinaryOp::GT:
      return x > y;
    case BinaryOp::GE:
      return x >= y;
    case BinaryOp::And:
      return (x != 0) && (y != 0);
    case BinaryOp::Or:
      return (x != 0) || (y != 0);
    default:
      return false;
  }
}

double apply_f(BinaryOp op, double x, double y) {
  switch (op) {
    case BinaryOp::Add:
      return x + y;
    case BinaryOp::Sub:
      return x - y;
    case BinaryOp::Mul:
      return x * y;
    case BinaryOp::TrueDiv:
      return x / y;
    case BinaryOp::FloorDiv:
      return std::floor(x / y);
    case BinaryOp::Mod: {
      double r = std::fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    }
    case BinaryOp::Pow:
      return std::pow(x, y);
    case BinaryOp::Max:
      return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
    case BinaryOp::Min:
      return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
    case BinaryOp::EQ:
    case BinaryOp::NE:
    case BinaryOp::LT:
    case BinaryOp::LE:
    case BinaryOp::GT:
    case BinaryOp::GE:
    case BinaryOp::And:
    case BinaryOp::Or:
      return compare(op, x, y);
  }
  return 0;
}

int64_t apply_i(BinaryOp op, int64_t x, int64_t y) {
  switch (op) {
    case BinaryOp::Add:
      return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
    case BinaryOp::Sub:
      return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
    case BinaryOp::Mul:
      return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
    case BinaryOp::FloorDiv: {
      if (y == 0) return 0;  // NumPy warns and yields 0
      int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
      return q;
    }
    case BinaryOp::Mod: {
      if (y == 0) return 0;
      int64_t r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    }
    case BinaryOp::Pow: {
      if (y < 0) throw std::invalid_argument("Integers to negative integer powers are not allowed.");
      // By squaring, wrapping on overflow as NumPy's integers do.
      uint64_t r = 1, base = static_cast<uint64_t>(x);
      for (uint64_t e = static_cast<uint64_t>(y); e; e >>= 1, base *= base)
        if (e & 1) r *= base;
      return static_cast<int64_t>(r);
    }
    case BinaryOp::Max:
      return std::max(x, y);
    case BinaryOp::Min:
      return std::min(x, y);
    case BinaryOp::EQ:
    case BinaryOp::NE:
    case BinaryOp::LT:
    case BinaryOp::LE:
    case BinaryOp::GT:
    case BinaryOp::GE:
    case BinaryOp::And:
    case BinaryOp::Or:
      return compare(op, x, y);
    case BinaryOp::TrueDiv:
      break;
  }
  return 0;
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::EQ || op == BinaryOp::NE || op == BinaryOp::LT || op == BinaryOp::LE || op == BinaryOp::GT ||
         op == BinaryOp::GE || op == BinaryOp::And || op == BinaryOp::Or;
}

}  // namespace

namespace {

// The common case at full speed: dense float32/float64 operands of the result's type, of one
// shape (or one of them a single element), under + - * /. The same arithmetic as the
// general path (one IEEE operation in the result type), without per-element dispatch.
template <typename T>
void fast_binary(BinaryOp op, const T* x, int64_t sx, const T* y, int64_t sy, T* out, int64_t n) {
  switch (op) {
    case BinaryOp::Add:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i * sx] + y[i * sy];
      break;
    case BinaryOp::Sub:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i * sx] - y[i * sy];
      break;
    case BinaryOp::Mul:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i * sx] * y[i * sy];
      break;
    case BinaryOp::TrueDiv:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i * sx] / y[i * sy];
      break;
    default:
      break;
  }
}

bool try_fast_binary(BinaryOp op, const NDArray& a, const NDArray& b, DataType result, const Shape& out_shape,
                     NDArray& out) {
  if (op != BinaryOp::Add && op != BinaryOp::Sub && op != BinaryOp::Mul && op != BinaryOp::TrueDiv) return false;
  if (!result.is_float() || (result.bits != 32 && result.bits != 64) || result.lanes != 1) return false;
  if (!(a.dtype() == result) || !(b.dtype() == result) || !a.is_dense() || !b.is_dense()) return false;
  int64_t n = shape_size(out_shape), na = shape_size(a.shape()), nb = shape_size(b.shape());
  if ((na != n && na != 1) || (nb != n && nb != 1)) return false;
  int64_t sx = na == 1 ? 0 : 1, sy = nb == 1 ? 0 : 1;
  if (result.bits == 32) {
    fast_binary(op, static_cast<const float*>(a.data()), sx, static_cast<const float*>(b.data()), sy,
                static_cast<float*>(out.data()), n);
  } else {
    fast_binary(op, static_cast<const double*>(a.data()), sx, static_cast<const double*>(b.data()), sy,
                static_cast<double*>(out.data()), n);
  }
  return true;
}

}  // namespace

NDArrayRef binary(BinaryOp op, const NDArray& a, const NDArray& b, DataType result) {
  Shape out_shape = broadcast_shapes(a.shape(), b.shape());
  if (!is_comparison(op)) {
    auto out = make_array(result, out_shape);
    if (try_fast_binary(op, a, b, result, out_shape, *out)) return out;
  }
  // Comparisons compute in the operands' common type; arithmetic in the result type.
  DataType compute = is_comparison(op) ? promote(a.dtype(), b.dtype()) : result;
  auto out = make_array(is_comparison(op) ? DataType::bool_() : result, out_shape);
  auto sa = broadcast_strides(a.shape(), out_shape), sb = broadcast_strides(b.shape(), out_shape);
  NDArray& o = *out;
  if (compute.is_float()) {
    // Round through the computation type so float32 results match float32 arithmetic.
    // ml_dtypes' float8 loops compute in float32 and round that to float8 (set_f).
    bool f32 = compute.bits == 32 || compute.is_float8(), f16 = compute.bits == 16;
    for_each_broadcast(out_shape, sa, sb, [&](int64_t i, int64_t ia, int64_t ib) {
      double x = a.get_f(ia), y = b.get_f(ib);
      if (f32) x = static_cast<float>(x), y = static_cast<float>(y);
      double r = apply_f(op, x, y);
      if (f32 && !is_comparison(op)) r = static_cast<float>(r);
      if (f16 && !is_comparison(op)) r = static_cast<double>(static_cast<_Float16>(r));
      o.set_f(i, r);
    });
  } else {
    for_each_broadcast(out_shape, sa, sb,
                       [&](int64_t i, int64_t ia, int64_t ib) { o.set_i(i, apply_i(op, a.get_i(ia), b.get_i(ib))); });
  }
  return out;
}

NDArrayRef unary(UnaryOp op, const NDArray& a) {
  DataType t = a.dtype();
  if (op == UnaryOp::Not)
    t = DataType::bool_();
  else if (op != UnaryOp::Neg && op != UnaryOp::Abs && !t.is_float())
    t = t.bits <= 16 && t.bits > 1 ? DataType::float_(32) : DataType::float_(64);
  auto out = make_array(t, a.shape());
  for (int64_t i = 0; i < a.size(); ++i) {
    if (!t.is_float() && (op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Not)) {
      int64_t x = a.get_i(i);
      out->set_i(i, op == UnaryOp::Neg ? -x : op == UnaryOp::Abs ? (x < 0 ? -x : x) : !x);
      continue;
    }
    double x = a.get_f(i), r = 0;
    switch (op) {
      case UnaryOp::Neg:
        r = -x;
        break;
      case UnaryOp::Abs:
        r = std::fabs(x);
        break;
      case UnaryOp::Exp:
        r = std::exp(x);
        break;
      case UnaryOp::Log:
        r = std::log(x);
        break;
      case UnaryOp::Sqrt:
        r = std::sqrt(x);
        break;
      case UnaryOp::Tanh:
        r = std::tanh(x);
        break;
      case UnaryOp::Sigmoid:
        r = 1 / (1 + std::exp(-x));
        break;
      case UnaryOp::Floor:
        r = std::floor(x);
        break;
      case UnaryOp::Ceil:
        r = std::ceil(x);
        break;
      case UnaryOp::Not:
        r = x == 0;
        break;
    }
    // ml_dtypes' unary float8 loops compute in float32, then round to float8.
    if (t.is_float8()) r = static_cast<float>(r);
    out->set_f(i, r);
  }
  return out;
}

NDArrayRef reduce(ReduceOp op, const NDArray& a, std::optional<int> axis, bool keepdims) {
  const Shape& shape = a.shape();
  int nd = a.ndim();
  if (axis) {
    if (*axis < -nd || *axis >= nd)
      throw std::invalid_argument("axis " + std::to_string(*axis) + " is out of bounds for array of dimension " +
                                  std::to_string(nd));
    if (*axis < 0) *axis += nd;
  }
  int64_t outer = 1, len = a.size(), inner = 1;
  Shape out_shape;
  if (axis) {
    len = shape[*axis];
    for (int d = 0; d < *axis; ++d) outer *= shape[d];
    for (int d = *axis + 1; d < nd; ++d) inner *= shape[d];
    for (int d = 0; d < nd; ++d) {
      if (d != *axis)
        out_shape.push_back(shape[d]);
      else if (keepdims)
        out_shape.push_back(1);
    }
  } else if (keepdims) {
    out_shape.assign(nd, 1);
  }
  bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  if (len == 0 && op != ReduceOp::Sum && op != ReduceOp::Prod && op != ReduceOp::Mean)
    throw std::invalid_argument(arg ? "attempt to get argmax of an empty sequence"
                                    : "zero-size array to reduction operation which has no identity");
  DataType t = a.dtype();
  DataType rt = arg                    ? DataType::int64()
                : op == ReduceOp::Mean ? (t.is_float() ? t : DataType::float_(64))
                : (op == ReduceOp::Sum || op == ReduceOp::Prod) && !t.is_float()
                    ? (t.is_uint() ? DataType::uint(64) : DataType::int64())
                    : t;
  auto out = make_array(rt, out_shape);
  bool fl = t.is_float() || op == ReduceOp::Mean;
  bool float8_accumulator = t.is_float8() && (op == ReduceOp::Sum || op == ReduceOp::Prod || op == ReduceOp::Mean);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * len * inner + in;
      int64_t dst = o * inner + in;
      if (fl) {
        // Accumulate in double: more accurate than NumPy's pairwise float32 sums.
        double acc = op == ReduceOp::Prod ? 1 : 0;
        int64_t best = 0;
        for (int64_t k = 0; k < len; ++k) {
          double x = a.get_f(base + k * inner);
          switch (op) {
            case ReduceOp::Sum:
            case ReduceOp::Mean:
              acc += x;
              break;
            case ReduceOp::Prod:
              acc *= x;
              break;
            case ReduceOp::Max:
              acc = k == 0 || x > acc || std::isnan(x) ? x : acc;
              break;
            case ReduceOp::Min:
              acc = k == 0 || x < acc || std::isnan(x) ? x : acc;
              break;
            case ReduceOp::ArgMax:
              if (k == 0 || x > acc) acc = x, best = k;
              break;
            case ReduceOp::ArgMin:
              if (k == 0 || x < acc) acc = x, best = k;
              break;
          }
          // A float8 sum or product runs ml_dtypes' add / multiply loop along the axis: each
          // partial result is a float32 operation rounded to float8.
          if (float8_accumulator) acc = round_to_float8(static_cast<float>(acc), t);
        }
        // NumPy's mean divides the float8 sum by the count as float64 (an intp count); an axis
        // reduction casts the quotient back into the float8 array (through float32, as every
        // ml_dtypes cast), a full one makes a float8 scalar of it directly.
        if (op == ReduceOp::Mean) acc = len ? acc / len : NAN;
        if (op == ReduceOp::Mean && t.is_float8() && axis) acc = float8_cast_value(acc);
        if (arg)
          out->set_i(dst, best);
        else
          out->set_f(dst, acc);
      } else {
        int64_t acc = op == ReduceOp::Prod ? 1 : 0, best = 0;
        for (int64_t k = 0; k < len; ++k) {
          int64_t x = a.get_i(base + k * inner);
          switch (op) {
            case ReduceOp::Sum:
            case ReduceOp::Mean:
              acc += x;
              break;
            case ReduceOp::Prod:
              acc *= x;
              break;
            case ReduceOp::Max:
              acc = k == 0 || x > acc ? x : acc;
              break;
            case ReduceOp::Min:
              acc = k == 0 || x < acc ? x : acc;
              break;
            case ReduceOp::ArgMax:
              if (k == 0 || x > acc) acc = x, best = k;
              break;
            case ReduceOp::ArgMin:
              if (k == 0 || x < acc) acc = x, best = k;
              break;
          }
        }
        out->set_i(dst, arg ? best : acc);
      }
    }
  }
  return out;
}

namespace {

// C[m×n] += A[m×k] · B[k×n] in double for the rows [i0, i1) of C: each row's segment of C is
// updated from a tile of B (k block × j block, about 1 MB: it stays in cache while every
// row uses it), the inner loop contiguous so it vectorizes. Every element sums its products
// in order of p, so the result does not depend on the blocking or on how rows are split.
// Cloned per ISA so the host's widest vectors are used. Kept out of the sanitizers'
// instrumentation (its indices are those of the shapes matmul checked): instrumented, with
// coverage counters that the pool's threads all write, a 1024^3 product took minutes and the
// fuzzer's seeds that run TVM's GEMM tutorial timed out.
TSCH_GEMM_KERNEL
void gemm_rows(const double* A, const double* B, double* C, int64_t i0, int64_t i1, int64_t n, int64_t k) {
  constexpr int64_t kBlock = 128, jBlock = 1024;
  for (int64_t j0 = 0; j0 < n; j0 += jBlock) {
    int64_t j1 = std::min(n, j0 + jBlock);
    for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
      int64_t k1 = std::min(k, k0 + kBlock);
      for (int64_t i = i0; i < i1; ++i) {
        double* c = C + i * n;
        for (int64_t p = k0; p < k1; ++p) {
          double s = A[i * k + p];
          const double* b = B + p * n;
          for (int64_t j = j0; j < j1; ++j) c[j] += s * b[j];
        }
      }
    }
  }
}

struct GemmArgs {
  const double* A;
  const double* B;
  double* C;
  int64_t n, k;
};

// One task of the thread pool: its share of the rows.
int32_t gemm_task(int64_t task, int64_t num_tasks, void* closure, int64_t begin, int64_t extent) {
  const auto& g = *static_cast<const GemmArgs*>(closure);
  int64_t chunk = (extent + num_tasks - 1) / num_tasks;
  int64_t i0 = begin + task * chunk, i1 = std::min(begin + extent, i0 + chunk);
  if (i0 < i1) gemm_rows(g.A, g.B, g.C, i0, i1, g.n, g.k);
  return 0;
}

// C = A · B; large products split their rows over the thread pool, as NumPy's BLAS uses
// every core (small ones stay on this thread: the pool's hand-off would cost more).
void gemm(const double* A, const double* B, double* C, int64_t m, int64_t n, int64_t k) {
  if (m < 2 || static_cast<double>(m) * n * k < 1e7) {
    gemm_rows(A, B, C, 0, m, n, k);
    return;
  }
  GemmArgs args{A, B, C, n, k};
  tsch_parallel_for(gemm_task, &args, 0, m);
}

std::vector<double> as_doubles(const NDArray& view) {
  NDArrayRef keep;
  const NDArray& a = dense(view, keep);
  std::vector<double> v(a.size());
  if (a.dtype() == DataType::float32()) {
    const float* p = static_cast<const float*>(a.data());
    for (int64_t i = 0; i < a.size(); ++i) v[i] = p[i];
  } else if (a.dtype() == DataType::float_(64)) {
    std::memcpy(v.data(), a.data(), a.nbytes());
  } else {
    for (int64_t i = 0; i < a.size(); ++i) v[i] = a.get_f(i);
  }
  return v;
}

}  // namespace

namespace {

// ml_dtypes' dot function for a float8 pair: each inner product summed in float32 in order,
// rounded to float8 once at the end.
void float8_dot(const NDArray& a, const NDArray& b, const std::vector<std::pair<int64_t, int64_t>>& pairs, int64_t m,
                int64_t n, int64_t k, NDArray& out) {
  for (size_t q = 0; q < pairs.size(); ++q) {
    int64_t a0 = pairs[q].first * m * k, b0 = pairs[q].second * k * n, c0 = static_cast<int64_t>(q) * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += static_cast<float>(a.get_f(a0 + i * k + p)) * static_cast<float>(b.get_f(b0 + p * n + j));
        out.set_f(c0 + i * n + j, acc);
      }
  }
}

}  // namespace

NDArrayRef matmul(const NDArray& a, const NDArray& b, MatmulKind kind) {
  if (a.ndim() == 0 || b.ndim() == 0)
    throw std::invalid_argument("matmul: Input operand does not have enough dimensions");
  // As NumPy: the last two axes hold the matrices (a 1-D operand is a row / column vector
  // whose axis is dropped from the result) and the axes before them broadcast.
  Shape as = a.shape(), bs = b.shape();
  bool a_vector = as.size() == 1, b_vector = bs.size() == 1;
  if (a_vector) as.insert(as.begin(), 1);
  if (b_vector) bs.push_back(1);
  int64_t m = as[as.size() - 2], k = as.back(), kb = bs[bs.size() - 2], n = bs.back();
  if (k != kb) {
    throw std::invalid_argument(
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) "
        "(size " +
        std::to_string(kb) + " is different from " + std::to_string(k) + ")");
  }
  Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  Shape batch = broadcast_shapes(a_batch, b_batch);
  DataType t = promote(a.dtype(), b.dtype());
  if (t.is_bool()) t = DataType::bool_();
  // np.matmul has no float8 loop (ml_dtypes registers only a dot function): NumPy's resolver
  // takes its float32 loop. np.dot uses the dot function and stays float8.
  if (t.is_float8() && kind == MatmulKind::Matmul) t = DataType::float32();
  Shape out_shape = batch;
  if (!a_vector) out_shape.push_back(m);
  if (!b_vector) out_shape.push_back(n);
  auto out = make_array(t, out_shape);
  // Matrix offsets of each batch element in a and b (broadcast axes repeat a matrix).
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for_each_broadcast(batch, broadcast_strides(a_batch, batch), broadcast_strides(b_batch, batch),
                     [&](int64_t, int64_t ia, int64_t ib) { pairs.emplace_back(ia, ib); });
  if (t.is_float8()) {
    NDArrayRef keep_a, keep_b;
    float8_dot(dense(a, keep_a), dense(b, keep_b), pairs, m, n, k, *out);
  } else if (t.is_float()) {
    std::vector<double> A = as_doubles(a), B = as_doubles(b), C(m * n);
    for (size_t q = 0; q < pairs.size(); ++q) {
      std::fill(C.begin(), C.end(), 0.0);
      gemm(A.data() + pairs[q].first * m * k, B.data() + pairs[q].second * k * n, C.data(), m, n, k);
      for (int64_t i = 0; i < m * n; ++i) out->set_f(static_cast<int64_t>(q) * m * n + i, C[i]);
    }
  } else {
    for (size_t q = 0; q < pairs.size(); ++q) {
      int64_t a0 = pairs[q].first * m * k, b0 = pairs[q].second * k * n, c0 = static_cast<int64_t>(q) * m * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t acc = 0;
          for (int64_t p = 0; p < k; ++p) acc += a.get_i(a0 + i * k + p) * b.get_i(b0 + p * n + j);
          out->set_i(c0 + i * n + j, acc);
        }
    }
  }
  return out;
}

NDArrayRef transpose(const NDArray& view, const std::vector<int>& axes) {
  NDArrayRef keep;
  const NDArray& a = dense(view, keep);
  int nd = a.ndim();
  if (static_cast<int>(axes.size()) != nd) throw std::invalid_argument("axes don't match array");
  std::vector<bool> seen(nd, false);
  Shape out_shape(nd);
  std::vector<int64_t> in_strides(nd), strides(nd);
  int64_t s = 1;
  for (int d = nd; d-- > 0;) in_strides[d] = s, s *= a.shape()[d];
  for (int d = 0; d < nd; ++d) {
    int ax = axes[d] < 0 ? axes[d] + nd : axes[d];
    if (ax < 0 || ax >= nd || seen[ax]) throw std::invalid_argument("axes don't match array");
    seen[ax] = true;
    out_shape[d] = a.shape()[ax];
    strides[d] = in_strides[ax];
  }
  auto out = make_array(a.dtype(), out_shape);
  int eb = element_bytes(a.dtype());
  const uint8_t* src = static_cast<const uint8_t*>(a.data());
  uint8_t* dst = static_cast<uint8_t*>(out->data());
  std::vector<int64_t> zero(nd, 0);
  for_each_broadcast(out_shape, strides, zero,
                     [&](int64_t i, int64_t ia, int64_t) { std::memcpy(dst + i * eb, src + ia * eb, eb); });
  return out;
}

NDArrayRef broadcast_to(const NDArray& view, const Shape& shape) {
  NDArrayRef keep;
  const NDArray& a = dense(view, keep);
  Shape b = broadcast_shapes(a.shape(), shape);
  if (b != shape)
    throw std::invalid_argument("could not broadcast input array from shape " + compact_shape_string(a.shape()) +
                                " into shape " + compact_shape_string(shape));
  auto out = make_array(a.dtype(), shape);
  auto sa = broadcast_strides(a.shape(), shape);
  std::vector<int64_t> zero(shape.size(), 0);
  int eb = element_bytes(a.dtype());
  const uint8_t* src = static_cast<const uint8_t*>(a.data());
  uint8_t* dst = static_cast<uint8_t*>(out->data());
  for_each_broadcast(shape, sa, zero,
                     [&](int64_t i, int64_t ia, int64_t) { std::memcpy(dst + i * eb, src + ia * eb, eb); });
  return out;
}

namespace {

// The elements between neighbours along each axis of `a` in its memory.
Shape storage_strides(const NDArray& a) {
  if (!a.is_dense()) return a.strides();
  Shape strides(a.ndim());
  int64_t s = 1;
  for (int d = a.ndim(); d-- > 0;) strides[d] = s, s *= a.shape()[d];
  return strides;
}

// A selection as a view: its first element (in `a`'s storage), shape and strides.
struct SelectionLayout {
  int64_t base = 0;
  Shape shape, strides;
};

SelectionLayout selection_layout(const NDArray& a, const std::vector<AxisSelect>& sel) {
  Shape strides = storage_strides(a);
  SelectionLayout out;
  for (int d = 0; d < a.ndim(); ++d) {
    AxisSelect x = d < static_cast<int>(sel.size()) ? sel[d] : AxisSelect{false, 0, 1, a.shape()[d]};
    out.base += x.start * strides[d];
    if (x.single) continue;
    out.shape.push_back(x.count);
    out.strides.push_back(x.step * strides[d]);
  }
  return out;
}

// Element offsets (in `a`'s storage) of a selection in row-major order, and its shape
// (single axes dropped).
std::vector<int64_t> selection_offsets(const NDArray& a, const std::vector<AxisSelect>& sel, Shape& out_shape) {
  SelectionLayout layout = selection_layout(a, sel);
  out_shape = layout.shape;
  const Shape& full = layout.shape;
  const Shape& step = layout.strides;
  int64_t base = layout.base;
  std::vector<int64_t> offsets(shape_size(full));
  std::vector<int64_t> zero(full.size(), 0);
  for_each_broadcast(full, step, zero, [&](int64_t i, int64_t ia, int64_t) { offsets[i] = base + ia; });
  return offsets;
}

}  // namespace

NDArrayRef select(const NDArray& a, const std::vector<AxisSelect>& sel) {
  Shape out_shape;
  auto offsets = selection_offsets(a, sel, out_shape);
  auto out = make_array(a.dtype(), out_shape);
  int eb = element_bytes(a.dtype());
  const uint8_t* src = static_cast<const uint8_t*>(a.first_element());
  uint8_t* dst = static_cast<uint8_t*>(out->data());
  for (size_t i = 0; i < offsets.size(); ++i) std::memcpy(dst + i * eb, src + offsets[i] * eb, eb);
  return out;
}

NDArrayRef view(const NDArrayRef& a, const std::vector<AxisSelect>& sel) {
  SelectionLayout layout = selection_layout(*a, sel);
  return make_view(a, layout.base, layout.shape, layout.strides);
}

NDArrayRef transpose_view(const NDArrayRef& a, const std::vector<int>& axes) {
  int nd = a->ndim();
  if (static_cast<int>(axes.size()) != nd) throw std::invalid_argument("axes don't match array");
  Shape in_strides = storage_strides(*a), shape(nd), strides(nd);
  std::vector<bool> seen(nd, false);
  for (int d = 0; d < nd; ++d) {
    int ax = axes[d] < 0 ? axes[d] + nd : axes[d];
    if (ax < 0 || ax >= nd || seen[ax]) throw std::invalid_argument("axes don't match array");
    seen[ax] = true;
    shape[d] = a->shape()[ax];
    strides[d] = in_strides[ax];
  }
  return make_view(a, 0, shape, strides);
}

NDArrayRef expand_dims_view(const NDArrayRef& a, const std::vector<size_t>& positions) {
  Shape in_strides = storage_strides(*a), shape, strides;
  size_t next = 0;
  for (size_t out = 0; out < a->shape().size() + positions.size(); ++out) {
    if (std::find(positions.begin(), positions.end(), out) != positions.end()) {
      shape.push_back(1);
      strides.push_back(0);
    } else {
      shape.push_back(a->shape()[next]);
      strides.push_back(in_strides[next++]);
    }
  }
  return make_view(a, 0, shape, strides);
}

NDArrayRef reshape_view(const NDArrayRef& a, const Shape& shape) {
  if (!a->is_dense()) {
    NDArrayRef out = a->copy();
    out->set_shape(shape);
    return out;
  }
  Shape strides(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d];
  }
  return make_view(a, 0, shape, strides);
}

void assign(NDArray& a, const std::vector<AxisSelect>& sel, const NDArray& value) {
  Shape out_shape;
  auto offsets = selection_offsets(a, sel, out_shape);
  NDArrayRef v = value.dtype() == a.dtype() ? nullptr : value.astype(a.dtype());
  NDArrayRef b = broadcast_to(v ? *v : value, out_shape);
  int eb = element_bytes(a.dtype());
  const uint8_t* src = static_cast<const uint8_t*>(b->data());
  uint8_t* dst = static_cast<uint8_t*>(a.first_element());
  for (size_t i = 0; i < offsets.size(); ++i) std::memcpy(dst + offsets[i] * eb, src + i * eb, eb);
}

}  // namespace tsch::runtime
