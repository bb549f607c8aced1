// CallTIRRewrite: `y = R.call_tir(f, (a, b), out_sinfo)` becomes an explicit allocation of
// each output (R.builtin.alloc_tensor, device 0, scope "global"), a call that writes into it
// (`f(a, b, alloc)`, or R.vm.call_tir_dyn with the tir_vars shape), and `y = alloc`; the same
// for call_dps_packed with the packed function as callee.
#include "ir/op.h"
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"
#include "support/error.h"

namespace tsch::relax::transform {
namespace {

Expr alloc_for(const StructInfo& s) {
  auto* t = as<TensorSInfoNode>(s);
  TSCH_USER_ASSERT(t && t->shape && !t->unknown_dtype(), ValueError)
      << "CallTIRRewrite: an output needs a known shape and dtype, got " << sinfo_text(s);
  return make_op_call("relax.builtin.alloc_tensor",
                      {make_shape_expr(*t->shape), std::make_shared<DataTypeImmNode>(t->dtype),
                       make_prim_value(ir::make_int(0, ir::DataType::int64())), make_string_imm("global")},
                      {}, {s});
}

Expr rewrite(BlockBuilder& bb, const Binding& binding) {
  auto* call = as<CallNode>(binding.value);
  std::string op = call ? op_name_of(call->op) : "";
  if (op != "relax.call_tir" && op != "relax.call_dps_packed") return binding.value;
  // Step 1. Allocate the outputs.
  std::vector<Expr> outs;
  const StructInfo& out = call->sinfo_args.at(0);
  if (auto* tuple = as<TupleSInfoNode>(out)) {
    for (const auto& f : tuple->fields) outs.push_back(bb.emit(alloc_for(f), "alloc"));
  } else {
    outs.push_back(bb.emit(alloc_for(out), "alloc"));
  }
  // Step 2. The call writing them.
  std::vector<Expr> args = as<TupleNode>(call->args[1])->fields;
  args.insert(args.end(), outs.begin(), outs.end());
  if (call->args.size() == 3) {
    args.push_back(call->args[2]);
    bb.emit(make_op_call("relax.vm.call_tir_dyn", {call->args[0], make_tuple(args)}), "_");
  } else {
    bb.emit(make_call(call->args[0], args), "_");
  }
  // Step 3. The result is the output(s).
  return outs.size() == 1 ? outs[0] : make_tuple(outs);
}

}  // namespace

Pass call_tir_rewrite() {
  return relax_module_pass("CallTIRRewrite", 0, [](const ir::IRModule& mod) {
    return map_relax_functions(mod, [](const std::string&, const Function& f) {
      return with_body(f, rewrite_bindings(f->body, BlockBuilder(), rewrite));
    });
  });
}

}  // namespace tsch::relax::transform
