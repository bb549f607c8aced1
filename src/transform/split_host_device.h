// TVM's tir.SplitHostDevice and LowerDeviceKernelLaunch for a GPU target, on lowered
// PrimFuncs: each outermost loop nest bound to GPU threads becomes a kernel function
// (`<func>_kernel`, `<func>_kernel_1`, ...; parameters: the data pointers and scalars it uses,
// pointers first, then by name, as TVM sorts them), and the host function launches it with
// `T.call_packed("<kernel>", <parameters>..., <grid and block extents>...)`. Buffer accesses
// left on the host are TVM's VerifyMemory error ("Did you forget to bind?"), and one thread
// axis bound with two extents in one kernel is refused.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/module.h"

namespace tsch::transform {

// The attribute a kernel carries: its launch extents by thread tag, in launch order.
constexpr const char* kKernelLaunchParams = "tir.kernel_launch_params";

// The launch tag whose extent is the bytes of dynamic shared memory a kernel takes (TVM's).
constexpr const char* kDynSharedMemoryTag = "tir.use_dyn_shared_memory";

// Where each "shared.dyn" buffer of a kernel lies in its one dynamic shared-memory block (TVM
// merges them as MergeSharedMemoryAllocations does): in order of allocation, each at a
// multiple of 16 bytes; `total` gets the block's size. NotImplementedError for a buffer of
// symbolic size.
std::vector<std::pair<const ir::BufferNode*, int64_t>> dyn_shared_layout(const ir::Stmt& kernel_body, int64_t* total);

// Host functions keep their names; the kernels are added after them. UserError (RuntimeError)
// for the conditions above and for a kernel's shared memory over the 48 KB a block may have
// statically; NotImplementedError for what tsch's GPU path lacks (a global buffer allocated
// on the host, a kernel that allocates global memory).
ir::IRModule split_host_device(const ir::IRModule& mod, const std::string& target_kind);

}  // namespace tsch::transform
