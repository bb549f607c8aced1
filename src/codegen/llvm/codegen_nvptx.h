// PTX straight from LLVM's NVPTX backend (TVM's target "nvptx", CodeGenNVPTX): the kernels
// SplitHostDevice made become `ptx_kernel` functions of an nvptx64-nvidia-cuda module —
// thread-bound loops read %tid / %ctaid, local buffers are stack arrays, shared buffers
// globals in address space 3, barriers `llvm.nvvm.barrier0` — compiled for the target's
// -mcpu (sm_80 by default), with warp shuffles as shfl.sync. No CUDA toolkit is needed, but
// math that LLVM lowers only through NVIDIA's libdevice (exp, log, tanh, ...) calls its
// __nv_* functions, linked from the toolkit's libdevice.10.bc where one is found (TVM's way);
// without one it is "not supported yet" (target="cuda" has it).
#pragma once

#include <string>

#include "ir/module.h"
#include "runtime/module.h"
#include "target/target.h"

namespace tsch::codegen {

// The device module of `kernels` (the functions SplitHostDevice added): get_source() and
// get_source("ptx") give the PTX, get_source("ll") the LLVM IR.
// For an "nvptx" target (its -mcpu, sm_80 by default).
runtime::CompiledModuleRef build_nvptx_device(const ir::IRModule& kernels, const target::Target& target);

}  // namespace tsch::codegen
