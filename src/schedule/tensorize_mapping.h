// Which loops of a block a tensor intrinsic's description would take (TVM's
// GetTensorizeLoopMapping): the description's loops are matched, innermost first, with the
// block's loops of the same iterator kind whose variable its bindings use directly, and each
// block loop's extent must be a multiple of its description loop's (or is padded to one).
// tile_with_tensor_intrin (stdlib) splits and reorders the block's loops by it.
#pragma once

#include <optional>
#include <vector>

#include "ir/module.h"
#include "schedule/state.h"

namespace tsch::schedule {

struct TensorizeLoopMapping {
  std::vector<std::pair<LoopSid, const ir::ForNode*>> loop_map;  // block loop -> description loop
  std::vector<const ir::ForNode*> desc_loops;                    // the description's loops, in order
  std::vector<int64_t> block_iter_paddings;                      // per block iterator; empty: none
};

// Nothing when the description cannot be mapped onto the block's loops.
std::optional<TensorizeLoopMapping> get_tensorize_loop_mapping(const ScheduleState& s, BlockSid block,
                                                               const ir::PrimFunc& desc, bool allow_padding);

}  // namespace tsch::schedule
