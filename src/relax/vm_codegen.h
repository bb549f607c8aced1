// VMCodeGen: a Relax module lowered by the build pipeline to VM bytecode (one VM function
// per Relax function; prim_funcs and registered functions are called by name).
#pragma once

#include <memory>

#include "ir/module.h"
#include "runtime/vm/executable.h"

namespace tsch::relax {

std::shared_ptr<runtime::vm::Executable> vm_codegen(const ir::IRModule& mod);

}  // namespace tsch::relax
