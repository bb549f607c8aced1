// tir.LowerInitBlock: a block's `T.init()` becomes a store guarded by "every reduction
// variable is at the start of its domain", placed before the block body.
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

class InitLowerer : public ir::IRMutator {
 public:
  // Post-order: a block's init moves into its body once its children are lowered.
  ir::Stmt mutate_Block(const ir::BlockNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_Block(n, self);
    auto* block = ir::as<ir::BlockNode>(t);
    if (!block || !block->init) return t;
    ir::PrimExpr cond;
    for (const auto& iv : block->iter_vars) {
      if (iv.type != ir::IterType::CommReduce) continue;
      ir::PrimExpr at_start = ir::make_binary(ir::ExprKind::EQ, iv.var, iv.dom.min);
      cond = cond ? ir::make_binary(ir::ExprKind::And, cond, at_start) : at_start;
    }
    auto b = std::make_shared<ir::BlockNode>(*block);
    ir::Stmt init = cond ? std::make_shared<ir::IfThenElseNode>(cond, block->init, nullptr) : block->init;
    b->init = nullptr;
    b->body = ir::make_seq({init, block->body});
    return b;
  }
};

}  // namespace

Pass lower_init_block() {
  return {"tir.LowerInitBlock", [](const ir::PrimFunc& f) { return with_body(f, InitLowerer().mutate(f->body)); }};
}

}  // namespace tsch::transform
