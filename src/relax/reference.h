// A reference interpretation of a Relax module, for the TSCH_CHECK_RELAX mode: each VM call
// is also evaluated binding by binding on the module as written (prim_funcs from the
// executable's library, other functions from the registry) and the results compared.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "relax/build.h"
#include "runtime/module.h"
#include "runtime/packed_func.h"

namespace tsch::relax {

runtime::Any reference_call(const ir::IRModule& mod, const runtime::Module& lib, const std::string& fn,
                            const std::vector<runtime::Any>& args);
// "" when equal (arrays within rtol 1e-5, atol 1e-6), else where and how they differ.
std::string compare_results(const runtime::Any& vm, const runtime::Any& reference);

// TSCH_CHECK_RELAX=1 (read once): `f`, the VM's function `name` of `ex`, wrapped so that each
// call is also interpreted on ex.source and a difference is a RuntimeError; `f` itself when
// the mode is off, f is null, or `name` is not a Relax function of the module as written.
runtime::PackedFunc checked_vm_function(runtime::PackedFunc f, const Executable& ex, const std::string& name);

}  // namespace tsch::relax
