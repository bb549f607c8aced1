// Tensor-core fragments in a lowered kernel (TVM's InferFragment): a buffer in scope
// "wmma.matrix_a", "wmma.matrix_b" or "wmma.accumulator" is an array of warp-wide fragments
// that only the four WMMA builtins reach —
//   T.tvm_fill_fragment(frag, m, n, k, index, value)
//   T.tvm_load_matrix_sync(frag, m, n, k, index, ptr, stride, layout)
//   T.tvm_store_matrix_sync(frag, m, n, k, index, ptr, stride, layout)
//   T.tvm_mma_sync(d, d_index, a, a_index, b, b_index, c, c_index)     (d = a * b + c)
// Each fragment is rows x cols elements of the buffer: m x k for matrix_a, k x n for
// matrix_b, m x n for the accumulator; `index` picks one. The shape (m, n, k) comes from the
// calls and must agree for a buffer and across an mma; matrix_a/b take their layout from
// their loads. Both the CUDA C generator and the CPU emulation read this.
#pragma once

#include <string>
#include <unordered_map>

#include "ir/stmt.h"

namespace tsch::transform {

struct WmmaFragment {
  const ir::BufferNode* buffer = nullptr;
  std::string scope;  // wmma.matrix_a / wmma.matrix_b / wmma.accumulator
  int64_t m = 0, n = 0, k = 0;
  std::string layout;  // row_major / col_major (matrix_a and matrix_b)
  int64_t rows() const;
  int64_t cols() const;
  int64_t count() const;  // fragments in the buffer
};

bool is_wmma_scope(const std::string& scope);
bool is_wmma_call(const ir::CallNode& c);

// The fragments of a kernel by data variable. ValueError / NotImplementedError (with the
// buffer and call named) for what neither CUDA nor the emulation can run: a fragment read or
// written element by element, shapes or layouts that disagree, a shape or dtype WMMA lacks,
// a builtin with the wrong operands.
std::unordered_map<const ir::VarNode*, WmmaFragment> infer_wmma_fragments(const ir::Stmt& kernel);

}  // namespace tsch::transform
