// A reference interpretation of a Relax module, for the TSCH_CHECK_RELAX mode: each VM call
// is also evaluated binding by binding on the module as written (prim_funcs from the
// executable's library, other functions from the registry) and the results compared.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/module.h"
#include "runtime/packed_func.h"

namespace tsch::relax {

runtime::Any reference_call(const ir::IRModule& mod, const runtime::Module& lib, const std::string& fn,
                            const std::vector<runtime::Any>& args);
// "" when equal (arrays within rtol 1e-5, atol 1e-6), else where and how they differ.
std::string compare_results(const runtime::Any& vm, const runtime::Any& reference);

}  // namespace tsch::relax
