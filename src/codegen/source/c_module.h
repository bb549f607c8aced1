// Building lowered TensorIR as C (target "c"): the source from CodeGenCHost, compiled by the
// system C compiler (cc, started from an argv) into a shared library that is loaded in
// process. get_source() gives the C; export_library writes a library load_module reads.
#pragma once

#include <string>

#include "runtime/module.h"

namespace tsch::codegen {

runtime::CompiledModuleRef build_c(const ir::IRModule& lowered, const std::string& target_text);

}  // namespace tsch::codegen
