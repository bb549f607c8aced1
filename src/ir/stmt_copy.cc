#include "ir/stmt_copy.h"

#include "ir/functor.h"

namespace tsch::ir {
namespace {

// A copy of the node itself, its children still shared.
Stmt shallow_copy(const Stmt& s) {
  switch (s->kind) {
#define TSCH_X(name)   \
  case StmtKind::name: \
    return std::make_shared<name##Node>(*as<name##Node>(s));
    TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
  }
  return s;
}

// The default mutator rebuilds a node whose children changed; a copy changes every child,
// so only leaves come back unchanged and are copied here.
class DeepCopier : public IRMutator {
 public:
  using IRMutator::mutate;
  // Whole-node on purpose: every statement, of whatever kind, is copied.
  Stmt mutate(const Stmt& s) override {
    if (!s) return s;
    Stmt out = mutate_children(s);
    if (out == s) out = shallow_copy(s);
    if (auto* loop = as<ForNode>(out)) loop->sid = 0;
    if (auto* block = as<BlockNode>(out)) block->sid = 0;
    return out;
  }
  // Expressions are immutable and shared.
  PrimExpr mutate(const PrimExpr& e) override { return e; }
};

}  // namespace

Stmt deep_copy(const Stmt& s) { return DeepCopier().mutate(s); }

}  // namespace tsch::ir
