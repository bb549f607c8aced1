// The thread pool parallel loops run on. Its size is TVM_NUM_THREADS, or the number of
// cores. Generated code calls tsch_parallel_for; a loop nested in a running parallel loop
// runs serially on the calling thread.
#pragma once

#include <cstdint>

extern "C" {
// Runs fn(task, num_tasks, closure, begin, extent) for task in [0, num_tasks), where
// num_tasks = min(4 * pool size, extent), each task on whichever thread takes it next
// (fn covers its own chunk of [begin, begin + extent)); returns when all are done: 0, or
// the nonzero status a task returned (e.g. its workspace could not be allocated).
int32_t tsch_parallel_for(int32_t (*fn)(int64_t, int64_t, void*, int64_t, int64_t), void* closure, int64_t begin,
                          int64_t extent);
}

namespace tsch::runtime {

int num_threads();
// Sets the pool size for later loops (e.g. from a target's --num-cores); 0 restores the default.
void set_num_threads(int n);

}  // namespace tsch::runtime
