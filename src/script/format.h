// Text formatting with Python's rules: float repr, format specs (f-strings, format(),
// str.format) and printf-style `%` formatting.
#pragma once

#include <string>

#include "script/value.h"

namespace tsch::script {

class Interpreter;

// Shortest text that reads back as the same double, Python style ("0.1", "1e-05", "1.0").
std::string float_repr(double value);
// Python's repr layout of a finite nonzero float given its significant digits (d.ddd) and
// decimal exponent: positional ("0.001", "120.0") or scientific ("1.5e+20", "1e-05"). Python
// writes positionally from 1e-4 up to 1e16 by the digits' exponent; NumPy's scalars by the
// value itself (float32 1e-4 is 9.99999974e-05, so "1e-04").
std::string float_layout(bool negative, std::string digits, int exponent, bool positional);
// format(value, spec) for int, float, bool, str and other values (via str()).
std::string format_value(Interpreter& interp, const Value& value, const std::string& spec);
// "fmt" % args
std::string percent_format(Interpreter& interp, const std::string& fmt, const Value& args);
// str.format(*args, **kwargs)
std::string str_format(Interpreter& interp, const std::string& fmt, const std::vector<Value>& args,
                       const std::vector<std::pair<Symbol, Value>>& kwargs);

}  // namespace tsch::script
