// TVM's PrimFunc.specialize (tir/ir/specialize.cc): parameters bound to values, or buffer
// parameters to buffers whose shape, strides, offset and data bind the variables the old
// buffer declared. Bound parameters leave the signature; every buffer over a bound variable
// is rebuilt with the value, and arithmetic whose operands became constants folds.
#pragma once

#include <utility>
#include <vector>

#include "ir/module.h"

namespace tsch::ir {

// One binding: a value (for a scalar parameter) or a buffer (for a buffer parameter).
struct SpecializeTo {
  PrimExpr value;
  Buffer buffer;
};

// `f` itself when nothing is bound. UserError (ValueError / TypeError, TVM's texts) for a
// variable that is no parameter, a value for a buffer parameter, or a buffer that does not
// fit the one it replaces.
PrimFunc specialize(const PrimFunc& f, const std::vector<std::pair<Var, SpecializeTo>>& bindings);

}  // namespace tsch::ir
