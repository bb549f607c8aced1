// The CPU backends: LLVM (the JIT) and C source. Both lower with data-dependent indices
// checked at run time (unless the PassContext says tir.instrument_bound_checkers=False) and
// the lowering's hints dropped.
#include "driver/cpu_build.h"

#include <mutex>

#include "codegen/llvm/llvm_build.h"
#include "codegen/llvm/target.h"
#include "codegen/source/c_module.h"
#include "runtime/packed_func.h"
#include "runtime/registry.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "transform/instrument_bound_checkers.h"
#include "transform/pass.h"
#include "transform/pipeline.h"

namespace tsch::driver {

namespace {

// An index a bound check found outside its buffer (transform/instrument_bound_checkers.h).
void register_index_out_of_range() {
  static std::once_flag once;
  std::call_once(once, [] {
    runtime::register_global_func(transform::kIndexOutOfRange,
                                  runtime::make_packed_func(
                                      [](const std::vector<runtime::Any>& args) -> runtime::Any {
                                        TSCH_USER_ASSERT(false, IndexError)
                                            << "index " << args.at(1).as_int() << " is out of bounds for axis "
                                            << args.at(3).as_int() << " of buffer " << args.at(0).as_str()
                                            << " with size " << args.at(2).as_int();
                                        return runtime::Any();
                                      },
                                      transform::kIndexOutOfRange),
                                  /*override=*/true);
  });
}

}  // namespace

LoweredModule lower_for_cpu(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  const transform::PassContext& current = transform::PassContext::current();
  if (!current.config_flag("tir.instrument_bound_checkers", true))
    return {transform::strip_attr_hints(lower(mod, target, options)), nullptr};
  register_index_out_of_range();
  auto ctx = std::make_shared<transform::PassContext>(current);
  ctx->config["tir.instrument_bound_checkers"] = true;
  transform::PassContext::enter(ctx);
  ir::IRModule lowered;
  try {
    lowered = lower(mod, target, options);
  } catch (...) {
    transform::PassContext::exit();
    throw;
  }
  transform::PassContext::exit();
  return {transform::strip_attr_hints(lowered), nullptr};
}

LoweredModule lower_for_llvm(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  // -num-cores sizes the thread pool for this build's calls (also when the cache has it).
  codegen::LLVMTarget llvm_target = codegen::llvm_target_of(target);
  if (llvm_target.num_cores > 0) runtime::set_num_threads(llvm_target.num_cores);
  return lower_for_cpu(mod, target, options);
}

runtime::CompiledModuleRef generate_llvm(const LoweredModule& lowered, const target::Target& target,
                                         const BuildOptions& options) {
  codegen::LLVMTarget llvm_target = codegen::llvm_target_of(target);
  llvm_target.interrupt_checks = options.interrupt_checks;
  llvm_target.poison_allocations = options.poison_allocations;
  return codegen::build_llvm(lowered.mod, llvm_target);
}

runtime::CompiledModuleRef generate_c(const LoweredModule& lowered, const target::Target& target,
                                      const BuildOptions& options) {
  return codegen::build_c(lowered.mod, target, options.interrupt_checks, options.poison_allocations);
}

}  // namespace tsch::driver
