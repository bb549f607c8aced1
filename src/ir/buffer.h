// Buffers: a named, typed, shaped region of memory with a storage scope.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tsch::ir {

struct BufferNode {
  BufferNode(std::string n, DataType t, std::vector<PrimExpr> s, std::string sc = "global")
      : name(std::move(n)), dtype(t), shape(std::move(s)), scope(std::move(sc)) {}
  // Named once by the front end when a script assigns it (`Y = T.alloc_buffer(...)`).
  mutable std::string name;
  DataType dtype;
  std::vector<PrimExpr> shape;
  std::string scope = "global";
  std::vector<PrimExpr> strides;  // empty: compact row-major
  PrimExpr elem_offset;           // null: 0
  int align = 64;
  int offset_factor = 1;
  // Where the physical layout starts a new dimension (TVM's axis_separators): the logical
  // axes before separator k flatten into physical axis k. Empty: one flat dimension.
  std::vector<int64_t> axis_separators;
  // The handle variable holding the data pointer (created with the buffer).
  Var data;
  // Lowering's record of storage_align requests on an allocated buffer, (axis, factor,
  // offset) each: CompactBufferAllocation pads the axis's stride to factor * k + offset. Not
  // part of the buffer's identity (never printed or compared); set by LowerOpaqueBlock from
  // the writer block's "buffer_dim_align" annotation.
  std::vector<std::array<int64_t, 3>> dim_align;
};

// Creates a buffer with a fresh data pointer variable.
Buffer make_buffer(std::string name, DataType dtype, std::vector<PrimExpr> shape, std::string scope = "global");
// A copy of `b` with its own identity and a different name / shape / scope.
Buffer buffer_with(const Buffer& b, std::string name, std::vector<PrimExpr> shape, std::string scope);

}  // namespace tsch::ir
