// Python number semantics on int64 and double: floor division and modulo rounding toward
// negative infinity, true division always float, and overflow raising instead of wrapping.
#pragma once

#include "script/value.h"
#include "syntax/ast.h"

namespace tsch::script {

// Applies `op` when both operands are numbers (bool counts as int). Returns false when the
// operands are not both plain Python numbers (NumPy scalars included), so the caller can try other types.
bool numeric_binary(ast::BinOpKind op, const Value& a, const Value& b, Value& out);

int64_t int_floordiv(int64_t a, int64_t b);  // b != 0
int64_t int_mod(int64_t a, int64_t b);       // b != 0
double float_floordiv(double a, double b);
double float_mod(double a, double b);
// Exact int power; raises OverflowError past int64.
int64_t int_pow(int64_t base, int64_t exp);
// Round half to even, as Python's round().
double round_half_even(double value, int64_t digits);

}  // namespace tsch::script
