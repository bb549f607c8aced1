// The TensorIR part of the TVMScript printer: PrimFuncs, statements and expressions.
#pragma once

#include <string>

#include "ir/module.h"
#include "ir/printer_base.h"

namespace tsch::ir {

// `func` as an `@T.prim_func def name(...)` at `indent`, into `ctx`.
void print_prim_func(PrintContext& ctx, const PrimFunc& func, const std::string& name, int indent);
// `e` with the names defined in `ctx`; `plain_ints` spells integer literals without their
// dtype, as Relax prints shapes. Marks the TIR dialect used.
std::string print_prim_expr(PrintContext& ctx, const PrimExpr& e, bool plain_ints);

}  // namespace tsch::ir
