#include "driver/gpu_build.h"

#include <mutex>
#include <string>

#include "codegen/llvm/llvm_build.h"
#include "codegen/llvm/target.h"
#include "codegen/source/codegen_cuda.h"
#include "ir/functor.h"
#include "runtime/packed_func.h"
#include "runtime/registry.h"
#include "support/error.h"
#include "transform/emulate_mma.h"
#include "transform/mma_builtins.h"
#include "transform/pass.h"
#include "transform/pipeline.h"
#include "transform/split_host_device.h"
#include "transform/threads_as_loops.h"

namespace tsch::driver {

namespace {

// What a GPU would refuse at the launch of a block size known only then (CUDA's limits): the
// CPU emulation's kernels call this first (transform::kEmulationLaunchCheck).
void register_emulation_launch_check() {
  static std::once_flag once;
  std::call_once(once, [] {
    runtime::register_global_func(
        transform::kEmulationLaunchCheck,
        runtime::make_packed_func(
            [](const std::vector<runtime::Any>& args) {
              int64_t x = args.at(0).as_int(), y = args.at(1).as_int(), z = args.at(2).as_int();
              std::string dims = "threadIdx.x=" + std::to_string(x) + ", threadIdx.y=" + std::to_string(y) +
                                 ", threadIdx.z=" + std::to_string(z);
              TSCH_USER_ASSERT(x >= 1 && y >= 1 && z >= 1, RuntimeError)
                  << "a kernel launched with an empty block (" << dims << ")";
              TSCH_USER_ASSERT(x <= 1024 && y <= 1024 && z <= 64, RuntimeError)
                  << "a kernel launched with a block of " << dims << ", over CUDA's limits (1024, 1024, 64)";
              // x * y * z cannot overflow: each factor is at most 1024 here.
              TSCH_USER_ASSERT(x * y * z <= 1024, RuntimeError)
                  << "a kernel launches " << x * y * z << " threads per block (" << dims
                  << "), over the 1024 a CUDA block may have";
              return runtime::Any();
            },
            transform::kEmulationLaunchCheck),
        /*override=*/true);
  });
}

// TVM's mixed-module passes of a GPU build, before the split. `for_emulation`: the CPU
// emulation's copy, whose warp buffers the mma builtins use stay whole
// (transform/emulate_mma.h); not reported to after_pass.
ir::IRModule device_passes(const ir::IRModule& lowered, const BuildOptions& options, bool for_emulation) {
  ir::IRModule out = lowered;
  transform::PassContext ctx = transform::PassContext::current();
  for (const transform::Pass& pass :
       {for_emulation ? transform::lower_warp_memory_keeping_mma_buffers() : transform::lower_warp_memory(),
        transform::thread_sync("shared"), transform::thread_sync("shared.dyn")}) {
    if (!ctx.pass_enabled(pass.info())) continue;  // disabled_pass=["tir.ThreadSync"]: races show in the emulation
    out = pass(out, ctx);
    if (options.after_pass && !for_emulation) {
      for (const auto& [name, f] : out->prim_funcs()) options.after_pass(pass.name(), name, f);
    }
  }
  return out;
}

void check_gpu_buildable(const ir::IRModule& mod, const target::Target& target) {
  // The kernels would be handed the host's constant array.
  for (const auto& [name, f] : mod->prim_funcs()) {
    bool has_const = false;
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) { has_const |= s->kind == ir::StmtKind::AllocateConst; });
    TSCH_USER_ASSERT(!has_const, NotImplementedError)
        << "not supported yet: T.allocate_const in a " << target->kind->name << " build (\"" << name
        << "\"); build it for llvm or c";
  }
  TSCH_USER_ASSERT(!target->host || target->host->kind->name == "llvm" || target->host->kind->name == "c", ValueError)
      << "the host of a " << target->kind->name
      << " target must be a CPU target (llvm or c), as it launches the kernels; got \"" << target->host->str() << "\"";
}

}  // namespace

LoweredModule lower_for_gpu(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  check_gpu_buildable(mod, target);
  ir::IRModule before_device = transform::strip_attr_hints(lower(mod, target, options));
  bool uses_mma = false;
  for (const auto& [name, f] : before_device->prim_funcs()) {
    ir::for_each_expr(f->body, [&](const ir::PrimExpr& e) {
      if (auto* c = ir::as<ir::CallNode>(e); c && transform::is_mma_call(*c)) uses_mma = true;
    });
  }
  ir::IRModule lowered = device_passes(before_device, options, false);
  LoweredModule out;
  // Host and device split (TVM's SplitHostDevice): the kernels become the device module,
  // which the host functions launch.
  out.mod = transform::split_host_device(lowered, target->kind->name);
  if (options.after_pass) {
    for (const auto& [name, f] : out.mod->prim_funcs()) options.after_pass("tir.SplitHostDevice", name, f);
  }
  out.emulation = uses_mma ? device_passes(before_device, options, true) : lowered;
  out.emulation_optional = uses_mma;
  return out;
}

runtime::CompiledModuleRef generate_gpu(const LoweredModule& lowered, const target::Target& target,
                                        const BuildOptions& options, const DeviceCodegen& device_codegen) {
  const ir::IRModule& split = lowered.mod;
  auto kernels = std::make_shared<ir::IRModuleNode>();
  for (const auto& [name, f] : split->prim_funcs()) {
    const ir::AttrValue* conv = ir::find_attr(f->attrs, "calling_conv");
    if (conv && conv->i == 2) kernels->functions.emplace_back(name, f);
  }
  runtime::CompiledModuleRef device = device_codegen(kernels, target);
  // The emulation is compiled for the target's host (llvm when none is given).
  codegen::LLVMTarget host_target = codegen::llvm_target_of(
      target->host && target->host->kind->name == "llvm" ? target->host : target::parse_target("llvm"));
  host_target.interrupt_checks = options.interrupt_checks;
  host_target.poison_allocations = options.poison_allocations;
  // An emulation the mma builtins cannot have (a warp buffer they use also read element by
  // element, as TVM's "simple" mma stores do) is refused when the module is called with cpu
  // arrays; the GPU build stands.
  runtime::CompiledModuleRef emulation;
  std::string emulation_refused;
  register_emulation_launch_check();
  try {
    emulation = codegen::build_llvm(
        transform::threads_as_loops(lowered.emulation, options.reverse_thread_order ? transform::ThreadOrder::Reverse
                                                                                    : transform::ThreadOrder::Forward),
        host_target);
  } catch (const UserError& e) {
    if (!lowered.emulation_optional || e.kind != UserErrorKind::NotImplementedError) throw;
    emulation_refused = e.what();
  }
  // The host functions (the split module without its kernels), compiled for a GPU run.
  auto host_functions = std::make_shared<ir::IRModuleNode>();
  for (const auto& [name, f] : split->functions) {
    bool is_kernel = false;
    for (const auto& [kname, k] : kernels->functions) is_kernel = is_kernel || kname == name;
    if (!is_kernel) host_functions->functions.emplace_back(name, f);
  }
  ir::IRModule host_ir = host_functions;
  auto build_host = [host_ir, host_target] { return codegen::build_llvm(host_ir, host_target); };
  return codegen::cuda_host_module(emulation, device, target->host ? target->host->str() : "llvm", kernels, build_host,
                                   emulation_refused);
}

}  // namespace tsch::driver
