// VMBuiltinLower (TVM 0.23 calls it LowerRuntimeBuiltin): the memory operators to the VM's
// own — R.memory.alloc_storage / alloc_tensor / kill_* to R.vm.alloc_storage (bytes, as
// uint8) / R.vm.alloc_tensor / R.vm.kill_object.
#include "arith/simplify.h"
#include "ir/op.h"
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"
#include "support/error.h"

namespace tsch::relax::transform {
namespace {

SeqExpr lower(const SeqExpr& seq);

Expr lower_value(const Expr& e) {
  if (auto* i = as<IfNode>(e)) {
    auto n = std::make_shared<IfNode>(i->cond, lower(i->true_branch), lower(i->false_branch));
    n->struct_info = e->struct_info;
    return n;
  }
  auto* c = as<CallNode>(e);
  std::string op = c ? op_name_of(c->op) : "";
  TSCH_INTERNAL_ASSERT(op != "relax.builtin.alloc_tensor")
      << "VMBuiltinLower: R.builtin.alloc_tensor must be lowered by LowerAllocTensor first";
  if (op == "relax.memory.alloc_storage") {
    // The size is in bytes: the VM's storage is uint8 whatever the tensors in it (as TVM's).
    return make_op_call("relax.vm.alloc_storage",
                        {c->args[0], c->args[1], std::make_shared<DataTypeImmNode>(ir::DataType::uint(8)), c->args[2]});
  }
  if (op == "relax.memory.alloc_tensor") return make_op_call("relax.vm.alloc_tensor", c->args);
  if (op == "relax.memory.kill_tensor" || op == "relax.memory.kill_storage") return make_op_call("relax.vm.kill_object", c->args);
  return e;
}

SeqExpr lower(const SeqExpr& seq) {
  BlockBuilder bb;
  for (const auto& block : seq->blocks) {
    bb.begin_block(block.is_dataflow);
    for (const auto& binding : block.bindings) {
      Binding b = binding;
      if (!b.is_match_cast()) b.value = lower_value(binding.value);
      bb.emit_binding(std::move(b));
    }
  }
  auto n = std::make_shared<SeqExprNode>(bb.finish(), seq->body);
  n->struct_info = seq->struct_info;
  return n;
}

}  // namespace

Pass vm_builtin_lower() {
  return relax_module_pass("VMBuiltinLower", 0, [](const ir::IRModule& mod) {
    return map_relax_functions(mod, [](const std::string&, const Function& f) { return with_body(f, lower(f->body)); });
  });
}

}  // namespace tsch::relax::transform
