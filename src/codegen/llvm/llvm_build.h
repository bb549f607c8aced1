// Building lowered TensorIR with LLVM: IR emission, O3, ORC JIT; loading exported libraries.
#pragma once

#include "codegen/llvm/target.h"
#include "runtime/module.h"

namespace tsch::codegen {

using runtime::BuildError;
using runtime::CompiledModuleRef;
using runtime::FunctionSignature;

CompiledModuleRef build_llvm(const ir::IRModule& lowered, const LLVMTarget& target);
// A shared library written by export_library.
CompiledModuleRef load_llvm_library(const std::string& path);

}  // namespace tsch::codegen
