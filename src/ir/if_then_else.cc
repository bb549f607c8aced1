// TVM's tir.if_then_else (tir/op/op.cc there): the builder T.if_then_else and TVMScript's
// `a if c else b` over expressions share.
#include "ir/if_then_else.h"

#include "ir/op.h"

namespace tsch::ir {

PrimExpr if_then_else(const PrimExpr& cond, const PrimExpr& true_value, const PrimExpr& false_value) {
  if (!cond->dtype.is_bool() || cond->dtype.lanes != 1)
    throw IRError(IRError::Kind::Type, "if_then_else only accept the condition to be boolean type.");
  // select() matches the two values' types as TVM's BinaryOpMatchTypes does.
  PrimExpr selected = select(cond, true_value, false_value);
  auto* matched = as<SelectNode>(selected);
  int64_t c;
  if (as_const_int(cond, &c)) return c ? matched->true_value : matched->false_value;
  return call(matched->true_value->dtype, "if_then_else", {cond, matched->true_value, matched->false_value});
}

}  // namespace tsch::ir
