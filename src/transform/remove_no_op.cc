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
  ir::Stmt mutate_For(const ir::ForNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_For(n, self);
    auto* loop = ir::as<ir::ForNode>(t);
    return is_no_op(loop->body) || ir::is_zero(loop->extent) ? ir::make_seq({}) : t;
  }
  ir::Stmt mutate_IfThenElse(const ir::IfThenElseNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_IfThenElse(n, self);
    auto* branch = ir::as<ir::IfThenElseNode>(t);
    return is_no_op(branch->then_case) && is_no_op(branch->else_case) ? ir::make_seq({}) : t;
  }
  ir::Stmt mutate_SeqStmt(const ir::SeqStmtNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_SeqStmt(n, self);
    // The rebuilt sequence may have collapsed to its only statement, already visited.
    auto* seq = ir::as<ir::SeqStmtNode>(t);
    if (!seq) return t;
    std::vector<ir::Stmt> kept;
    for (const auto& x : seq->seq)
      if (!is_no_op(x)) kept.push_back(x);
    return kept.size() != seq->seq.size() ? ir::make_seq(std::move(kept)) : t;
  }
};

}  // namespace

Pass remove_no_op() {
  return {"tir.RemoveNoOp", [](const ir::PrimFunc& f) { return with_body(f, NoOpRemover().mutate(f->body)); }};
}

}  // namespace tsch::transform
