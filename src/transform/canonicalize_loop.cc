// tir.CanonicalizeLoop (TVM v0.23, the first pass of its default pipeline): a loop with a step,
// `for i in range(min, min + extent, step)`, becomes a unit-step loop from 0 over
// ceildiv(extent, step) iterations whose body reads `i * step + min` for i. Code generation
// and every later pass see unit steps only. (TVM's pass also moves loops that start past 0 to
// 0; tsch's passes and code generators take such loops as they are, so they are left alone.)
#include <unordered_map>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

class LoopCanonicalizer : public ir::IRMutator {
 public:
  ir::Stmt mutate_For(const ir::ForNode& n, const ir::Stmt& self) override {
    if (n.has_trivial_step()) return IRMutator::mutate_For(n, self);
    const ir::ForNode* loop = &n;
    const ir::Var& v = loop->loop_var;
    int64_t step;
    // A step that is not positive would never end (TVM cannot prove a symbolic one either).
    TSCH_USER_ASSERT(ir::as_const_int(loop->step, &step) && step >= 1, ValueError)
        << "Loop step for " << v->name << " may not be positive: " << ir::script(loop->step);
    auto out = std::make_shared<ir::ForNode>(*loop);
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> at{{v.get(), ir::add(ir::mul(v, loop->step), loop->min)}};
    out->body = mutate(ir::substitute(loop->body, at));
    out->min = ir::make_int(0, v->dtype);
    // ceildiv(extent, step), as TVM's pass writes it before simplifying.
    ir::PrimExpr one = ir::make_int(1, v->dtype);
    out->extent = arith::simplify(ir::floordiv(ir::sub(ir::add(loop->extent, loop->step), one), loop->step));
    out->step = nullptr;
    return out;
  }
};

}  // namespace

Pass canonicalize_loop() {
  return {"tir.CanonicalizeLoop",
          [](const ir::PrimFunc& f) { return with_body(f, LoopCanonicalizer().mutate(f->body)); }};
}

}  // namespace tsch::transform
