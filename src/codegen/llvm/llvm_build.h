// Building lowered TensorIR with LLVM: IR emission, O3, ORC JIT; loading exported libraries.
#pragma once

#include "codegen/llvm/target.h"
#include "runtime/module.h"

namespace llvm {
class Module;
}

namespace tsch::codegen {

using runtime::BuildError;
using runtime::CompiledModuleRef;
using runtime::FunctionSignature;

CompiledModuleRef build_llvm(const ir::IRModule& lowered, const LLVMTarget& target);
// Optimizes `m` (O3) for an LLVM target other than the host's and returns its assembly text
// (PTX for nvptx64-nvidia-cuda). BuildError when LLVM has no such target.
std::string emit_device_assembly(llvm::Module& m, const std::string& triple, const std::string& cpu, const std::string& features);

// A shared library written by export_library.
CompiledModuleRef load_llvm_library(const std::string& path);

}  // namespace tsch::codegen
