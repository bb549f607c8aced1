// How a block could be laid out to take a tensor intrinsic it does not match loop for loop
// (TVM's GetAutoTensorizeMappingInfo): its body is compared with the description's, buffer by
// buffer, and each block iterator is assigned to the description iterator that indexes the
// same buffers; iterators assigned to one description iterator are fused. A conv2d_nhwc
// against a 16x16x16 matmul description gives
//   lambda n, h, w, c, rh, rw, rc: (n * 256 + h * 16 + w, c, rh * 192 + rw * 64 + rc)
// (n, h, w index the output and the input as the description's m does; rh, rw, rc the input
// and the weight as k does). Iterators matching none (a batch axis) come first, unfused.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "ir/module.h"
#include "schedule/state.h"

namespace tsch::schedule {

// An index map over the block's iterators: `params` (fresh variables named after them, in the
// block's order) to `outputs`.
struct ProposedIndexMap {
  std::vector<ir::Var> params;
  std::vector<ir::PrimExpr> outputs;
};

struct AutoTensorizeMappingInfo {
  std::vector<ProposedIndexMap> mappings;  // at most one, as TVM proposes
  // The block's buffers and the description's they stand for, in order of first access.
  std::vector<std::pair<ir::Buffer, ir::Buffer>> lhs_buffer_map;
  // The description's buffers and the indices it accesses them with.
  std::vector<std::pair<ir::Buffer, std::vector<ir::PrimExpr>>> rhs_buffer_indices;
  std::vector<ir::IterVar> lhs_iters;  // the block's iterators
  std::vector<ir::IterVar> rhs_iters;  // the description block's iterators
};

// Nothing when the block's body does not compute what the description's does (up to buffers
// and indices), or when no iterator assignment covers every description iterator exactly once.
// A description that indexes a buffer with anything but its iterators is a user error
// (ValueError), as in TVM.
std::optional<AutoTensorizeMappingInfo> get_auto_tensorize_mapping_info(const ScheduleState& s, BlockSid block,
                                                                        const ir::PrimFunc& desc);

}  // namespace tsch::schedule
