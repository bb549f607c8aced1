// Differential execution: builds two versions of a module (e.g. before and after a schedule
// primitive), runs each function of both on the same random inputs and compares every
// buffer afterwards. Schedule tests use it to check that primitives keep the numbers.
#pragma once

#include <string>

#include "ir/module.h"

namespace tsch::driver {

struct DifferentialResult {
  bool compared = false;  // false: skipped (shape expressions, scalar parameters, unsupported dtypes); see `note`
  bool equal = true;
  std::string note;  // why skipped, or where they differ
};

DifferentialResult compare_execution(const ir::IRModule& reference, const ir::IRModule& candidate, uint32_t seed = 1);

}  // namespace tsch::driver
