// The Relax passes relax.build runs (TVM's names; each callable from scripts as
// relax.transform.X()(mod) and printed after with --print-after-all), one per file.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "transform/pass.h"

namespace tsch::relax::transform {

using tsch::transform::Pass;

// High-level operators to call_tir. tsch has no high-level operators yet: the pass checks
// that none is left (a later issue brings them and their legalization).
Pass legalize_ops();
// Dataflow blocks become ordinary binding blocks, dataflow variables ordinary variables.
Pass to_non_dataflow();
// Marks pure functions `relax.force_pure` and unwraps call_pure_packed, so the lowered
// forms (explicit allocation, calls writing their outputs) are accepted in them.
Pass remove_purity_checking();
// call_tir / call_dps_packed to explicit output allocation (R.builtin.alloc_tensor) and a
// call that writes into it.
Pass call_tir_rewrite();
// Tensors that do not leave the function get storage from a pool: one storage serves
// tensors whose lifetimes do not overlap (same dtype; constant sizes take the largest,
// symbolic sizes must be equal), with kill_tensor after a tensor's last use and
// kill_storage at the end.
Pass static_plan_block_memory();
// The allocations memory planning left (tensors a function returns): storage of the
// tensor's size in bytes and the tensor in it (R.memory.*).
Pass lower_alloc_tensor();
// R.memory.* to the VM's allocation ops (R.vm.*).
Pass vm_builtin_lower();
// Symbolic shapes to the VM's shape heap: parameters and match_cast checked and their
// dimensions stored, shapes with symbolic dimensions built at run time (computed ones by a
// generated prim_func `shape_func`).
Pass vm_shape_lower();

// relax.build's pipeline, in order.
std::vector<Pass> default_build_pipeline();
// Every pass above by TVM's name, for relax.transform.<Name>() in scripts.
const std::vector<std::pair<std::string, std::function<Pass()>>>& named_relax_passes();

}  // namespace tsch::relax::transform
