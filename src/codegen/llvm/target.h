// What LLVM code generation takes from a target::Target of kind "llvm" (or "c"): triple, CPU,
// features, cores and optimization level. Defaults come from the host.
#pragma once

#include <string>

#include "runtime/module.h"
#include "target/target.h"

namespace tsch::codegen {

using runtime::BuildError;
using runtime::CompiledModuleRef;
using runtime::FunctionSignature;

struct LLVMTarget {
  std::string text;  // the target's canonical string, for printing
  std::string triple, cpu, features;
  int num_cores = 0;  // 0: the thread pool's size
  int opt_level = 3;
  // Poll Ctrl-C at the head of outer loops (support/interrupt.h); matmul_bench turns it off
  // to measure what the polls cost.
  bool interrupt_checks = true;
  // driver::BuildOptions::poison_allocations.
  bool poison_allocations = false;
};

// Throws UserError for a target of another kind, and NotImplementedError for options the code
// generator does not honour yet (fast-math flags, -libs, -vector-width ...).
LLVMTarget llvm_target_of(const target::Target& t);
LLVMTarget parse_llvm_target(const std::string& text);

// The CPU LLVM generates code for when a target names none (e.g. "znver4").
std::string host_cpu_name();

}  // namespace tsch::codegen
