#include "support/float8.h"

#include <cmath>

namespace tsch::support {

const Float8Layout& float8_layout(Float8Format format) {
  static const Float8Layout e4m3fn{3, 7, false, 0x7e, 0x7f, 0x7f};
  static const Float8Layout e5m2{2, 15, true, 0x7b, 0x7e, 0x7c};
  return format == Float8Format::E4M3FN ? e4m3fn : e5m2;
}

uint8_t float8_from_double(double value, Float8Format format) {
  const Float8Layout& f = float8_layout(format);
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value)) return sign | f.nan;
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return sign | f.infinity;
  int min_exponent = 1 - f.exponent_bias;
  int m = f.mantissa_bits;
  if (magnitude < std::ldexp(1.0, min_exponent)) {
    // Subnormal (or zero): a count of the smallest subnormal, rounded to even. A count of
    // 2^m is the smallest normal number, whose encoding is the next one up.
    return sign | static_cast<uint8_t>(std::nearbyint(std::ldexp(magnitude, m - min_exponent)));
  }
  int exponent = std::ilogb(magnitude);                                      // magnitude = 1.f * 2^exponent
  double significand = std::nearbyint(std::ldexp(magnitude, m - exponent));  // in [2^m, 2^(m+1)]
  if (significand == std::ldexp(1.0, m + 1)) {
    significand = std::ldexp(1.0, m);
    ++exponent;
  }
  long code = (static_cast<long>(exponent + f.exponent_bias) << m) | (static_cast<long>(significand) - (1L << m));
  if (code > f.max_finite) return sign | f.infinity;
  return sign | static_cast<uint8_t>(code);
}

double float8_to_double(uint8_t bits, Float8Format format) {
  const Float8Layout& f = float8_layout(format);
  int m = f.mantissa_bits;
  uint8_t magnitude = bits & 0x7f;
  int exponent = magnitude >> m, mantissa = magnitude & ((1 << m) - 1);
  double value;
  if (format == Float8Format::E4M3FN && magnitude == 0x7f) {
    value = NAN;
  } else if (f.has_infinity && exponent == (1 << (7 - m)) - 1) {
    value = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    value = std::ldexp(mantissa, 1 - f.exponent_bias - m);
  } else {
    value = std::ldexp((1 << m) + mantissa, exponent - f.exponent_bias - m);
  }
  return bits & 0x80 ? -value : value;
}

}  // namespace tsch::support
