// CUDA C for the kernels SplitHostDevice made (TVM's CodeGenCUDA): `extern "C" __global__`
// functions with `__launch_bounds__` (the block's thread count, when constant), restrict
// pointer parameters, thread-bound loops read as `((int)blockIdx.x)` / `((int)threadIdx.x)`,
// local arrays and `__shared__` arrays for allocations, `__syncthreads()` for barriers, and TVM's CUDA header. A device
// module holds the source
// (`get_source()`) and its PTX (`get_source("ptx")`, compiled with NVRTC for the target's
// -arch when asked); the host module runs the kernels on the CPU emulation until a CUDA
// runtime exists.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/source/codegen_c.h"
#include "target/target.h"
#include "transform/wmma_fragments.h"

namespace tsch::codegen {

class CodeGenCUDA : public CodeGenC {
 public:
  void add_kernel(const std::string& name, const ir::PrimFunc& f);
  std::string source() const { return prelude() + functions_; }
  bool uses_cp_async() const { return uses_cp_async_; }
  // The oldest architecture the kernels' tensor-core fragments run on (sm_70 for float16,
  // sm_72 for int8); 0 without fragments.
  int wmma_min_sm() const { return wmma_min_sm_; }
  // The oldest architecture the kernels' ldmatrix / mma.sync run on (sm_75 / sm_80); 0 without.
  int mma_min_sm() const { return mma_min_sm_; }

 protected:
  std::string headers() const override;
  // TVM's CUDA spellings: int, uint, uchar, int64_t (the header defines them); half and
  // nv_bfloat16 (cuda_fp16.h / cuda_bf16.h, included when a kernel uses them).
  std::string type_of(ir::DataType t) const override;
  // A half / bfloat16 constant is a float one converted: `((half)0.5f)`.
  std::string literal(const ir::PrimExpr& e) const override;
  void emit_allocate(const ir::AllocateNode& n) override;
  void emit_parallel(const ir::ForNode& n) override;
  void emit_thread_binding(const ir::ForNode& n) override;
  // T.tvm_storage_sync("shared") is __syncthreads().
  std::string target_call(const ir::CallNode& n) override;
  // TVM's mma builtins (T.ptx_ldmatrix, T.ptx_mma: inline PTX; T.mma_store, T.mma_fill: loops
  // over the lane's registers), in codegen_cuda_mma.cc.
  bool emit_call_stmt(const ir::CallNode& n) override;
  // Vectorized loops (see codegen_cuda_vector.cc): a contiguous access whose start is a
  // multiple of its lanes reads and writes CUDA's vector types (`*(float4*)(A + i)`, TVM's
  // form); everything else is computed lane by lane.
  std::string vector_expr(const ir::PrimExpr& e) override;
  void vector_store(const ir::BufferStoreNode& n) override;

 private:
  static int64_t element_count(const ir::BufferNode& buf);
  // CUDA's vector type for `t` (float4, int2, ...), or "" when it has none.
  static std::string vector_type(ir::DataType t);
  // The word type a vector of `t` is copied as (uint / uint2 / uint4), or "".
  static std::string copy_type(ir::DataType t);
  // The start of `index` when it is a contiguous Ramp over `lanes` whose start is a multiple of
  // them, for a type with a CUDA vector type (an aligned vector access); null otherwise.
  static ir::PrimExpr aligned_start(const ir::PrimExpr& index, ir::DataType value_type);
  // Lane `k` of vector expression `e`, as a scalar expression (hoisted loads read their temporaries).
  ir::PrimExpr scalar_lane(const ir::PrimExpr& e, int k);
  // Aligned vector loads in `e` read once into temporaries `float4 v = *(float4*)(A + i);`.
  void hoist_vector_loads(const ir::PrimExpr& e);
  // `__align__(16) ` for an array accessed as float4 (the alignment its vector accesses need).
  std::string alignment_of(const ir::Buffer& buf) const;
  // The alignment (bytes) the vector accesses of each local / shared array need.
  std::unordered_map<const ir::VarNode*, int> vector_alignment_;
  std::unordered_map<const ir::BufferLoadNode*, std::vector<ir::Var>> hoisted_loads_;
  std::string functions_;
  mutable bool uses_fp8_ = false;                   // ... __nv_fp8_e4m3 / __nv_fp8_e5m2: cuda_fp8.h
  mutable bool uses_half_ = false;                  // a kernel uses half: the header includes cuda_fp16.h
  mutable bool uses_bf16_ = false;                  // ... nv_bfloat16: cuda_bf16.h
  bool uses_cp_async_ = false;                      // a kernel copies asynchronously: the cp.async helpers
  std::unordered_set<const ir::VarNode*> hoisted_;  // shared buffers declared at the kernel's top
  // The kernel's tensor-core fragments (wmma_fragments.h): arrays of nvcuda::wmma::fragment.
  std::unordered_map<const ir::VarNode*, transform::WmmaFragment> fragments_;
  std::string wmma_call(const ir::CallNode& n);
  int wmma_min_sm_ = 0;
  // Checks a kernel's mma builtins (threadIdx.x must be the 32 lanes) and notes their sm.
  void check_mma_kernel(const ir::PrimFunc& f);
  // `p` (a buffer's data or a T.tvm_access_ptr) as a pointer to elements of `t`.
  std::string typed_pointer(const PrimExpr& p, DataType t);
  int mma_min_sm_ = 0;
};

// Refuse (BuildError) what the target's GPU architecture (target::cuda_arch) lacks: cp.async
// before sm_80, tensor-core fragments before wmma_min_sm.
void check_cp_async_arch(bool uses_cp_async, const target::Target& target);
void check_wmma_arch(int wmma_min_sm, const target::Target& target);
// ldmatrix before sm_75, mma.sync m16n8k16 / m16n8k32 before sm_80 (TVM's requirement).
void check_mma_arch(int mma_min_sm, const target::Target& target);
// The device module of the kernels in `kernels` (the functions SplitHostDevice added), for
// a "cuda" target (its -arch, sm_80 by default).
runtime::CompiledModuleRef build_cuda_device(const ir::IRModule& kernels, const target::Target& target);
// The host module of a CUDA build: the device module imported; its functions run on the
// CPU emulation (`emulation`: the kernels compiled for the CPU with their threads as loops)
// when called with arrays on tvm.cpu(), and on the GPU when called with arrays on
// tvm.cuda(n) — the host code (`build_host`, compiled on the first such call) launching the
// device module's kernels (`kernels`: the functions SplitHostDevice added) from its PTX.
// A null `emulation` has `emulation_refused` say why (a call with cpu arrays raises it).
runtime::CompiledModuleRef cuda_host_module(runtime::CompiledModuleRef emulation, runtime::CompiledModuleRef device,
                                            const std::string& target_text, const ir::IRModule& kernels,
                                            std::function<runtime::CompiledModuleRef()> build_host,
                                            const std::string& emulation_refused = {});

// A CUDA build loaded from a library export_library wrote: `host` (the library's host
// functions) launches the kernels of `ptx`, described by `kernel_table`; it runs on a CUDA
// device only. BuildError for a malformed table.
runtime::CompiledModuleRef cuda_library_module(runtime::CompiledModuleRef host, const std::string& ptx,
                                               const std::string& kernel_table, const std::string& path);

}  // namespace tsch::codegen
