#include "transform/pipeline.h"

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
      lower_init_block(),   convert_blocks_to_opaque(), lower_match_buffer(), lower_opaque_block(), plan_buffer_allocation(), compact_buffer_allocation(),
      flatten_buffer(),     storage_rewrite(),     simplify(),                 vectorize_loop(),     unroll_loop(),
      simplify(),           remove_no_op(),
  };
  return passes;
}

ir::PrimFunc lower(const ir::PrimFunc& f, const std::string& name, const LowerOptions& options) {
  ir::PrimFunc cur = f;
  for (const Pass& p : lowering_passes()) {
    cur = p.run(cur);
    if (options.after_pass) options.after_pass(p.name, name, cur);
  }
  return cur;
}

ir::IRModule lower(const ir::IRModule& m, const LowerOptions& options) {
  auto out = std::make_shared<ir::IRModuleNode>();
  for (const auto& [name, f] : m->functions) out->functions.emplace_back(name, lower(f, name, options));
  return out;
}

}  // namespace tsch::transform
