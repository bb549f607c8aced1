// tir.RemoveNoOp: empty sequences, loops of extent zero and `if` statements with nothing
// in either branch are dropped.
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

bool is_no_op(const ir::Stmt& s) {
  if (!s) return true;
  if (auto* seq = ir::as<ir::SeqStmtNode>(s)) return seq->seq.empty();
  return false;
}

class NoOpRemover : public ir::IRMutator {
 public:
  using IRMutator::mutate;
  ir::Stmt mutate(const ir::Stmt& s) override {
    ir::Stmt t = mutate_children(s);
    if (auto* loop = ir::as<ir::ForNode>(t)) {
      if (is_no_op(loop->body) || ir::is_zero(loop->extent)) return ir::make_seq({});
    } else if (auto* branch = ir::as<ir::IfThenElseNode>(t)) {
      if (is_no_op(branch->then_case) && is_no_op(branch->else_case)) return ir::make_seq({});
    } else if (auto* seq = ir::as<ir::SeqStmtNode>(t)) {
      std::vector<ir::Stmt> kept;
      for (const auto& x : seq->seq)
        if (!is_no_op(x)) kept.push_back(x);
      if (kept.size() != seq->seq.size()) return ir::make_seq(std::move(kept));
    }
    return t;
  }
};

}  // namespace

Pass remove_no_op() {
  return {"tir.RemoveNoOp", [](const ir::PrimFunc& f) { return with_body(f, NoOpRemover().mutate(f->body)); }};
}

}  // namespace tsch::transform
