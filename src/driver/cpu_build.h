// The lowering and code generation of the CPU backends (llvm, c), registered in backends.cc.
#pragma once

#include "driver/backend.h"

namespace tsch::driver {

LoweredModule lower_for_cpu(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options);
// As lower_for_cpu, sizing the thread pool by the target's -num-cores first.
LoweredModule lower_for_llvm(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options);
runtime::CompiledModuleRef generate_llvm(const LoweredModule& lowered, const target::Target& target,
                                         const BuildOptions& options);
runtime::CompiledModuleRef generate_c(const LoweredModule& lowered, const target::Target& target,
                                      const BuildOptions& options);

}  // namespace tsch::driver
