// LowerAllocTensor: each R.builtin.alloc_tensor left after memory planning (the tensors a
// function returns) becomes a storage of its size in bytes and a tensor in it.
#include "arith/simplify.h"
#include "ir/op.h"
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"

namespace tsch::relax::transform {
namespace {

SeqExpr lower(const SeqExpr& seq, BlockBuilder bb);

Expr lower_value(BlockBuilder& bb, const Expr& e) {
  if (auto* i = as<IfNode>(e)) {
    auto n = std::make_shared<IfNode>(i->cond, lower(i->true_branch, bb.nested()), lower(i->false_branch, bb.nested()));
    n->struct_info = e->struct_info;
    return n;
  }
  auto* c = as<CallNode>(e);
  if (!c || op_name_of(c->op) != "relax.builtin.alloc_tensor") return e;
  ir::DataType t = as<DataTypeImmNode>(c->args[1])->value;
  ir::PrimExpr size = ir::make_int((t.bits * t.lanes + 7) / 8, ir::DataType::int64());
  for (const auto& d : as<ShapeExprNode>(c->args[0])->values) size = ir::mul(size, ir::cast(ir::DataType::int64(), d));
  Expr scope = c->args.size() > 3 ? c->args[3] : make_string_imm("global");
  Var storage = bb.emit(make_op_call("relax.memory.alloc_storage",
                                     {make_shape_expr({arith::simplify(size)}), c->args[2], scope,
                                      std::make_shared<DataTypeImmNode>(ir::DataType::uint(8))}),
                        "storage");
  return make_op_call("relax.memory.alloc_tensor",
                      {storage, make_prim_value(ir::make_int(0, ir::DataType::int64())), c->args[0], c->args[1], c->args[2]});
}

SeqExpr lower(const SeqExpr& seq, BlockBuilder bb) {
  for (const auto& block : seq->blocks) {
    bb.begin_block(block.is_dataflow);
    for (const auto& binding : block.bindings) {
      Binding b = binding;
      if (!b.is_match_cast()) b.value = lower_value(bb, binding.value);
      bb.emit_binding(std::move(b));
    }
  }
  auto n = std::make_shared<SeqExprNode>(bb.finish(), seq->body);
  n->struct_info = seq->struct_info;
  return n;
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
      return with_body(f, lower(f->body, bb));
    });
  });
}

}  // namespace tsch::relax::transform
