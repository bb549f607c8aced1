// The Relax printer: functions as `@R.function def ...` in TVM's spelling. It registers itself
// in the shared printer's function table (ir/printer_base.h), so modules mixing PrimFuncs and
// Relax functions print through ir::script.
#pragma once

#include <string>

#include "ir/printer_base.h"
#include "relax/expr.h"

namespace tsch::relax {

void print_relax_function(ir::PrintContext& ctx, const Function& f, const std::string& name, int indent);
// Installs the Relax function and ExternFunc printers (idempotent).
void register_relax_printer();

}  // namespace tsch::relax
