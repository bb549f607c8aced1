// LLVM targets from TVM's target strings: "llvm", "llvm -mcpu=znver4",
// "llvm -mtriple=x86_64-linux-gnu -mattr=+avx2 --num-cores=1". Defaults come from the host.
#pragma once

#include <string>

#include "runtime/module.h"

namespace tsch::codegen {

using runtime::BuildError;
using runtime::CompiledModuleRef;
using runtime::FunctionSignature;

struct LLVMTarget {
  std::string text;  // as given, for printing
  std::string triple, cpu, features;
  int num_cores = 0;  // 0: the thread pool's size
  int opt_level = 3;
  // Poll Ctrl-C at the head of outer loops (support/interrupt.h); matmul_bench turns it off
  // to measure what the polls cost.
  bool interrupt_checks = true;
};

// Throws BuildError on an unknown option or a target kind other than llvm.
LLVMTarget parse_llvm_target(const std::string& text);

// The CPU LLVM generates code for when a target names none (e.g. "znver4").
std::string host_cpu_name();

}  // namespace tsch::codegen
