// The float class tests (float_class.h).
#include "ir/float_class.h"

#include <cmath>

#include "ir/op.h"

namespace tsch::ir {

PrimExpr float_class_test(const std::string& op, const PrimExpr& x) {
  DataType t = DataType::bool_(x->dtype.lanes);
  if (!x->dtype.is_float()) {
    bool finite = op == "isfinite";
    PrimExpr c = make_bool(finite);
    return t.lanes > 1 ? PrimExpr(std::make_shared<BroadcastNode>(c, t.lanes)) : c;
  }
  if (auto* f = as<FloatImmNode>(x)) {
    double v = represented_value(f->value, x->dtype);
    return make_bool(op == "isnan" ? std::isnan(v) : op == "isinf" ? std::isinf(v) : std::isfinite(v));
  }
  PrimExpr arg = x;
  if (x->dtype.bits == 16) arg = cast(DataType::float_(32, x->dtype.lanes), x);
  return call(t, op, {arg});
}

}  // namespace tsch::ir
