// Storage scopes against GPU thread axes (TVM's runtime/thread_storage_scope.h): which
// threads share one copy of a buffer of a given scope.
#pragma once

#include <string>

namespace tsch::ir {

// Whether the threads of a loop bound to `thread_tag` share one copy of a buffer of storage
// scope `scope` (TVM's CanRelaxStorageUnderThread): shared memory is shared by threadIdx.*
// and vthread, warp memory by threadIdx.x; global and local memory by none of them (global
// is not relaxed here, local is private to each thread).
bool storage_shared_by_thread(const std::string& scope, const std::string& thread_tag);

}  // namespace tsch::ir
