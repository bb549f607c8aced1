// fuse: merge a chain of perfectly nested loops into one (TVM's Fuse).
//
//   for i, j in T.grid(128, 64):     sch.fuse(i, j)      for i_j_fused in range(8192):
//     ... vi = i, vj = j ...         ─────────────▶        ... vi = i_j_fused // 64, vj = i_j_fused % 64 ...
#include <fmt/format.h>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNoLoopError, "NoLoopError", "fuse expects at least one loop",
                         "fuse expects at least one loop");
TSCH_SCHEDULE_ERROR_KIND(kOuterNotInnerParent, "OuterNotInnerParent",
                         "The outer loop is not the parent of the inner loop",
                         "The loops can't be fused because the outer loop {0} is not the parent of the inner loop {1}");
TSCH_SCHEDULE_ERROR_KIND(kDependentLoopError, "DependentLoopError", "A loop's `extent` is dependent on another loop",
                         "A loop {0}'s `extent` is dependent on another loop");

}  // namespace

LoopSid fuse(ScheduleState& s, const std::vector<LoopSid>& loop_sids, bool preserve_unit_iters) {
  // Step 1. Check: a chain where each loop is the only child of the previous one.
  if (loop_sids.empty()) fail(s, kNoLoopError, {});
  std::vector<const ForNode*> loops;
  for (size_t i = 0; i < loop_sids.size(); ++i) {
    const ForNode* l = &s.loop_at(loop_sids[i]);
    if (!l->annotations.empty() || l->for_kind == ForKind::ThreadBinding) {
      fail(s, kHasAnnotationOrThreadBindingError, {loop_sids[i]});
    }
    if (!is_zero(l->min)) fail(s, kLoopNotStartWithZeroError, {loop_sids[i]});
    if (i > 0) {
      if (s.info(loop_sids[i])->parent != loop_sids[i - 1]) {
        fail(s, kOuterNotInnerParent, {loop_sids[i - 1], loop_sids[i]});
      }
      if (loops.back()->body.get() != static_cast<const StmtNode*>(l)) {
        fail(s, kNotOnlyChildError, {loop_sids[i - 1], loop_sids[i]});
      }
    }
    loops.push_back(l);
  }
  for (size_t i = 0; i < loops.size(); ++i) {
    for (size_t j = 0; j < loops.size(); ++j) {
      const VarNode* v = loops[j]->loop_var.get();
      if (i != j && uses_var(loops[i]->extent, [&](const VarNode* x) { return x == v; })) {
        fail(s, kDependentLoopError, {loop_sids[i]}, "A loop {0}'s `extent` is dependent on another loop " + v->name);
      }
    }
  }

  // Step 2. The fused variable and what each old variable becomes.
  // The widest of the loops' types, as TVM's (a narrower variable gets its value cast back).
  DataType t = loops[0]->loop_var->dtype;
  for (const ForNode* l : loops) {
    if (l->loop_var->dtype.bits > t.bits) t = l->loop_var->dtype;
  }
  std::string name;
  for (const ForNode* l : loops) name += l->loop_var->name + "_";
  Var fused = new_loop_var(name + "fused", t);
  PrimExpr extent = make_int(1, t);
  std::vector<const ForNode*> kept;
  for (const ForNode* l : loops) {
    if (!preserve_unit_iters && is_one(l->extent)) continue;
    kept.push_back(l);
    extent = mul(extent, cast(t, l->extent));
  }
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (const ForNode* l : loops) vmap[l->loop_var.get()] = make_int(0, l->loop_var->dtype);
  PrimExpr inner = make_int(1, t);
  for (size_t i = kept.size(); i-- > 0;) {
    // TVM's form: `fused % (inner * extent) // inner` for a middle loop, `fused // inner` for
    // the outermost, `fused % extent` for the innermost.
    PrimExpr v = i > 0 ? floormod(fused, mul(inner, cast(t, kept[i]->extent))) : fused;
    if (!is_one(inner)) v = floordiv(v, inner);
    vmap[kept[i]->loop_var.get()] = cast(kept[i]->loop_var->dtype, v);
    inner = mul(inner, cast(t, kept[i]->extent));
  }
  arith::VarDomain dom = loop_domain(s, loop_sids[0]);
  for (const ForNode* l : loops) dom.erase(l->loop_var.get());
  dom[fused.get()] = arith::interval_of(Range{make_int(0, t), extent});

  // Step 3. Rewrite.
  Stmt body = substitute_bindings(loops.back()->body, vmap, dom);
  // TVM simplifies the product (`n * 16384`, `T.min(31, 126 - i * 32) * 128 + 128`).
  auto f = std::make_shared<ForNode>(fused, make_int(0, t), arith::simplify(extent), ForKind::Serial, body);
  f->sid = s.fresh_sid();
  s.replace(loop_sids[0], f);
  return sid_of(*f);
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_fuse_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "Fuse", "fuse", {input("loops", ParamType::Loops), attr("preserve_unit_iters", ParamType::Bool, "True")},
      OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        std::vector<LoopSid> loops;
        for (const TraceArg& a : c.inputs) loops.push_back(sch.loop_sid(a));
        output_loops(c, {fuse(sch.state(), loops, c.attrs[0].as_bool())});
      },
      "fuse(*loops, preserve_unit_iters=True) -> LoopRV: fuse perfectly nested loops into one.",
      "the loops are adjacent and perfectly nested (each the only child of the previous), start at 0",
      "for i, j in T.grid(16, 8):        ->  for i_j_fused in range(128):\n"
      "    vi, vj = ... [i, j]                   vi = i_j_fused // 8; vj = i_j_fused % 8"));
}

}  // namespace tsch::schedule
