// tsch's CPU emulation of GPU code: a lowered module (before the host/device split) whose
// kernels run as loops on the CPU — the thread blocks one after another, the threads of a
// block in turn between barriers (see threads_as_loops.cc). Running the threads of a block in
// two orders and comparing the results exposes a missing barrier.
#pragma once

#include "ir/module.h"

namespace tsch::transform {

enum class ThreadOrder { Forward, Reverse };

// A kernel whose block size is symbolic checks it at run time, as a launch on a GPU would:
// T.call_packed of this name with the threadIdx.x, .y and .z extents (1 where unbound), before
// its first block. The driver registers it (a RuntimeError past CUDA's limits).
constexpr const char* kEmulationLaunchCheck = "tsch.cuda_emulation.check_launch";

// NotImplementedError for a barrier the emulation cannot place: under a condition or inside
// a loop that depends on the thread, or after a per-thread value read from memory.
ir::IRModule threads_as_loops(const ir::IRModule& lowered, ThreadOrder order = ThreadOrder::Forward);

}  // namespace tsch::transform
