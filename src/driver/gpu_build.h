// The GPU backends (cuda: CUDA C through NVRTC; nvptx: PTX from LLVM): one lowering — TIR's
// pipeline, then the mixed-module device passes (LowerWarpMemory, ThreadSync) — and one
// build around the device code generator: SplitHostDevice, the device module, the host
// functions that launch it, and the CPU emulation that runs the kernels with their threads as
// loops when the module is called with cpu arrays.
#pragma once

#include <functional>

#include "driver/backend.h"

namespace tsch::driver {

using DeviceCodegen = std::function<runtime::CompiledModuleRef(const ir::IRModule& kernels, const target::Target&)>;

LoweredModule lower_for_gpu(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options);
runtime::CompiledModuleRef generate_gpu(const LoweredModule& lowered, const target::Target& target,
                                        const BuildOptions& options, const DeviceCodegen& device_codegen);

}  // namespace tsch::driver
