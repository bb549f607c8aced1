// The T.* functions that declare buffers (tvmscript_tir_buffers.cc): T.Buffer, T.alloc_buffer,
// T.decl_buffer, T.allocate_const, T.sblock_alloc_buffer, T.match_buffer; and the conversions
// the T namespace shares with them.
#pragma once

#include <string>
#include <vector>

#include "frontend/tir_builder.h"
#include "ir/stmt.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

void def_buffer_functions(script::Namespace& ns);

// A shape: integer expressions, each keeping the dtype it is written with.
std::vector<ir::PrimExpr> to_shape(script::Interpreter& interp, const script::Value& v, const std::string& what);
// A buffer region (A[vi, 0:128]), a load (one element) or a whole buffer.
ir::BufferRegion to_region(script::Interpreter& interp, const script::Value& v);
// The prim_func being parsed; `what` (a T.* name) is a ValueError outside one.
frontend::TirBuilder& builder(const std::string& what);

}  // namespace tsch::bindings
