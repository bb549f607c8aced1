// CUDA C for the kernels SplitHostDevice made (TVM's CodeGenCUDA): `extern "C" __global__`
// functions with `__launch_bounds__` (the block's thread count, when constant), restrict
// pointer parameters, thread-bound loops read as `((int)blockIdx.x)` / `((int)threadIdx.x)`,
// local arrays for local allocations, and TVM's CUDA header. A device module holds the source
// (`get_source()`) and its PTX (`get_source("ptx")`, compiled with NVRTC for the target's
// -arch when asked); the host module runs the kernels on the CPU emulation until a CUDA
// runtime exists.
#pragma once

#include <string>

#include "codegen/source/codegen_c.h"

namespace tsch::codegen {

class CodeGenCUDA : public CodeGenC {
 public:
  void add_kernel(const std::string& name, const ir::PrimFunc& f);
  std::string source() const { return prelude() + functions_; }

 protected:
  std::string headers() const override;
  // TVM's CUDA spellings: int, uint, uchar, int64_t (the header defines them).
  std::string type_of(ir::DataType t) const override;
  void emit_allocate(const ir::AllocateNode& n) override;
  void emit_parallel(const ir::ForNode& n) override;
  void emit_thread_binding(const ir::ForNode& n) override;

 private:
  std::string functions_;
};

// The device module of the kernels in `kernels` (the functions SplitHostDevice added), for
// the GPU architecture `arch` (sm_80).
runtime::CompiledModuleRef build_cuda_device(const ir::IRModule& kernels, const std::string& target_text, const std::string& arch);
// The host module of a CUDA build: the device module imported, and its functions run by
// `emulation` — the kernels compiled for the CPU with their threads as loops (tsch has no CUDA
// runtime yet; arrays live on the CPU).
runtime::CompiledModuleRef cuda_host_module(runtime::CompiledModuleRef emulation, runtime::CompiledModuleRef device,
                                            const std::string& target_text);

}  // namespace tsch::codegen
