// Warp shuffles for tsch's CPU emulation of kernels (threads_as_loops runs it first): the
// emulation runs the threads of a block one after another between barriers, so a value one
// thread reads from another's registers (T.tvm_warp_shuffle_down / T.tvm_warp_shuffle, as the
// warp-level allreduce makes) goes through shared memory instead — each thread stores the
// value it offers, a barrier, each reads its source lane's (its own where the source is past
// its segment of `width` lanes, as __shfl_down_sync gives), a barrier.
// T.tvm_warp_activemask() is all lanes.
#pragma once

#include "ir/module.h"

namespace tsch::transform {

ir::IRModule emulate_warp_shuffles(const ir::IRModule& lowered);

}  // namespace tsch::transform
