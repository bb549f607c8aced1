// The 8-bit float formats TVM names float8_e4m3fn and float8_e5m2 (OCP FP8, as ml_dtypes
// implements them for NumPy): conversion to and from double, bit-exact with ml_dtypes —
// round to nearest even, subnormals kept, a value past the largest finite one becomes NaN
// (e4m3fn, which has no infinity) or infinity (e5m2). The LLVM code generator emits the
// same rules as IR (codegen/llvm/float8_llvm.cc); the unit tests hold the two together.
#pragma once

#include <cstdint>

namespace tsch::support {

enum class Float8Format : uint8_t { E4M3FN, E5M2 };

// What a format's encoding is made of: sign, exponent and mantissa bits, and its special values.
struct Float8Layout {
  int mantissa_bits;   // 3 / 2
  int exponent_bias;   // 7 / 15
  bool has_infinity;   // e5m2 only
  uint8_t max_finite;  // magnitude bits of the largest finite value: 0x7e (448) / 0x7b (57344)
  uint8_t nan;         // magnitude bits of the NaN conversions produce
  uint8_t infinity;    // magnitude bits of infinity (e5m2), else of NaN
};

const Float8Layout& float8_layout(Float8Format format);
uint8_t float8_from_double(double value, Float8Format format);
double float8_to_double(uint8_t bits, Float8Format format);

}  // namespace tsch::support
