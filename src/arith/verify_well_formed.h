// Well-formedness of a PrimFunc: every variable is defined before use, block bindings match
// their iterators (count, dtype, domain when provable), and buffer accesses stay inside the
// buffer when the loop ranges prove it.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"

namespace tsch::arith {

// What to check. TVM's rules (Structure: definitions, scopes, bindings) hold for every function
// tsch accepts; in-bounds accesses (Bounds) are checked where code is generated, because TVM
// accepts functions that read past a buffer and its tests schedule them.
enum WellFormedChecks : unsigned { kStructure = 1, kBounds = 2, kAllChecks = kStructure | kBounds };

// The problems found, in IR order; empty when the function is well formed.
std::vector<std::string> verify_well_formed(const ir::PrimFunc& func, unsigned checks = kAllChecks);

}  // namespace tsch::arith
