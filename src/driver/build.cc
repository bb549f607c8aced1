#include "driver/build.h"

#include <list>
#include <mutex>
#include <string>
#include <vector>

#include "arith/verify_well_formed.h"
#include "codegen/llvm/codegen_nvptx.h"
#include "codegen/llvm/llvm_build.h"
#include "codegen/signature.h"
#include "codegen/source/c_module.h"
#include "codegen/source/codegen_cuda.h"
#include "ir/functor.h"
#include "ir/printer.h"
#include "runtime/packed_func.h"
#include "runtime/registry.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "transform/emulate_mma.h"
#include "transform/instrument_bound_checkers.h"
#include "transform/mma_builtins.h"
#include "transform/pipeline.h"
#include "transform/split_host_device.h"
#include "transform/threads_as_loops.h"

namespace tsch::driver {

namespace {

// The code generators tsch has, by target kind: LLVM, and C source (TVM's "c" target).
bool is_llvm_kind(const target::Target& t) { return t->kind->name == "llvm"; }
bool is_c_kind(const target::Target& t) { return t->kind->name == "c"; }
// GPU targets: CUDA C (NVRTC for PTX) or PTX from LLVM's NVPTX backend; the same lowering.
bool is_cuda_kind(const target::Target& t) { return t->kind->name == "cuda" || t->kind->name == "nvptx"; }

void check_buildable(const target::Target& t) {
  const std::string& kind = t->kind->name;
  if (is_llvm_kind(t) || is_c_kind(t) || is_cuda_kind(t)) return;
  throw UserError(UserErrorKind::RuntimeError,
                  "not supported yet: target \"" + kind + "\" (tsch generates code for llvm)");
}

// Repeated builds of the same code (REPL, tuning) reuse the compiled module. Bounded (least
// recently used dropped first) so a long search does not keep every JIT module alive.
class BuildCache {
 public:
  runtime::CompiledModuleRef find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first != key) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().second;
    }
    return nullptr;
  }
  void insert(const std::string& key, runtime::CompiledModuleRef m) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.emplace_front(key, std::move(m));
    if (entries_.size() > kCapacity) entries_.pop_back();
  }

 private:
  static constexpr size_t kCapacity = 64;
  std::mutex mu_;
  std::list<std::pair<std::string, runtime::CompiledModuleRef>> entries_;
};

BuildCache& cache() {
  static BuildCache c;
  return c;
}

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

// What is built for a CPU target: lowered with data-dependent indices checked at run time
// (unless the PassContext says tir.instrument_bound_checkers=False), hints dropped.
ir::IRModule lower_for_cpu(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  const transform::PassContext& current = transform::PassContext::current();
  if (!current.config_flag("tir.instrument_bound_checkers", true))
    return transform::strip_attr_hints(lower(mod, target, options));
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
  return transform::strip_attr_hints(lowered);
}

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

}  // namespace

