// Scratch memory for generated code (large T.alloc_buffer / cache buffers that do not fit
// on the stack). As TVM's workspace pool: freed blocks stay with the thread for the next
// call instead of going back to the OS, so a kernel run in a loop does not pay page faults
// and zeroing for its packed buffers on every call.
#pragma once

#include <cstdint>

extern "C" {
// 64-byte aligned; null when the memory cannot be had (or nbytes is negative: a size that
// overflowed in generated code), and the request is remembered for the error message.
void* tsch_workspace_alloc(int64_t nbytes);
void tsch_workspace_free(void* ptr);
}

namespace tsch::runtime {
// The size of the last workspace request that failed (0: none), and forgets it.
int64_t take_failed_workspace_request();
}  // namespace tsch::runtime
