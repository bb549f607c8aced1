// tir.LowerOpaqueBlock: blocks disappear. A block's predicate becomes an `if`, its
// alloc_buffers become allocations around its body. As TVM's, a loop of extent 1 without
// annotations or a thread binding goes too (its variable replaced by the loop's start).
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

class BlockRemover : public ir::IRMutator {
 public:
  using IRMutator::mutate;
  ir::Stmt mutate(const ir::Stmt& s) override {
    if (auto* loop = ir::as<ir::ForNode>(s)) {
      if (ir::is_one(loop->extent) && loop->annotations.empty() && loop->for_kind != ir::ForKind::ThreadBinding) {
        return mutate(ir::substitute(loop->body, {{loop->loop_var.get(), loop->min}}));
      }
    }
    auto* realize = ir::as<ir::BlockRealizeNode>(s);
    if (!realize) return mutate_children(s);
    const ir::BlockNode& block = *realize->block;
    ir::Stmt body = mutate(block.body);
    if (realize->predicate && !ir::is_one(realize->predicate))
      body = std::make_shared<ir::IfThenElseNode>(realize->predicate, body, nullptr);
    for (auto it = block.alloc_buffers.rbegin(); it != block.alloc_buffers.rend(); ++it)
      body = std::make_shared<ir::AllocateNode>(*it, body);
    return body;
  }
};

}  // namespace

Pass lower_opaque_block() {
  return {"tir.LowerOpaqueBlock", [](const ir::PrimFunc& f) { return with_body(f, BlockRemover().mutate(f->body)); }};
}

}  // namespace tsch::transform
