// TVM's mma builtins (transform/mma_builtins.h) on tsch's CPU emulation of kernels, after
// emulate_wmma's design: each builtin is one operation of a whole warp, run once, in the
// warp's first lane, for all 32 lanes. The emulation's build keeps the "warp" buffers they
// use whole (lower_warp_memory(keep_mma_buffers)): a [32, n] warp buffer stays one array,
// held in lane 0's copy (scope "local" here), lane l's part where LowerWarpMemory would put
// it (element x of the lane's part at (x / m) * 32m + l * m + x % m, m the lane's share).
// A lane-dependent operand (`8 * tx`, the ldmatrix row address `s * (tx % 16) + ...`) is
// evaluated with threadIdx.x replaced by the lane whose part it is:
//   T.ptx_ldmatrix  lane t's register j of matrix m: 32 bits of row t / 4 (or, transposed,
//                   16 bits of column t / 4) of the 8x8 matrix whose row addresses lanes
//                   8m..8m+7 supply; the int8 "transposed" load copies as TVM's loop does
//   T.ptx_mma       PTX's fragment layouts of m16n8k16 (f16) and m16n8k32 (s8): A, B, C
//                   gathered from the lanes, C += A @ B in the accumulator's type
//   T.mma_store     lane t's element x to row 8 * (x % 4 / 2) + t / 4, column
//                   8 * (x / 4) + 2 * (t % 4) + x % 2 of the 16x16 tile
//   T.mma_fill      the lanes' accumulator elements set to 0
// Refused (ValueError / NotImplementedError): a kernel whose threadIdx.x extent is not 32, a
// builtin on a local buffer (lane 0 cannot reach the other lanes' registers), and a warp
// buffer the builtins use that is also read or written element by element (its lanes'
// stores could not be ordered with lane 0's builtins).
#pragma once

#include <unordered_set>

#include "ir/stmt.h"
#include "transform/pass.h"

namespace tsch::transform {

// tir.LowerWarpMemory for the emulation's build: a warp buffer the mma builtins use stays whole.
Pass lower_warp_memory_keeping_mma_buffers();

// As emulate_wmma: `lane_x` the kernel's threadIdx.x variable (null when none is bound),
// `x_extent` its extent, `x_vars` every variable bound to threadIdx.x.
ir::Stmt emulate_mma(const ir::Stmt& kernel, const ir::Var& lane_x, const ir::PrimExpr& x_extent,
                     const std::unordered_set<const ir::VarNode*>& x_vars);

// PTX's fragment layouts, lane and element of each matrix entry (shared with the unit tests):
// m16n8k16 .f16: A 16x16, B 16x8; m16n8k32 .s8: A 16x32, B 32x8; C 16x8 for both.
struct FragmentSlot {
  int64_t lane, element;
};
FragmentSlot mma_a_slot(int64_t k_dim, int64_t row, int64_t col);
FragmentSlot mma_b_slot(int64_t k_dim, int64_t row, int64_t col);
FragmentSlot mma_c_slot(int64_t row, int64_t col);

}  // namespace tsch::transform
