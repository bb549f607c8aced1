// T.allocate_const's data: the nested list of numbers read into an AllocateConst node
// (tvmscript_allocate_const.cc).
#pragma once

#include <vector>

#include "ir/stmt.h"
#include "script/interpreter.h"

namespace tsch::bindings {

// The AllocateConst of `a[0]`'s values (nested lists, row-major) as `dtype`, with a placeholder
// body; `count` is the product of `extents`. Values that are not numbers, that do not fit the
// dtype, or whose number differs from `count` raise on the argument.
std::shared_ptr<ir::AllocateConstNode> allocate_const_node(script::Interpreter& interp, script::Args& a,
                                                           ir::DataType dtype, const std::vector<ir::PrimExpr>& extents,
                                                           int64_t count);

}  // namespace tsch::bindings
