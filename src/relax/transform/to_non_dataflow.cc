// ToNonDataflow: every dataflow block becomes an ordinary binding block and its dataflow
// variables ordinary variables (what the VM code generator expects).
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"

namespace tsch::relax::transform {

Pass to_non_dataflow() {
  return relax_module_pass("ToNonDataflow", 0, [](const ir::IRModule& mod) {
    return map_relax_functions(mod, [](const std::string&, const Function& f) {
      bool any = false;
      for (const auto& b : f->body->blocks) any |= b.is_dataflow;
      if (!any) return f;
      VarMap vmap;
      BlockBuilder bb;
      for (const auto& b : f->body->blocks) {
        bb.begin_block(false);
        for (const auto& binding : b.bindings) {
          Binding nbnd = binding;
          nbnd.value = substitute(binding.value, vmap);
          if (binding.var->is_dataflow) {
            nbnd.var = make_var(binding.var->name, binding.var->struct_info, false);
            vmap[binding.var.get()] = nbnd.var;
          }
          bb.emit_binding(std::move(nbnd));
        }
      }
      auto body = std::make_shared<SeqExprNode>(bb.finish(), substitute(f->body->body, vmap));
      body->struct_info = f->body->struct_info;
      return with_body(f, body);
    });
  });
}

}  // namespace tsch::relax::transform
