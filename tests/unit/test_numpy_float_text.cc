// NumPy's scalar text (bindings/numpy_float_text.h): the values below are what NumPy prints
// for str() of float16 / float32 / float64 scalars; every float16 must read back as itself.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "numpy/numpy_float_text.h"

using tsch::bindings::numpy_float_text;

namespace {

struct Case {
  double value;  // exactly representable in `bits`
  int bits;
  const char* numpy_str;
};

// From NumPy (str(np.float16(v)), ...), including lopsided intervals next to powers of two,
// subnormals, the largest finite values and the 1e-4 / 1e16 switches, which NumPy makes on
// the value (float32 1e-4 is 9.99999974e-05: "1e-04").
const Case kCases[] = {
    {0.0999755859375, 16, "0.1"},
    {0.333251953125, 16, "0.3333"},
    {0.66650390625, 16, "0.6665"},
    {5.960464477539063e-08, 16, "6e-08"},
    {65504.0, 16, "65500.0"},
    {0.00010001659393310547, 16, "0.0001"},
    {1.0013580322265625e-05, 16, "1e-05"},
    {-2.5, 16, "-2.5"},
    {3.140625, 16, "3.14"},
    {1.1920928955078125e-07, 16, "1e-07"},
    {2048.0, 16, "2048.0"},
    {6.103515625e-05, 16, "6.104e-05"},
    {-0.09991455078125, 16, "-0.0999"},
    {0.10000000149011612, 32, "0.1"},
    {0.3333333432674408, 32, "0.33333334"},
    {0.6666666865348816, 32, "0.6666667"},
    {9.99999993922529e-09, 32, "1e-08"},
    {16777216.0, 32, "16777216.0"},
    {1.401298464324817e-45, 32, "1e-45"},
    {9.999999747378752e-05, 32, "1e-04"},
    {999999986991104.0, 32, "1000000000000000.0"},
    {1.0000000272564224e+16, 32, "1e+16"},
    {1.0000000200408773e+20, 32, "1e+20"},
    {123456792.0, 32, "123456790.0"},
    {3.4028234663852886e+38, 32, "3.4028235e+38"},
    {1.1754943508222875e-38, 32, "1.1754944e-38"},
    {0.1, 64, "0.1"},
    {0.3333333333333333, 64, "0.3333333333333333"},
    {1e-310, 64, "1e-310"},
    {5e-324, 64, "5e-324"},
    {1.7976931348623157e+308, 64, "1.7976931348623157e+308"},
    {1e+16, 64, "1e+16"},
    {1000000000000000.0, 64, "1000000000000000.0"},
    {0.0001, 64, "0.0001"},
    {9.999e-05, 64, "9.999e-05"},
};

double half_bits_value(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return static_cast<double>(h);
}

}  // namespace

TEST_CASE("numpy float text matches NumPy's str", "[numpy_float_text]") {
  for (const Case& c : kCases) {
    INFO(c.value << " as float" << c.bits);
    CHECK(numpy_float_text(c.value, c.bits) == c.numpy_str);
  }
  for (int bits : {16, 32, 64}) {
    CHECK(numpy_float_text(INFINITY, bits) == "inf");
    CHECK(numpy_float_text(-INFINITY, bits) == "-inf");
    CHECK(numpy_float_text(NAN, bits) == "nan");
    CHECK(numpy_float_text(-0.0, bits) == "-0.0");
  }
}

TEST_CASE("numpy float text: every float16 reads back as itself", "[numpy_float_text]") {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double v = half_bits_value(static_cast<uint16_t>(bits));
    if (!std::isfinite(v)) continue;
    std::string text = numpy_float_text(v, 16);
    INFO(text);
    double back = static_cast<double>(static_cast<_Float16>(std::strtod(text.c_str(), nullptr)));
    REQUIRE(back == v);
    REQUIRE(std::signbit(back) == std::signbit(v));
  }
}
