// The structural walk TVM's TensorizeComparator and AutoTensorizeComparator share (the second
// derives from the first in TVM): two expressions of the same kind compared operand by
// operand. How variables pair up, how buffer accesses compare, and what a mismatch reports are
// each comparator's own.
#pragma once

#include <vector>

#include "ir/expr.h"

namespace tsch::schedule {

class ExprPairComparator {
 public:
  virtual ~ExprPairComparator() = default;

 protected:
  // lhs and rhs are of the same kind (the caller checks kind and dtype as it needs).
  bool compare_operands(const ir::PrimExpr& lhs, const ir::PrimExpr& rhs);

  virtual bool expr(const ir::PrimExpr& lhs, const ir::PrimExpr& rhs) = 0;
  virtual bool var(const ir::VarNode* lhs, const ir::PrimExpr& rhs) = 0;
  virtual bool access(const ir::Buffer& lb, const std::vector<ir::PrimExpr>& li, const ir::Buffer& rb,
                      const std::vector<ir::PrimExpr>& ri) = 0;
};

}  // namespace tsch::schedule
