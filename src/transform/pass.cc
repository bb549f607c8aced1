#include "transform/pass.h"

#include <algorithm>

#include "support/error.h"

namespace tsch::transform {

namespace {

// Config keys tsch honours, with their type: "bool".
const std::vector<std::pair<std::string, std::string>>& honoured_configs() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"tir.disable_vectorize", "bool"},        // vectorized loops run as serial loops
      {"tir.disable_storage_rewrite", "bool"},  // no memory reuse between allocations
      {"tir.disable_assert", "bool"},  // tsch's generated code has no asserts (arguments are checked before the call)
      {"tir.instrument_bound_checkers",
       "bool"},                              // tsch's default is True: data-dependent indices are checked at run time
      {"tir.noalias", "bool"},               // only True: buffers never alias (tsch's code generator assumes it)
      {"testing.immutable_module", "bool"},  // passes never mutate their input here anyway
      {"tir.add_lower_pass", "ffi.Array"},   // [(phase, pass), ...]: held in PassContext::lower_passes
  };
  return keys;
}

// TVM's other keys: accepted by name, refused as not supported yet.
const std::vector<std::string>& other_tvm_configs() {
  static const std::vector<std::string> keys = {
      "cuda.kernels_output_dir",
      "relax.FuseOps.max_depth",
      "relax.backend.use_cuda_graph",
      "relax.fallback_device_type",
      "relax.transform.apply_legalize_ops",
      "tir.HoistExpression",
      "tir.HoistIfThenElse",
      "tir.InjectDoubleBuffer",
      "tir.LoopPartition",
      "tir.ReduceBranchingThroughOvercompute",
      "tir.RemoveNoOp",
      "tir.Simplify",
      "tir.UnrollLoop",
      "tir.debug_keep_trivial_loop",
      "tir.detect_global_barrier",
      "tir.disable_cse_tir",
      "tir.enable_buffer_level_predication",
      "tir.enable_debug",
      "tir.enable_equiv_terms_in_cse_tir",
      "tir.instr_siblings",
      "tir.instrument_lwp",
      "tir.is_entry_func",
      "tir.lwp_disable_func_prof",
      "tir.lwp_max_depth",
      "tir.lwp_min_height",
      "tir.merge_static_smem",
      "tir.ptx_ldg32",
      "tir.reset_start_id",
      "tir.use_async_copy",
      "tir.vtcm_capacity",
  };
  return keys;
}

thread_local std::vector<std::shared_ptr<const PassContext>> context_stack;

void run_instruments(const PassContext& ctx, const ir::IRModule& mod, const PassInfo& info, bool before) {
  for (const PassInstrument& inst : ctx.instruments) {
    const auto& hook = before ? inst.run_before_pass : inst.run_after_pass;
    if (hook) hook(mod, info);
  }
}

}  // namespace

bool PassContext::pass_enabled(const PassInfo& info) const {
  auto has = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), info.name) != names.end();
  };
  if (has(required_pass)) return true;
  if (has(disabled_pass)) return false;
  return opt_level >= info.opt_level;
}

bool PassContext::config_flag(const std::string& key, bool otherwise) const {
  auto it = config.find(key);
  if (it == config.end()) return otherwise;
  return it->is_boolean() ? it->get<bool>() : it->is_number_integer() ? it->get<int64_t>() != 0 : otherwise;
}

const PassContext& PassContext::current() {
  static const PassContext default_context;
  return context_stack.empty() ? default_context : *context_stack.back();
}

void PassContext::enter(std::shared_ptr<const PassContext> ctx) { context_stack.push_back(std::move(ctx)); }

void PassContext::exit() {
  TSCH_INTERNAL_ASSERT(!context_stack.empty()) << "PassContext exit without enter";
  context_stack.pop_back();
}

std::vector<std::string> PassContext::list_configs() {
  std::vector<std::string> keys;
  for (const auto& [key, type] : honoured_configs()) keys.push_back(key);
  keys.insert(keys.end(), other_tvm_configs().begin(), other_tvm_configs().end());
  std::sort(keys.begin(), keys.end());
  return keys;
}

