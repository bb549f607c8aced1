// tir.UnrollLoop: loops marked unrolled with a constant extent are replaced by copies of
// their body, one per iteration. Symbolic extents stay loops (LLVM may still unroll them),
// and so do loops whose copies would exceed kMaxUnrolledStmts statements (with a note):
// LLVM then unrolls them as far as its own thresholds allow.
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/buffer_rewrite.h"
#include "transform/pass.h"
#include "transform/pipeline.h"

namespace tsch::transform {
namespace {

constexpr int64_t kMaxUnrolledStmts = 4096;

int64_t stmt_count(const ir::Stmt& s) {
  int64_t n = 0;
  ir::for_each_stmt(s, [&](const ir::Stmt&) { ++n; });
  return n;
}

class Unroller : public ir::IRMutator {
 public:
  // Inner loops first: an unrolled loop's copies hold its body already unrolled.
  ir::Stmt mutate_For(const ir::ForNode& node, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_For(node, self);
    auto* loop = ir::as<ir::ForNode>(t);
    int64_t n;
    if (loop->for_kind != ir::ForKind::Unrolled || !ir::as_const_int(loop->extent, &n)) return t;
    TSCH_USER_ASSERT(loop->has_trivial_step(), ValueError)
        << "tir.UnrollLoop: loop " << loop->loop_var->name << " has a step; tir.CanonicalizeLoop must run first";
    if (n * stmt_count(loop->body) > kMaxUnrolledStmts) {
      lowering_notes().push_back("loop " + loop->loop_var->name + " is left to LLVM to unroll: " + std::to_string(n) +
                                 " copies of its body would exceed " + std::to_string(kMaxUnrolledStmts) +
                                 " statements");
      return t;
    }
    std::vector<ir::Stmt> copies;
    for (int64_t i = 0; i < n; ++i) {
      ir::PrimExpr value = ir::add(loop->min, ir::make_int(i, loop->loop_var->dtype));
      ir::Stmt copy = ir::substitute(loop->body, {{loop->loop_var.get(), value}});
      copies.push_back(i == 0 ? copy : fresh_allocations(copy));
    }
    return ir::make_seq(std::move(copies));
  }
};

}  // namespace

Pass unroll_loop() {
  return {"tir.UnrollLoop", [](const ir::PrimFunc& f) { return with_body(f, Unroller().mutate(f->body)); }};
}

}  // namespace tsch::transform
