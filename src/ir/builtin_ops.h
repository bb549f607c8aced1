// TVM's builtin ops (src/tir/op/builtin.cc) that tvm/tir/op.py builds as plain calls: each op's
// parameters as op.py names them and where its result type comes from (T.tvm_tuple,
// T.ptx_cp_async, tvm.tir.clz, ...).
#pragma once

#include <vector>

#include "ir/dtype.h"
#include "ir/expr.h"

namespace tsch::ir {

// Where a builtin's result type comes from: fixed, a `dtype` parameter (first or last), or the
// first operand's type.
enum class BuiltinResult { Fixed, DtypeFirst, DtypeLast, FirstOperand };

struct BuiltinOp {
  const char* name;
  const char* params;  // TVM's Python parameter list, e.g. "arr, index, field, dtype"
  BuiltinResult result;
  DataType fixed = DataType::void_();
};

// The builtins, in op.py's order of definition.
const std::vector<BuiltinOp>& builtin_ops();

// The call of `op` on `operands` (the `dtype` and `span` parameters left out); `dtype` is the
// dtype argument where op's result type comes from one.
PrimExpr builtin_call(const BuiltinOp& op, DataType dtype, std::vector<PrimExpr> operands);

}  // namespace tsch::ir
