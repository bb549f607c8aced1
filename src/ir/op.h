// Building expressions: literals, arithmetic with TVM's dtype matching and constant folding,
// comparisons, logic, casts and calls. Errors (dtype mismatch, constant division by zero)
// are thrown as IRError and become tvm.error.InternalError in scripts (TVM refuses them in
// ICHECKs).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/expr.h"

namespace tsch::ir {

class IRError : public std::runtime_error {
 public:
  enum class Kind { Type, Value };
  IRError(Kind k, const std::string& message) : std::runtime_error(message), kind(k) {}
  Kind kind;
};

PrimExpr make_int(int64_t value, DataType dtype = DataType::int32());
PrimExpr make_float(double value, DataType dtype = DataType::float32());
PrimExpr make_bool(bool value);
PrimExpr make_const(DataType dtype, double value);  // int, float or bool by dtype
// The value a float literal of `dtype` holds: FloatImm keeps the double it was written with
// (as TVM's), so folding must round it to its type first — float16 0.1 is 0.0999755859375.
double represented_value(double value, DataType dtype);
// The smallest / largest value of `dtype` (TVM's min_value / max_value: float32 ±3.4028234663852886e+38).
PrimExpr min_value(DataType dtype);
PrimExpr max_value(DataType dtype);
Var make_var(std::string name, DataType dtype = DataType::int32());
// A handle variable pointing to `element` in `scope` (TVM's Var(name, PointerType(...))).
Var make_pointer_var(std::string name, DataType element, std::string scope = "global");
// The data pointer of a new buffer (TVM's decl_buffer: a bool buffer's points to int8).
Var buffer_data_var(std::string name, DataType dtype, std::string scope);
// A new variable like `v` (its dtype, pointer annotation and size-var flag) named `name`.
Var copy_var(const VarNode& v, std::string name);

// Binary operations with type matching and folding (`kind` in Add..Or).
PrimExpr make_binary(ExprKind kind, PrimExpr a, PrimExpr b);
inline PrimExpr add(PrimExpr a, PrimExpr b) { return make_binary(ExprKind::Add, std::move(a), std::move(b)); }
inline PrimExpr sub(PrimExpr a, PrimExpr b) { return make_binary(ExprKind::Sub, std::move(a), std::move(b)); }
inline PrimExpr mul(PrimExpr a, PrimExpr b) { return make_binary(ExprKind::Mul, std::move(a), std::move(b)); }
inline PrimExpr floordiv(PrimExpr a, PrimExpr b) { return make_binary(ExprKind::FloorDiv, std::move(a), std::move(b)); }
inline PrimExpr floormod(PrimExpr a, PrimExpr b) { return make_binary(ExprKind::FloorMod, std::move(a), std::move(b)); }
// `/`: true division for floats, truncating Div for ints (as tvm.tir.Div).
PrimExpr div(PrimExpr a, PrimExpr b);
PrimExpr logical_not(PrimExpr a);
// TVM's bitwise operators on integers (`a & b`, `a | b`, `a ^ b`, `~a`, `a << b`, `a >> b`):
// calls T.bitwise_and / bitwise_or / bitwise_xor / bitwise_not / shift_left / shift_right
// with the operands' common integer type (constants folded). IRError (Type) for other types.
PrimExpr bitwise(const std::string& op, PrimExpr a, PrimExpr b);
PrimExpr bitwise_not(PrimExpr a);
// T.q_multiply_shift(x, y, q, s) as the int64 arithmetic TVM lowers it to: round(x * y *
// 2^(s - q)) for int32 x, y (a fixed-point multiply), cast back to int32.
PrimExpr expand_q_multiply_shift(const CallNode& call);
// T.q_multiply_shift_per_axis(x, y, ls, rs, q, is_lshift_required, is_rshift_required) likewise
// with the shifts given: round(((x << ls) if is_lshift_required) * y * 2^-(rs + q)).
PrimExpr expand_q_multiply_shift_per_axis(const CallNode& call);
PrimExpr neg(PrimExpr a);
PrimExpr cast(DataType dtype, PrimExpr value);
PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f);
PrimExpr call(DataType dtype, std::string op, std::vector<PrimExpr> args);
PrimExpr buffer_load(const Buffer& buffer, std::vector<PrimExpr> indices);
// A buffer as an argument of T.call_packed: TVM's
// `T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(*B.shape), 0, ndim, <zero of B.dtype>, elem_offset)`.
PrimExpr stack_array_of(const Buffer& buffer);
// The buffer `e` describes when it is exactly stack_array_of(b) for a buffer whose data
// variable `owner` returns (null otherwise): the printer writes it back as `B`.
const BufferNode* buffer_of_stack_array(const PrimExpr& e,
                                        const std::function<const BufferNode*(const VarNode*)>& owner);

// The value of an integer constant, if `e` is one.
bool as_const_int(const PrimExpr& e, int64_t* out);
bool is_const_int(const PrimExpr& e, int64_t value);
bool is_one(const PrimExpr& e);
bool is_zero(const PrimExpr& e);

}  // namespace tsch::ir
