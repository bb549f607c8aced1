// LowerAllocTensor: each R.builtin.alloc_tensor left after memory planning (the tensors a
// function returns) becomes a storage of its size in bytes and a tensor in it.
#include "ir/op.h"
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"

namespace tsch::relax::transform {
namespace {

Expr lower(BlockBuilder& bb, const Binding& binding) {
  auto* c = as<CallNode>(binding.value);
  if (!c || op_name_of(c->op) != "relax.builtin.alloc_tensor") return binding.value;
  ir::DataType t = as<DataTypeImmNode>(c->args[1])->value;
  Expr scope = c->args.size() > 3 ? c->args[3] : make_string_imm("global");
  Var storage = bb.emit(make_op_call("relax.memory.alloc_storage",
                                     {make_shape_expr({storage_bytes(as<ShapeExprNode>(c->args[0])->values, t)}),
                                      c->args[2], scope, std::make_shared<DataTypeImmNode>(ir::DataType::uint(8))}),
                        "storage");
  return make_op_call("relax.memory.alloc_tensor", {storage, make_prim_value(ir::make_int(0, ir::DataType::int64())),
                                                    c->args[0], c->args[1], c->args[2]});
}

}  // namespace

Pass lower_alloc_tensor() {
  return relax_module_pass("LowerAllocTensor", 0, [](const ir::IRModule& mod) {
    return map_relax_functions(mod, [](const std::string&, const Function& f) {
      BlockBuilder bb;
      // Names the function already uses stay taken (storage1 after the planner's storage).
      for (const auto& b : f->body->blocks) {
        for (const auto& binding : b.bindings) bb.fresh_name(binding.var->name);
      }
      return with_body(f, rewrite_bindings(f->body, bb, lower));
    });
  });
}

}  // namespace tsch::relax::transform
