// TVM's buffer layout queries (its tir/ir/buffer.cc; here beside the simplifier they use):
// Buffer.offset_of (BufferNode::ElemOffset, with the MergeMulMod simplification of its
// indices), get_flattened_buffer and access_ptr.
#pragma once

#include <optional>
#include <vector>

#include "ir/buffer.h"

namespace tsch::arith {

// The offset of `indices` in the flattened buffer, one expression per physical axis (an
// axis_separators group), the element offset added and each simplified, as TVM's ElemOffset.
// Throws ir::IRError (tvm.error.InternalError in scripts) with TVM's words when the index
// count is not the rank.
std::vector<ir::PrimExpr> buffer_elem_offset(const ir::Buffer& b, const std::vector<ir::PrimExpr>& indices);

// TVM's Buffer.get_flattened_buffer: one axis per axis_separators group (the product of its
// extents, or strides[first] * shape[first] for a strided buffer); `b` itself when nothing
// changes. Throws a ValueError UserError (TVM's words) for invalid separators.
ir::Buffer flattened_buffer(const ir::Buffer& b);

// TVM's Buffer.access_ptr: `T.tvm_access_ptr(T.type_annotation(dtype), data, elem_offset +
// offset, extent, mask)` typed `ptr_type`.
ir::PrimExpr buffer_access_ptr(const ir::Buffer& b, int64_t mask, ir::DataType ptr_type, int content_lanes,
                               const ir::PrimExpr& offset, const std::optional<ir::PrimExpr>& extent);

}  // namespace tsch::arith