void PassContext::validate_config_key(const std::string& key) {
  bool honoured =
      std::any_of(honoured_configs().begin(), honoured_configs().end(), [&](const auto& e) { return e.first == key; });
  if (honoured) return;
  bool known = std::find(other_tvm_configs().begin(), other_tvm_configs().end(), key) != other_tvm_configs().end();
  TSCH_USER_ASSERT(!known, NotImplementedError) << "not supported yet: PassContext config '" << key << "'";
  std::string candidates;
  for (const std::string& k : list_configs()) candidates += (candidates.empty() ? "" : ", ") + k;
  throw UserError(UserErrorKind::AttributeError, "Invalid config option '" + key + "' candidates are: " + candidates);
}

void PassContext::validate_config(const nlohmann::json& config) {
  TSCH_USER_ASSERT(config.is_object(), TypeError) << "PassContext config must be a dict";
  for (const auto& [key, value] : config.items()) {
    validate_config_key(key);
    TSCH_USER_ASSERT(key != "tir.add_lower_pass", TypeError)
        << "PassContext config 'tir.add_lower_pass' holds passes: set PassContext::lower_passes";
    TSCH_USER_ASSERT(value.is_boolean() || value.is_number_integer(), TypeError)
        << "PassContext config '" << key << "' expects a bool, got " << value.dump();
    bool on = value.is_boolean() ? value.get<bool>() : value.get<int64_t>() != 0;
    TSCH_USER_ASSERT(key != "tir.noalias" || on, NotImplementedError)
        << "not supported yet: PassContext config 'tir.noalias': False (tsch's code generator assumes buffers never "
           "alias)";
  }
}

Pass::Pass(PassInfo info, ModuleFunction run) : info_(std::move(info)), run_(std::move(run)) {}

Pass::Pass(std::string name, std::function<ir::PrimFunc(const ir::PrimFunc&)> run)
    : Pass(prim_func_pass({std::move(name), 0, {}}, [run = std::move(run)](const ir::PrimFunc& f, const ir::IRModule&,
                                                                           const PassContext&) { return run(f); })) {}

ir::IRModule Pass::operator()(const ir::IRModule& mod) const { return (*this)(mod, PassContext::current()); }

ir::IRModule Pass::operator()(const ir::IRModule& mod, const PassContext& ctx) const {
  if (is_sequential()) return run_(mod, ctx);
  run_instruments(ctx, mod, info_, true);
  ir::IRModule out = run_(mod, ctx);
  run_instruments(ctx, out, info_, false);
  return out;
}

Pass prim_func_pass(PassInfo info, Pass::FunctionPassFunction run) {
  return Pass(std::move(info), [run = std::move(run)](const ir::IRModule& mod, const PassContext& ctx) -> ir::IRModule {
    auto out = std::make_shared<ir::IRModuleNode>();
    bool changed = false;
    out->attrs = mod->attrs;
    // Functions of other kinds pass through unchanged.
    for (const auto& [name, base] : mod->functions) {
      ir::PrimFunc f = ir::as_prim_func(base);
      ir::BaseFunc g = f ? run(f, mod, ctx) : base;
      changed |= g != base;
      out->functions.emplace_back(name, std::move(g));
    }
    return changed ? ir::IRModule(out) : mod;
  });
}

Pass sequential(std::vector<Pass> passes, PassInfo info) {
  std::vector<Pass> inner = passes;
  Pass seq(std::move(info), [passes = std::move(passes)](const ir::IRModule& mod, const PassContext& ctx) {
    ir::IRModule cur = mod;
    for (const Pass& p : passes)
      if (ctx.pass_enabled(p.info())) cur = p(cur, ctx);
    return cur;
  });
  seq.inner_ = std::move(inner);
  seq.sequential_ = true;
  return seq;
}

}  // namespace tsch::transform
