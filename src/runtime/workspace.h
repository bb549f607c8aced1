// Scratch memory for generated code (large T.alloc_buffer / cache buffers that do not fit
// on the stack). As TVM's workspace pool: freed blocks stay with the thread for the next
// call instead of going back to the OS, so a kernel run in a loop does not pay page faults
// and zeroing for its packed buffers on every call.
#pragma once

#include <cstdint>

extern "C" {
// 64-byte aligned; never returns null (aborts with a message when memory runs out).
void* tsch_workspace_alloc(int64_t nbytes);
void tsch_workspace_free(void* ptr);
}
