// Tensor-core fragments on tsch's CPU emulation of kernels (threads_as_loops runs it on each
// kernel before splitting it at its barriers). A WMMA builtin is one operation of a whole warp:
// the emulation runs it once, in the warp's first lane, on that lane's copy of the fragment
// buffer (now "local", fragment `i` at elements [i * rows * cols, (i + 1) * rows * cols) in
// row-major order) — a fill, a copy from or to memory by the call's stride and layout, or the
// product d = a * b + c in the accumulator's type. Every lane of a warp must pass the same
// operands, as CUDA requires: operands that depend on threadIdx.x, or a threadIdx.x extent that
// is not whole warps, are refused (ValueError).
#pragma once

#include <unordered_set>

#include "ir/stmt.h"

namespace tsch::transform {

// `lane_x` is the kernel's threadIdx.x variable (null when the kernel binds none), `x_extent`
// its extent; `x_vars` every variable bound to threadIdx.x.
ir::Stmt emulate_wmma(const ir::Stmt& kernel, const ir::Var& lane_x, const ir::PrimExpr& x_extent,
                      const std::unordered_set<const ir::VarNode*>& x_vars);

}  // namespace tsch::transform
