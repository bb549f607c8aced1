#include "numpy/numpy_float_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "script/format.h"

namespace tsch::bindings {

namespace {

struct Decimal {
  std::string digits;  // significant digits, no point
  int exponent = 0;    // of the first digit
};

// The digits and exponent of to_chars' scientific text ("1.5e+20").
Decimal parse_scientific(const char* begin, const char* end) {
  Decimal d;
  const char* p = begin;
  for (; p != end && *p != 'e'; ++p)
    if (*p != '.') d.digits += *p;
  if (p != end) d.exponent = std::atoi(std::string(p + 1, end).c_str());  // to_chars writes no NUL
  return d;
}

// std::to_chars without a precision gives the shortest round trip in T, closest to the value
// among equally short ones: what NumPy's Dragon4 prints for float32 and float64.
template <typename T>
Decimal shortest(T magnitude) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, magnitude, std::chars_format::scientific);
  return parse_scientific(buf, r.ptr);
}

bool reads_back_as_half(const std::string& text, double magnitude) {
  return static_cast<double>(static_cast<_Float16>(std::strtod(text.c_str(), nullptr))) == magnitude;
}

// float16 has no to_chars: try p = 1, 2, ... significant digits, the decimal nearest the value
// and its two neighbours at that precision (next to a power of two the interval that rounds
// to the value is lopsided, so the nearest may miss where a neighbour hits).
Decimal shortest_half(double magnitude) {
  for (int p = 1; p <= 17; ++p) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, magnitude);
    Decimal nearest = parse_scientific(buf, buf + std::char_traits<char>::length(buf));
    long long m = std::atoll(nearest.digits.c_str());
    int scale = nearest.exponent - (p - 1);  // value = m * 10^scale
    for (long long candidate : {m, m - 1, m + 1}) {
      if (candidate <= 0) continue;
      std::string text = std::to_string(candidate) + "e" + std::to_string(scale);
      if (!reads_back_as_half(text, magnitude)) continue;
      Decimal d;
      d.digits = std::to_string(candidate);
      d.exponent = scale + static_cast<int>(d.digits.size()) - 1;
      return d;
    }
  }
  return shortest(magnitude);  // not reached: 17 digits always read back
}

}  // namespace

std::string numpy_float_text(double value, int bits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  double magnitude = std::fabs(value);
  Decimal d = bits == 16   ? shortest_half(magnitude)
              : bits == 32 ? shortest(static_cast<float>(magnitude))
                           : shortest(magnitude);
  // NumPy's scalartypes.c: positional when 1e-4 <= |value| < 1e16, compared as long double.
  long double m = magnitude;
  return script::float_layout(value < 0, d.digits, d.exponent, m >= 1.e-4L && m < 1.e16L);
}

}  // namespace tsch::bindings
