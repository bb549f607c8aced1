// The largest divisor of an integer expression that is known for every value of its
// variables (TVM's ModularSet with base 0): 4 for `t * 256 + tx * 4`, and for
// `(t * 4) % 8` too (a multiple of 4 taken mod 8 stays one). Used to prove vector accesses
// aligned: a float4 access must start at a multiple of 4 elements.
#pragma once

#include <cstdint>

#include "ir/expr.h"

namespace tsch::arith {

// 0 means every integer divides it (the expression is 0); 1 means nothing is known.
int64_t known_divisor(const ir::PrimExpr& e);

// Whether `e` is a multiple of `m` whatever its variables are.
inline bool known_multiple_of(const ir::PrimExpr& e, int64_t m) {
  int64_t d = known_divisor(e);
  return d == 0 || d % m == 0;
}

}  // namespace tsch::arith
