// The float8 formats (support/float8.h): values ml_dtypes gives for float8_e4m3fn and
// float8_e5m2, and the LLVM code generator's conversions held to the same bits.
#include <catch2/catch.hpp>

#include <cmath>

#include "support/float8.h"

using namespace tsch;
using support::Float8Format;
using support::float8_from_double;
using support::float8_to_double;

TEST_CASE("float8 encodings decode to ml_dtypes' values", "[float8]") {
  auto e4 = [](uint8_t b) { return float8_to_double(b, Float8Format::E4M3FN); };
  auto e5 = [](uint8_t b) { return float8_to_double(b, Float8Format::E5M2); };
  CHECK(e4(0x00) == 0.0);
  CHECK(std::signbit(e4(0x80)));
  CHECK(e4(0x38) == 1.0);
  CHECK(e4(0x7e) == 448.0);                  // largest finite
  CHECK(e4(0x01) == std::ldexp(1.0, -9));    // smallest subnormal
  CHECK(e4(0x08) == std::ldexp(1.0, -6));    // smallest normal
  CHECK(std::isnan(e4(0x7f)));
  CHECK(std::isnan(e4(0xff)));
  CHECK(e4(0xc4) == -3.0);
  CHECK(e5(0x3c) == 1.0);
  CHECK(e5(0x7b) == 57344.0);
  CHECK(e5(0x01) == std::ldexp(1.0, -16));
  CHECK(std::isinf(e5(0x7c)));
  CHECK(e5(0xfc) == -INFINITY);
  CHECK(std::isnan(e5(0x7d)));
  CHECK(std::isnan(e5(0x7f)));
}

TEST_CASE("every float8 value converts back to its own encoding", "[float8]") {
  for (Float8Format f : {Float8Format::E4M3FN, Float8Format::E5M2}) {
    for (int b = 0; b < 256; ++b) {
      double v = float8_to_double(static_cast<uint8_t>(b), f);
      if (std::isnan(v)) continue;
      CHECK(float8_from_double(v, f) == b);
    }
  }
}

TEST_CASE("conversion to float8 rounds to nearest even and overflows as ml_dtypes does", "[float8]") {
  Float8Format e4 = Float8Format::E4M3FN, e5 = Float8Format::E5M2;
  CHECK(float8_from_double(1.0625, e4) == 0x38);   // halfway between 1 and 1.125: even (1)
  CHECK(float8_from_double(1.1875, e4) == 0x3a);   // halfway between 1.125 and 1.25: even (1.25)
  CHECK(float8_from_double(1.07, e4) == 0x39);
  CHECK(float8_from_double(15.5, e4) == 0x58);     // 15 | 16: the even one (16) is in the next binade
  CHECK(float8_from_double(460.0, e4) == 0x7e);    // rounds to 448
  CHECK(float8_from_double(464.0, e4) == 0x7e);    // tie: 448 is even
  CHECK(float8_from_double(465.0, e4) == 0x7f);    // past the largest finite: NaN
  CHECK(float8_from_double(INFINITY, e4) == 0x7f);
  CHECK(float8_from_double(-1e9, e4) == 0xff);
  CHECK(float8_from_double(std::ldexp(1.0, -10), e4) == 0x00);        // half the smallest subnormal: even (0)
  CHECK(float8_from_double(std::ldexp(3.0, -11), e4) == 0x01);        // 0.75 of it
  CHECK(float8_from_double(std::ldexp(15.5, -10), e4) == 0x08);       // rounds up to the smallest normal
  CHECK(float8_from_double(-0.0, e4) == 0x80);
  CHECK((float8_from_double(NAN, e4) & 0x7f) == 0x7f);
  CHECK(float8_from_double(57344.0, e5) == 0x7b);
  CHECK(float8_from_double(61440.0, e5) == 0x7c);  // tie at the top: rounds to infinity
  CHECK(float8_from_double(-INFINITY, e5) == 0xfc);
  CHECK(std::isnan(float8_to_double(float8_from_double(NAN, e5), e5)));
  CHECK(float8_from_double(-2.5, e5) == 0xc1);
}
