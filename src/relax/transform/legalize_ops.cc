// LegalizeOps: high-level operators (R.add, R.matmul, ...) to call_tir of generated
// prim_funcs. tsch parses no high-level operator yet, so every call left is one of the
// operators the rest of the pipeline lowers; anything else is refused by name.
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"
#include "support/error.h"

namespace tsch::relax::transform {
namespace {

void check_expr(const Expr& e) {
  if (auto* c = as<CallNode>(e)) {
    std::string op = op_name_of(c->op);
    TSCH_USER_ASSERT(op.empty() || find_op(op), NotImplementedError)
        << "not supported yet: legalizing the Relax operator " << op;
  }
  if (auto* i = as<IfNode>(e)) {
    for (const SeqExpr& s : {i->true_branch, i->false_branch}) {
      for (const auto& b : s->blocks) {
        for (const auto& binding : b.bindings) check_expr(binding.value);
      }
    }
  }
}

}  // namespace

Pass legalize_ops() {
  return relax_module_pass("LegalizeOps", 0, [](const ir::IRModule& mod) {
    for (const auto& [name, f] : mod->functions) {
      if (Function rf = as_relax_function(f)) {
        for (const auto& b : rf->body->blocks) {
          for (const auto& binding : b.bindings) check_expr(binding.value);
        }
      }
    }
    return mod;
  });
}

}  // namespace tsch::relax::transform
