// The one build entry: lower a module for a target and generate its code. tvm.build,
// tvm.compile, tvm.lower, the build-check mode (differential.h) and later relax.build, TE and
// the tuner's builder all come through here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/module.h"
#include "target/target.h"

namespace tsch::driver {

struct BuildOptions {
  // Called after each lowering pass with the pass name and the function's new state
  // (TSCH_PRINT_AFTER_ALL).
  std::function<void(const std::string& pass, const std::string& func, const ir::PrimFunc&)> after_pass;
  // Where notes the passes leave for the user go (a vectorized loop that runs scalar); null:
  // dropped.
  std::vector<std::string>* notes = nullptr;
  // Poll Ctrl-C at the head of outer loops (bench/matmul_bench measures what it costs).
  bool interrupt_checks = true;
  // The CPU emulation of a CUDA build runs the threads of a block in reverse order (the
  // build-check runs both orders: a result that depends on it is a race).
  bool reverse_thread_order = false;
  // Fill every allocation (stack, workspace, shared and per-thread memory) with 0xFF bytes
  // (NaN for floats, -1 for integers) each time it is entered, so code that reads an
  // intermediate before writing it shows in a differential check instead of reading what an
  // earlier run left there.
  bool poison_allocations = false;
};

// The module after the target's TIR lowering pipeline.
ir::IRModule lower(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options = {});

// Lowers and compiles `mod` for `target`. Builds of the same lowered code for the same target
// share one compiled module (a bounded cache, safe to use from several threads). Throws
// UserError for targets tsch cannot build for yet and runtime::BuildError when code
// generation refuses the module.
runtime::CompiledModuleRef build(const ir::IRModule& mod, const target::Target& target,
                                 const BuildOptions& options = {});

}  // namespace tsch::driver
