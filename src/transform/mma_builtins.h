// TVM's ldmatrix / mma builtins, which its mma tensor intrinsics (tvm.tir.tensor_intrin.cuda)
// write — each one operation of a whole warp on "warp" buffers:
//   T.ptx_ldmatrix(trans, num, ".b16", local_ptr, local_offset, smem_ptr, smem_offset)
//       num (1, 2, 4) 8x8 matrices of 16-bit elements from shared memory, lane 8m + r
//       supplying row r of matrix m (at smem_ptr + smem_offset); lane t receives one 32-bit
//       register per matrix at local_ptr + local_offset (PTX ldmatrix .m8n8 .x1/.x2/.x4)
//   T.ptx_mma(shape, "row", "col", a_type, b_type, c_type, A, a_off, B, b_off, C, c_off, saturate)
//       C += A @ B by PTX mma.sync's fragment layouts (m16n8k16 fp16, m16n8k32 int8 and e4m3 / e5m2)
//   T.mma_store(16, 16, dst_ptr, src_ptr, src_offset, dst_stride)   accumulator tile -> memory
//   T.mma_fill(local_size, local_ptr, offset)                        accumulator = 0
// The CUDA C generator, LowerWarpMemory and the CPU emulation share these checks.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/expr.h"

namespace tsch::transform {

bool is_mma_call(const ir::CallNode& c);

// The (data, offset) operand positions of a builtin's warp-buffer operands.
std::vector<std::pair<size_t, size_t>> warp_operands(const ir::CallNode& c);

// What one T.ptx_mma computes (only what tsch generates and emulates).
struct PtxMma {
  int64_t m = 0, n = 0, k = 0;
  ir::DataType a, b, c;                    // element types of the operands
  std::string ptx_a, ptx_b, ptx_c;         // .f16 / .s8 / .e4m3 / .e5m2 / .f32 / .s32
  int regs_a = 0, regs_b = 0, regs_c = 0;  // 32-bit registers of each operand per lane
  int64_t elems_a() const { return regs_a * 32 / a.bits; }
  int64_t elems_b() const { return regs_b * 32 / b.bits; }
  int64_t elems_c() const { return regs_c * 32 / c.bits; }
};

// Each raises a ValueError for malformed operands and a NotImplementedError ("not supported
// yet: ...") for a shape, layout or type tsch has no code for.
PtxMma check_ptx_mma(const ir::CallNode& c);
// (trans, num): ".b16" only; a transposed load of 8-bit elements is 4 matrices (TVM copies it by a loop).
std::pair<bool, int64_t> check_ptx_ldmatrix(const ir::CallNode& c);
void check_mma_store(const ir::CallNode& c);
int64_t check_mma_fill(const ir::CallNode& c);  // local_size

// The lowest sm a kernel's mma builtins need (ldmatrix sm_75, mma.sync sm_80, over float8 sm_89); 0 for none.
int mma_min_sm(const ir::CallNode& c);

}  // namespace tsch::transform
