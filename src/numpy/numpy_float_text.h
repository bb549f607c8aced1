// NumPy's text of a float scalar: the shortest decimal that reads back as the same value in
// the scalar's own dtype, laid out as Python's float repr (float32 0.1 is "0.1", not
// "0.10000000149011612").
#pragma once

#include <string>

namespace tsch::bindings {

// `value` holds a float of `bits` bits (16, 32 or 64) exactly.
std::string numpy_float_text(double value, int bits);

}  // namespace tsch::bindings
