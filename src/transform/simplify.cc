// tir.Simplify: integer arithmetic (indices, conditions, loop bounds) is simplified with the
// ranges of the enclosing loop variables; conditions decided by those ranges are removed.
#include "arith/simplify.h"

#include "arith/int_set.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"
#include "transform/wmma_fragments.h"

namespace tsch::transform {
namespace {

class Simplifier : public ir::IRMutator {
 public:
  // Loads, stores and pointer-taking calls get their indices simplified after their children.
  ir::PrimExpr mutate_BufferLoad(const ir::BufferLoadNode& n, const ir::PrimExpr& self) override {
    ir::PrimExpr t = IRMutator::mutate_BufferLoad(n, self);
    auto* load = ir::as<ir::BufferLoadNode>(t);
    bool changed = false;
    auto idx = simplify_all(load->indices, changed);
    return changed ? std::make_shared<ir::BufferLoadNode>(load->dtype, load->buffer, std::move(idx)) : t;
  }

  // The offsets, strides and fragment indices of pointer-taking builtins (the tensor-core
  // calls, access_ptr) are index arithmetic too.
  ir::PrimExpr mutate_Call(const ir::CallNode& n, const ir::PrimExpr& self) override {
    ir::PrimExpr t = IRMutator::mutate_Call(n, self);
    auto* c = ir::as<ir::CallNode>(t);
    if (!transform::is_wmma_call(*c) && c->op != "tvm_access_ptr") return t;
    std::vector<ir::PrimExpr> args = c->args;
    bool changed = false;
    for (auto& a : args) {
      if (!(a->dtype.is_int() && a->dtype.lanes == 1) || ir::as<ir::IntImmNode>(a)) continue;
      ir::PrimExpr simple = simplify_int(a);
      changed |= simple != a;
      a = simple;
    }
    return changed ? std::make_shared<ir::CallNode>(c->dtype, c->op, std::move(args)) : t;
  }

  ir::Stmt mutate_For(const ir::ForNode& loop, const ir::Stmt& self) override {
    ir::PrimExpr mn = simplify_int(loop.min), ext = simplify_int(loop.extent);
    dom_[loop.loop_var.get()] = {mn, arith::simplify(ir::sub(ir::add(mn, ext), ir::make_int(1, ext->dtype)), dom_)};
    ir::Stmt body = mutate(loop.body);
    dom_.erase(loop.loop_var.get());
    if (mn == loop.min && ext == loop.extent && body == loop.body) return self;
    auto f = std::make_shared<ir::ForNode>(loop);
    f->min = mn;
    f->extent = ext;
    f->body = body;
    return f;
  }

  ir::Stmt mutate_BufferStore(const ir::BufferStoreNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_BufferStore(n, self);
    auto* store = ir::as<ir::BufferStoreNode>(t);
    bool changed = false;
    auto idx = simplify_all(store->indices, changed);
    return changed ? std::make_shared<ir::BufferStoreNode>(store->buffer, store->value, std::move(idx)) : t;
  }

  // A condition the loop ranges decide leaves the branch taken.
  ir::Stmt mutate_IfThenElse(const ir::IfThenElseNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_IfThenElse(n, self);
    auto* branch = ir::as<ir::IfThenElseNode>(t);
    ir::PrimExpr cond = simplify_int(branch->condition);
    if (arith::can_prove(cond, dom_)) return branch->then_case;
    if (arith::can_prove(ir::logical_not(cond), dom_) || never_equal(cond))
      return branch->else_case ? branch->else_case : ir::make_seq({});
    if (cond != branch->condition)
      return std::make_shared<ir::IfThenElseNode>(cond, branch->then_case, branch->else_case);
    return t;
  }

 private:
  // `a == b` where a - b cannot be zero over the loop ranges (e.g. an unrolled `k * 4 + 1 == 0`).
  bool never_equal(const ir::PrimExpr& cond) {
    auto* eq = ir::as<ir::EQNode>(cond);
    if (!eq || !eq->a->dtype.is_integer()) return false;
    arith::Interval iv = arith::eval_interval(arith::simplify(ir::sub(eq->a, eq->b), dom_), dom_);
    int64_t lo, hi;
    return (iv.min && ir::as_const_int(iv.min, &lo) && lo > 0) || (iv.max && ir::as_const_int(iv.max, &hi) && hi < 0);
  }

  ir::PrimExpr simplify_int(const ir::PrimExpr& e) {
    if (!e || e->dtype.lanes != 1 || e->dtype.is_float()) return e;
    return arith::simplify(e, dom_);
  }
  std::vector<ir::PrimExpr> simplify_all(const std::vector<ir::PrimExpr>& v, bool& changed) {
    std::vector<ir::PrimExpr> out;
    for (const auto& e : v) {
      out.push_back(simplify_int(e));
      changed |= out.back() != e;
    }
    return out;
  }

  arith::VarDomain dom_;
};

}  // namespace

Pass simplify() {
  return {"tir.Simplify", [](const ir::PrimFunc& f) { return with_body(f, Simplifier().mutate(f->body)); }};
}

}  // namespace tsch::transform
