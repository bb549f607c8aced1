#include "transform/pipeline.h"

#include <algorithm>

#include "support/error.h"
#include "transform/instrument_bound_checkers.h"

namespace tsch::transform {

ir::PrimFunc with_body(const ir::PrimFunc& f, ir::Stmt body) {
  if (body == f->body) return f;
  auto g = std::make_shared<ir::PrimFuncNode>(*f);
  g->body = std::move(body);
  return g;
}

std::vector<std::string>& lowering_notes() {
  static thread_local std::vector<std::string> notes;
  return notes;
}

const std::vector<Pass>& lowering_passes() {
  // The order TVM's default TIR pipeline applies the same rewrites in.
  static const std::vector<Pass> passes = {
      canonicalize_loop(),
      lower_cross_thread_reduction(),
      lower_init_block(),
      convert_blocks_to_opaque(),
      lower_match_buffer(),
      lower_opaque_block(),
      plan_buffer_allocation(),
      compact_buffer_allocation(),
      inject_software_pipeline(),
      flatten_buffer(),
      storage_rewrite(),
      simplify(),
      vectorize_loop(),
      unroll_loop(),
      simplify(),
      remove_no_op(),
  };
  return passes;
}

const std::vector<std::pair<std::string, std::function<Pass()>>>& named_passes() {
  static const std::vector<std::pair<std::string, std::function<Pass()>>> passes = {
      {"CanonicalizeLoop", canonicalize_loop},
      {"LowerCrossThreadReduction", lower_cross_thread_reduction},
      {"LowerInitBlock", lower_init_block},
      {"ConvertBlocksToOpaque", convert_blocks_to_opaque},
      {"LowerMatchBuffer", lower_match_buffer},
      {"LowerOpaqueBlock", lower_opaque_block},
      {"PlanAndUpdateBufferAllocationLocation", plan_buffer_allocation},
      {"CompactBufferAllocation", compact_buffer_allocation},
      {"InjectSoftwarePipeline", inject_software_pipeline},
      {"InstrumentBoundCheckers", instrument_bound_checkers},
      {"FlattenBuffer", flatten_buffer},
      {"StorageRewrite", storage_rewrite},
      {"Simplify", simplify},
      {"VectorizeLoop", vectorize_loop},
      {"UnrollLoop", unroll_loop},
      {"RemoveNoOp", remove_no_op},
  };
  return passes;
}

namespace {

// What code generation cannot do without: everything but the optimizations.
bool may_disable(const std::string& pass) {
  return pass == "tir.Simplify" || pass == "tir.StorageRewrite" || pass == "tir.UnrollLoop" || pass == "tir.RemoveNoOp";
}

}  // namespace

ir::IRModule lower(const ir::IRModule& m, const LowerOptions& options) {
  PassContext ctx = PassContext::current();
  for (const std::string& name : ctx.disabled_pass) {
    bool in_pipeline = std::any_of(lowering_passes().begin(), lowering_passes().end(),
                                   [&](const Pass& p) { return p.name() == name; });
    TSCH_USER_ASSERT(!in_pipeline || may_disable(name), ValueError)
        << "the lowering pipeline cannot run without " << name
        << ": code generation needs its result (disabled_pass may name "
        << "tir.Simplify, tir.StorageRewrite, tir.UnrollLoop or tir.RemoveNoOp)";
  }
  if (options.after_pass) {
    ctx.instruments.push_back({"after_pass", nullptr, [&options](const ir::IRModule& mod, const PassInfo& info) {
                                 for (const auto& [name, f] : mod->prim_funcs()) options.after_pass(info.name, name, f);
                               }});
  }
  // tir.add_lower_pass: the user's passes at the end of their phase, as TVM's driver does.
  std::vector<Pass> passes;
  auto add_phase = [&](int phase) {
    for (const PhasePass& p : ctx.lower_passes)
      if (std::min(p.phase, 3) == phase) passes.push_back(*p.pass);
  };
  add_phase(0);
  for (const Pass& p : lowering_passes()) {
    // As TVM's pipeline: the bound checks only when the config asks for them.
    if (p.name() == "tir.FlattenBuffer" && ctx.config_flag("tir.instrument_bound_checkers"))
      passes.push_back(instrument_bound_checkers());
    passes.push_back(p);
    if (p.name() == "tir.FlattenBuffer") add_phase(1);
    if (p.name() == "tir.UnrollLoop") add_phase(2);
  }
  add_phase(3);
  return sequential(std::move(passes), {"tir.lower", 0, {}})(m, ctx);
}

ir::PrimFunc lower(const ir::PrimFunc& f, const std::string& name, const LowerOptions& options) {
  return lower(ir::module_of(name, f), options)->prim_func(name);
}

}  // namespace tsch::transform