// `for_emulation`: the CPU emulation's copy, whose warp buffers the mma builtins use stay
// whole (transform/emulate_mma.h); not reported to after_pass.
static ir::IRModule device_passes(const ir::IRModule& lowered, const BuildOptions& options,
                                  bool for_emulation = false) {
  // TVM's mixed-module passes of a GPU build, before the split.
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

ir::IRModule lower(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  // The host/device split follows lowering for CUDA (build). C source is scalar: vectorized
  // loops stay loops, which the C compiler vectorizes itself.
  transform::LowerOptions lower_options;
  lower_options.after_pass = options.after_pass;
  transform::lowering_notes().clear();
  // (CUDA C writes vectorized loops with its vector types, codegen_cuda_vector.cc.)
  bool scalar_only = is_c_kind(target);
  if (scalar_only) {
    auto ctx = std::make_shared<transform::PassContext>(transform::PassContext::current());
    ctx->config["tir.disable_vectorize"] = true;
    transform::PassContext::enter(ctx);
  }
  ir::IRModule lowered;
  try {
    lowered = transform::lower(mod, lower_options);
  } catch (...) {
    if (scalar_only) transform::PassContext::exit();
    throw;
  }
  if (scalar_only) transform::PassContext::exit();
  if (options.notes) *options.notes = transform::lowering_notes();
  transform::lowering_notes().clear();
  return lowered;
}

runtime::CompiledModuleRef build(const ir::IRModule& mod, const target::Target& target, const BuildOptions& options) {
  check_buildable(target);
  // Symbols reach generated C and CUDA source and the exported function table.
  codegen::check_symbol_names(mod);
  for (const auto& [name, f] : mod->functions) {
    TSCH_USER_ASSERT(f->func_kind() == ir::FuncKind::PrimFunc, NotImplementedError)
        << "not supported yet: building " << f->type_key() << " \"" << name << "\" (tvm.build compiles PrimFuncs)";
  }
  // TVM accepts a function that reads or writes past a buffer (its tests schedule such
  // functions) and compiles it; tsch refuses it here, where the access would run.
  for (const auto& [name, f] : mod->prim_funcs()) {
    std::vector<std::string> problems = arith::verify_well_formed(f, arith::kBounds);
    TSCH_USER_ASSERT(problems.empty(), ValueError)
        << "cannot build prim_func " << name << ": " << problems[0]
        << (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : std::string());
  }
  if (is_cuda_kind(target)) {
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
        << " target must be a CPU target (llvm or c), as it launches the kernels; got \"" << target->host->str()
        << "\"";
    // Host and device split (TVM's SplitHostDevice); the kernels become CUDA C, which the
    // host module imports. Its functions run the kernels on the CPU, threads as loops.
    ir::IRModule before_device = transform::strip_attr_hints(lower(mod, target, options));
    ir::IRModule lowered = device_passes(before_device, options);
    bool uses_mma = false;
    for (const auto& [name, f] : before_device->prim_funcs()) {
      ir::for_each_expr(f->body, [&](const ir::PrimExpr& e) {
        if (auto* c = ir::as<ir::CallNode>(e); c && transform::is_mma_call(*c)) uses_mma = true;
      });
    }
    // An emulation the mma builtins cannot have (a warp buffer also read element by element)
    // is refused when the module is called with cpu arrays; the GPU build stands.
    ir::IRModule emulated = uses_mma ? device_passes(before_device, options, true) : lowered;
    ir::IRModule split = transform::split_host_device(lowered, target->kind->name);
    auto kernels = std::make_shared<ir::IRModuleNode>();
    for (const auto& [name, f] : split->prim_funcs()) {
      if (options.after_pass) options.after_pass("tir.SplitHostDevice", name, f);
      const ir::AttrValue* conv = ir::find_attr(f->attrs, "calling_conv");
      if (conv && conv->i == 2) kernels->functions.emplace_back(name, f);
    }
    std::string key = target->str() + (target->host ? "\nhost " + target->host->str() : "") +
                      (options.reverse_thread_order ? "\nreverse" : "") +
                      (options.poison_allocations ? "\npoison" : "") + "\n" + ir::script(lowered);
    if (auto hit = cache().find(key)) return hit;
    runtime::CompiledModuleRef device =
        target->kind->name == "nvptx"
            ? codegen::build_nvptx_device(kernels, target->str(), target->get_str("mcpu").value_or("sm_80"))
            : codegen::build_cuda_device(kernels, target->str(), target->get_str("arch").value_or("sm_80"));
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
          transform::threads_as_loops(emulated, options.reverse_thread_order ? transform::ThreadOrder::Reverse
                                                                             : transform::ThreadOrder::Forward),
          host_target);
    } catch (const UserError& e) {
      if (!uses_mma || e.kind != UserErrorKind::NotImplementedError) throw;
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
    runtime::CompiledModuleRef m = codegen::cuda_host_module(
        emulation, device, target->host ? target->host->str() : "llvm", kernels, build_host, emulation_refused);
    cache().insert(key, m);
    return m;
  }
  if (is_c_kind(target)) {
    ir::IRModule lowered = lower_for_cpu(mod, target, options);
    std::string key = target->str() + (options.interrupt_checks ? "\n" : "\nno interrupt checks\n") +
                      (options.poison_allocations ? "poison\n" : "") + ir::script(lowered);
    if (auto hit = cache().find(key)) return hit;
    runtime::CompiledModuleRef m =
        codegen::build_c(lowered, target->str(), options.interrupt_checks, options.poison_allocations);
    cache().insert(key, m);
    return m;
  }
  codegen::LLVMTarget llvm_target = codegen::llvm_target_of(target);
  llvm_target.interrupt_checks = options.interrupt_checks;
  llvm_target.poison_allocations = options.poison_allocations;
  ir::IRModule lowered = lower_for_cpu(mod, target, options);
  if (llvm_target.num_cores > 0) runtime::set_num_threads(llvm_target.num_cores);
  std::string key = target->str() + (options.interrupt_checks ? "\n" : "\nno interrupt checks\n") +
                    (options.poison_allocations ? "poison\n" : "") + ir::script(lowered);
  if (auto hit = cache().find(key)) return hit;
  runtime::CompiledModuleRef m = codegen::build_llvm(lowered, llvm_target);
  cache().insert(key, m);
  return m;
}

}  // namespace tsch::driver
