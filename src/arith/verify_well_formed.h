// Well-formedness of a PrimFunc: every variable is defined before use, block bindings match
// their iterators (count, dtype, domain when provable), and buffer accesses stay inside the
// buffer when the loop ranges prove it (tvm.tir.analysis.verify_well_formed).
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"

namespace tsch::arith {

// The problems found, in IR order; empty when the function is well formed.
std::vector<std::string> verify_well_formed(const ir::PrimFunc& func);

}  // namespace tsch::arith
