// VMBuiltinLower (TVM 0.23 calls it LowerRuntimeBuiltin): the memory operators to the VM's
// own — R.memory.alloc_storage / alloc_tensor / kill_* to R.vm.alloc_storage (bytes, as
// uint8) / R.vm.alloc_tensor / R.vm.kill_object.
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"
#include "support/error.h"

namespace tsch::relax::transform {
namespace {

Expr lower(BlockBuilder&, const Binding& binding) {
  auto* c = as<CallNode>(binding.value);
  std::string op = c ? op_name_of(c->op) : "";
  TSCH_USER_ASSERT(op != "relax.builtin.alloc_tensor", ValueError)
      << "VMBuiltinLower encountered relax.builtin.alloc_tensor; it should have been lowered earlier using the "
         "'relax.transform.LowerAllocTensor' pass";
  if (op == "relax.memory.alloc_storage") {
    // The size is in bytes: the VM's storage is uint8 whatever the tensors in it (as TVM's).
    return make_op_call("relax.vm.alloc_storage",
                        {c->args[0], c->args[1], std::make_shared<DataTypeImmNode>(ir::DataType::uint(8)), c->args[2]});
  }
  if (op == "relax.memory.alloc_tensor") return make_op_call("relax.vm.alloc_tensor", c->args);
  if (op == "relax.memory.kill_tensor" || op == "relax.memory.kill_storage")
    return make_op_call("relax.vm.kill_object", c->args);
  return binding.value;
}

}  // namespace

Pass vm_builtin_lower() {
  return relax_module_pass("VMBuiltinLower", 0, [](const ir::IRModule& mod) {
    return map_relax_functions(mod, [](const std::string&, const Function& f) {
      return with_body(f, rewrite_bindings(f->body, BlockBuilder(), lower));
    });
  });
}

}  // namespace tsch::relax::transform
