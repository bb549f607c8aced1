// One element of a float8_e4m3fn or float8_e5m2 array: a byte whose conversions go through
// support/float8, so NDArray's element dispatch (`with_elements`) treats it as any other
// C++ number type. The conversions are ml_dtypes' (what NumPy does with these dtypes once
// TVM has imported ml_dtypes):
//   - from a double: rounded directly (a Python float stored into an element, ml_dtypes'
//     CastToCustomFloat: `T(double)`);
//   - from an integer: through float32 first (`T(static_cast<float>(l))`);
//   - to an integer: through float (`static_cast<To>(static_cast<float>(x))`), which for a
//     float8 value is exact, so through double is the same.
// Array casts (astype) from float64 round through float32 as well; NDArray::astype does
// that step itself (see `float8_cast_value`).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ir/dtype.h"
#include "support/float8.h"

namespace tsch::runtime {

template <support::Float8Format Format>
struct Float8Element {
  uint8_t bits = 0;

  Float8Element() = default;
  explicit Float8Element(double v) : bits(support::float8_from_double(v, Format)) {}
  template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  explicit Float8Element(I v) : bits(support::float8_from_double(static_cast<float>(v), Format)) {}

  explicit operator double() const { return support::float8_to_double(bits, Format); }
  template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  explicit operator I() const {
    return static_cast<I>(support::float8_to_double(bits, Format));
  }
};
static_assert(sizeof(Float8Element<support::Float8Format::E4M3FN>) == 1);

using Float8E4M3FNElement = Float8Element<support::Float8Format::E4M3FN>;
using Float8E5M2Element = Float8Element<support::Float8Format::E5M2>;

inline support::Float8Format float8_format(ir::DataType t) {
  return t.code == ir::DataType::Code::Float8E5M2 ? support::Float8Format::E5M2 : support::Float8Format::E4M3FN;
}

// `v` rounded to the float8 dtype `t` and read back (what storing into an element keeps).
inline double round_to_float8(double v, ir::DataType t) {
  support::Float8Format f = float8_format(t);
  return support::float8_to_double(support::float8_from_double(v, f), f);
}

// What ml_dtypes' array cast (NPyCast: `static_cast<T>(static_cast<float>(from))`) hands the
// float8 conversion: any source value rounded to float32 first.
inline double float8_cast_value(double v) { return static_cast<float>(v); }

}  // namespace tsch::runtime
