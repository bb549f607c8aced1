// Python formatting rules: format specs, %-formatting, str.format.
#include <catch2/catch.hpp>

#include "script/format.h"
#include "script/interpreter.h"
#include "script/object.h"

using namespace tsch::script;

TEST_CASE("format specs", "[format]") {
  Interpreter interp;
  auto f = [&](Value v, const char* spec) { return format_value(interp, v, spec); };
  CHECK(f(Value::real(3.14159), ".2f") == "3.14");
  CHECK(f(Value::integer(42), ">6") == "    42");
  CHECK(f(Value::integer(42), "06d") == "000042");
  CHECK(f(Value::integer(-42), "=+8") == "-     42");
  CHECK(f(Value::integer(1234567), ",") == "1,234,567");
  CHECK(f(Value::integer(255), "#x") == "0xff");
  CHECK(f(Value::real(0.25), ".1%") == "25.0%");
  CHECK(f(Value::real(1234.5), ".3") == "1.23e+03");
  CHECK(f(Value::real(1.0), ".3") == "1.0");
  CHECK(f(Value::real(12345.678), "e") == "1.234568e+04");
  CHECK(f(make_str("ab"), "^6") == "  ab  ");
  CHECK(f(make_str("ab"), "*<4") == "ab**");
}

TEST_CASE("percent formatting", "[format]") {
  Interpreter interp;
  CHECK(percent_format(interp, "%d-%05.1f-%s-%r-%%",
                       make_tuple({Value::integer(3), Value::real(2.25), make_str("x"), make_str("y")})) ==
        "3-002.2-x-'y'-%");
  CHECK(percent_format(interp, "%-4d|", Value::integer(7)) == "7   |");
}

TEST_CASE("float_repr", "[format]") {
  CHECK(float_repr(100.0) == "100.0");
  CHECK(float_repr(1e-4) == "0.0001");
  CHECK(float_repr(1.0 / 3) == "0.3333333333333333");
  CHECK(float_repr(-2.5e-10) == "-2.5e-10");
}
