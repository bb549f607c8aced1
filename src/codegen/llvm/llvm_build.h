// Building lowered TensorIR with LLVM: IR emission, O3, ORC JIT; loading exported libraries.
#pragma once

#include <string>
#include <utility>
#include <vector>

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
std::string emit_device_assembly(llvm::Module& m, const std::string& triple, const std::string& cpu,
                                 const std::string& features);

// A shared library written by export_library. One exported from a CUDA build (it defines
// the data symbols below) is a module whose functions run on a CUDA device.
CompiledModuleRef load_llvm_library(const std::string& path);

// A JIT-compiled module (build_llvm's) written as a shared library, with `data` — symbol name
// to a NUL-terminated string — defined in it too (a CUDA build's PTX and kernel table).
void export_llvm_library(const CompiledModuleRef& m, const std::string& path,
                         const std::vector<std::pair<std::string, std::string>>& data);

// The symbols an exported CUDA build carries: its kernels' PTX, and their parameter types and
// launch tags (runtime/cuda/cuda_module.h: encode_kernel_table).
constexpr const char* kCudaPtxSymbol = "__tsch_cuda_ptx";
constexpr const char* kCudaKernelsSymbol = "__tsch_cuda_kernels";

}  // namespace tsch::codegen
