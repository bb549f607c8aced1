// Building lowered TensorIR as C (target "c"): the source from CodeGenCHost, compiled by the
// system C compiler (cc, started from an argv) into a shared library that is loaded in
// process. get_source() gives the C; export_library writes a library load_module reads.
#pragma once

#include <string>

#include "ir/module.h"
#include "runtime/module.h"
#include "target/target.h"

namespace tsch::codegen {

// For a "c" target. With `interrupt_checks`, outer loops return
// runtime::kStatusInterrupted after Ctrl-C; `poison_allocations`:
// driver::BuildOptions::poison_allocations.
runtime::CompiledModuleRef build_c(const ir::IRModule& lowered, const target::Target& target, bool interrupt_checks,
                                   bool poison_allocations = false);

// Hands a loaded library the runtime's Ctrl-C flag when it asks for it (C libraries do).
void bind_interrupt_flag(void* library_handle);

}  // namespace tsch::codegen
