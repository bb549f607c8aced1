// RemovePurityChecking: pure functions get the attribute `relax.force_pure` (their lowered
// forms call functions with effects: outputs written in place), and call_pure_packed becomes
// a plain call of the packed function.
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"

namespace tsch::relax::transform {
namespace {

Expr unwrap(const Expr& e) {
  auto* c = as<CallNode>(e);
  if (!c || op_name_of(c->op) != "relax.call_pure_packed") return e;
  std::vector<Expr> args(c->args.begin() + 1, c->args.end());
  return make_call(c->args[0], std::move(args), {}, c->sinfo_args);
}

}  // namespace

Pass remove_purity_checking() {
  return relax_module_pass("RemovePurityChecking", 0, [](const ir::IRModule& mod) {
    return map_relax_functions(mod, [](const std::string&, const Function& f) {
      auto g = std::make_shared<FunctionNode>(*f);
      if (g->is_pure && !ir::find_attr(g->attrs, "relax.force_pure"))
        g->attrs.emplace_back("relax.force_pure", ir::AttrValue::of_bool(true));
      std::vector<BindingBlock> blocks = f->body->blocks;
      for (auto& b : blocks) {
        for (auto& binding : b.bindings) binding.value = unwrap(binding.value);
      }
      auto body = std::make_shared<SeqExprNode>(std::move(blocks), f->body->body);
      body->struct_info = f->body->struct_info;
      g->body = body;
      return Function(g);
    });
  });
}

}  // namespace tsch::relax::transform
