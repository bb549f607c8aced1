// Reduce axes (te.reduce_axis): variables that index tensors like any other, whose domains are
// kept here while the variable lives, so a reduction (te.sum(..., axis=k)) finds its range and
// a compute can tell a reduce axis read outside any reduction over it. Thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "ir/expr.h"

namespace tsch::te {

// `v` is a reduce axis over `dom` (as long as `v` lives).
void register_reduce_axis(const ir::Var& v, const ir::Range& dom);
// The domain of a live reduce axis; nullopt for any other variable.
std::optional<ir::Range> reduce_axis_domain(const ir::VarNode* v);
// A reduce axis `e` reads that is not one of `reduced`, or null.
const ir::VarNode* unreduced_axis(const ir::PrimExpr& e, const std::vector<const ir::VarNode*>& reduced);

}  // namespace tsch::te
