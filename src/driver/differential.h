// Differential execution: builds two versions of a module (e.g. before and after a schedule
// primitive), runs each function of both on the same random inputs and compares every
// buffer afterwards. Schedule tests use it to check that primitives keep the numbers.
#pragma once

#include <string>

#include "ir/module.h"
#include "target/target.h"

namespace tsch::driver {

struct DifferentialResult {
  bool compared = false;  // false: skipped (shape expressions, scalar parameters, unsupported dtypes); see `note`
  bool equal = true;
  std::string note;  // why skipped, or where they differ
};

DifferentialResult compare_execution(const ir::IRModule& reference, const ir::IRModule& candidate, uint32_t seed = 1);

// TSCH_CHECK_BUILT=1: a module tvm.build built for llvm, built again as the reference (C) and
// both run on the same random inputs; a RuntimeError UserError when they differ.
void check_built(const ir::IRModule& mod, const target::Target& target);

}  // namespace tsch::driver
