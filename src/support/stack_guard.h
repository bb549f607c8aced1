// How much of the current thread's stack is left, so deep recursion (script calls, nested
// expressions) stops with RecursionError instead of running off the end of the stack —
// whatever stack the thread got (512 MiB normally, less under a low `ulimit -v`).
#pragma once

#include <cstddef>

namespace tsch {

// True when fewer than `reserve` bytes of this thread's stack remain.
bool stack_nearly_exhausted(size_t reserve = 256 * 1024);

}  // namespace tsch
