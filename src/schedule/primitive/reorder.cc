// reorder: permute loops along one chain; loops not named keep their places (TVM's Reorder);
// reorder_block_iter_var: permute a block's iterators.
//
//   for i, j, k in T.grid(...):      sch.reorder(k, i)      for k, j, i in T.grid(...):
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <unordered_set>

#include "arith/iter_map.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kLoopMultiAppearanceError, "LoopMultiAppearanceError",
                         "Some loop appears in the input array for multiple times.",
                         "Loop {0} appears in the input array for multiple times.");
TSCH_SCHEDULE_ERROR_KIND(
    kLoopsNotAChainError, "LoopsNotAChainError", "the loops are not in a chain",
    "The loops are not in a chain because there is a non-single-branch stmt in between. Problematic stmt: {0}");
TSCH_SCHEDULE_ERROR_KIND(kDependentLoopError, "DependentLoopError.reorder",
                         "An outer loop's `min` or `extent` is dependent on an inner loop in the new order",
                         "Outer Loop {0}'s `min` or `extent` is dependent on an inner loop in the new order");

TSCH_SCHEDULE_ERROR_KIND(
    kBlockPropertyError, "BlockPropertyError",
    "The block under the loops to be reordered have block iter type other than data-parallel or reduction",
    "The block {0} under the loops to be reordered have block iter type other than data-parallel or reduction");

TSCH_SCHEDULE_ERROR_KIND(kInvalidReorderIndex, "InvalidReorderIndex", "The specified reorder indices are invalid.",
                         "The user provided block reorder indices `{1}` is not a valid permutation of [0, {2}).");

// A sum of loop variables times constants whose smallest step is 1 (`v0 * 2 + v1`: the
// instances overlap but cover a range, which TVM's surjective iter map accepts; `l * 16`
// skips values and is refused).
bool unit_step_linear(const PrimExpr& e) {
  int64_t smallest = INT64_MAX;
  std::function<bool(const PrimExpr&, int64_t)> walk = [&](const PrimExpr& x, int64_t scale) {
    int64_t c;
    if (as_const_int(x, &c)) return true;
    switch (x->kind) {
      case ExprKind::Var:
        smallest = std::min(smallest, scale < 0 ? -scale : scale);
        return true;
      case ExprKind::Add:
      case ExprKind::Sub:
        return walk(binary_a(x), scale) && walk(binary_b(x), x->kind == ExprKind::Sub ? -scale : scale);
      case ExprKind::Mul:
        if (as_const_int(binary_b(x), &c)) return walk(binary_a(x), scale * c);
        if (as_const_int(binary_a(x), &c)) return walk(binary_b(x), scale * c);
        return false;
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod:
      case ExprKind::Min:
      case ExprKind::Max:
      case ExprKind::EQ:
      case ExprKind::NE:
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE:
      case ExprKind::And:
      case ExprKind::Or:
      case ExprKind::Not:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::BufferLoad:
      case ExprKind::Call:
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
      case ExprKind::Let:
        break;
    }
    return false;
  };
  return walk(e, 1) && (smallest == 1 || smallest == INT64_MAX);
}

}  // namespace

void reorder_block_iter_var(ScheduleState& s, BlockSid block_sid, const std::vector<int64_t>& new_order) {
  const BlockNode& block = s.block_at(block_sid);
  size_t n = block.iter_vars.size();
  std::vector<bool> seen(n, false);
  bool valid = new_order.size() == n;
  for (int64_t i : new_order) {
    valid = valid && i >= 0 && static_cast<size_t>(i) < n && !seen[static_cast<size_t>(i)];
    if (i >= 0 && static_cast<size_t>(i) < n) seen[static_cast<size_t>(i)] = true;
  }
  if (!valid) {
    std::string list;
    for (size_t i = 0; i < new_order.size(); ++i) list += (i ? ", " : "") + std::to_string(new_order[i]);
    std::string detail = kInvalidReorderIndex.detail;
    detail.replace(detail.find("{1}"), 3, "[" + list + "]");
    detail.replace(detail.find("{2}"), 3, std::to_string(n));
    fail(s, kInvalidReorderIndex, {block_sid}, detail);
  }
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  auto reordered = std::make_shared<BlockNode>(block);
  std::vector<PrimExpr> values;
  for (size_t i = 0; i < n; ++i) {
    reordered->iter_vars[i] = block.iter_vars[static_cast<size_t>(new_order[i])];
    values.push_back(realize->iter_values[static_cast<size_t>(new_order[i])]);
  }
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(values, realize->predicate, reordered));
}

namespace {

// Step 1 checks. TVM's LoopMultiAppearanceError: no loop twice.
void check_no_repeated_loop(const ScheduleState& s, const std::vector<LoopSid>& order) {
  std::unordered_set<LoopSid> given(order.begin(), order.end());
  if (given.size() == order.size()) return;
  for (size_t i = 0; i < order.size(); ++i) {
    if (std::count(order.begin(), order.begin() + i, order[i])) fail(s, kLoopMultiAppearanceError, {order[i]});
  }
}

// TVM's LoopsNotAChainError: the loops lie on one chain of single-child loops. Returns the
// chain from the outermost given loop down to the deepest.
std::vector<LoopSid> check_loops_in_chain(const ScheduleState& s, const std::vector<LoopSid>& order) {
  std::unordered_set<LoopSid> given(order.begin(), order.end());
  // The deepest loop's ancestors must contain every other given loop.
  LoopSid bottom = order[0];
  for (LoopSid l : order) {
    if (s.enclosing_loops(l).size() > s.enclosing_loops(bottom).size()) bottom = l;
  }
  std::vector<LoopSid> chain = s.enclosing_loops(bottom);
  chain.push_back(bottom);
  auto top_it = std::find_if(chain.begin(), chain.end(), [&](LoopSid l) { return given.count(l) > 0; });
  for (LoopSid l : order) {
    if (std::find(chain.begin(), chain.end(), l) == chain.end()) {
      fail(s, kLoopsNotAChainError, {l, bottom},
           "The loops are not in a chain: loop {0} is neither an ancestor nor a descendant of loop {1}");
    }
  }
  std::vector<LoopSid> path(top_it, chain.end());
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (s.loop_at(path[i]).body.get() != s.info(path[i + 1])->node) fail(s, kLoopsNotAChainError, {path[i]});
  }
  return path;
}

[[noreturn]] void fail_not_affine(const ScheduleState& s, const BlockRealizeNode& r, const std::string& why) {
  fail(
      s, kBlockPropertyError, {sid_of(*r.block)},
      "The block {0} under the loops to be reordered does not have an affine binding with regard to the loops: " + why);
}

// Over loops of constant extents only (the chain's, from 0), a binding must also be a
// mixed-radix sum of them (TVM's surjective iter map: `l * 16` skips values and is refused).
// Under a T.where (an imperfect split) TVM fuses with the predicate's bound, which tsch's iter
// map does not: it accepts those bindings.
bool skips_values(const ScheduleState& s, const BlockRealizeNode& r, const PrimExpr& value,
                  const std::vector<LoopSid>& loops, const std::function<bool(const VarNode*)>& is_inner) {
  arith::LoopExtents extents;
  bool known = true;
  for_each_expr(value, [&](const PrimExpr& e) {
    auto* v = as<VarNode>(e);
    if (!v) return;
    int64_t extent;
    const ForNode* f = nullptr;
    for (LoopSid l : loops) {
      if (s.loop_at(l).loop_var.get() == v) f = &s.loop_at(l);
    }
    if (f && is_inner(v) && is_zero(f->min) && as_const_int(f->extent, &extent))
      extents[v] = extent;
    else
      known = false;
  });
  return known && is_one(r.predicate) && !arith::detect_iter_map({value}, extents, false).ok &&
         !unit_step_linear(value);
}

// TVM's BlockPropertyError for one block under the chain: data-parallel or reduction
// iterators only, bound quasi-affinely by the loops from the top of the chain down (loops
// further out count as symbols).
void check_block_property(const ScheduleState& s, const BlockRealizeNode& r, StmtSid top) {
  std::vector<LoopSid> loops = s.enclosing_loops(sid_of(*r.block));
  std::unordered_set<const VarNode*> inner;
  for (auto it = std::find(loops.begin(), loops.end(), top); it != loops.end(); ++it)
    inner.insert(s.loop_at(*it).loop_var.get());
  std::function<bool(const VarNode*)> is_inner = [&](const VarNode* v) { return inner.count(v) > 0; };
  for (size_t i = 0; i < r.iter_values.size(); ++i) {
    IterType t = r.block->iter_vars[i].type;
    if (t != IterType::DataPar && t != IterType::CommReduce) fail(s, kBlockPropertyError, {sid_of(*r.block)});
    if (!is_quasi_affine(r.iter_values[i], is_inner)) fail_not_affine(s, r, "binding " + ir::script(r.iter_values[i]));
    if (skips_values(s, r, r.iter_values[i], loops, is_inner))
      fail_not_affine(s, r, "binding " + ir::script(r.iter_values[i]) + " skips values of its iterator");
  }
  // A T.where must be quasi-affine too. (TVM also refuses a predicate over several
  // iterators' loops that no one binding covers; tsch's te lowering reorders such blocks
  // after rfactor, and reordering never changes what they compute, so it is accepted.)
  for (const PrimExpr& c : conjuncts(r.predicate)) {
    bool comparison =
        c->kind == ExprKind::LT || c->kind == ExprKind::LE || c->kind == ExprKind::GT || c->kind == ExprKind::GE;
    if (uses_var(c, is_inner) &&
        (!comparison || !is_quasi_affine(binary_a(c), is_inner) || !is_quasi_affine(binary_b(c), is_inner))) {
      fail_not_affine(s, r, "the predicate " + ir::script(c) + " is not a bound of a quasi-affine expression");
    }
  }
}

// TVM's DependentLoopError: outer extents must not use the variables of loops that end up
// inside them.
void check_no_dependent_loop(const ScheduleState& s, const std::vector<LoopSid>& new_path) {
  for (size_t i = 0; i < new_path.size(); ++i) {
    for (size_t j = i + 1; j < new_path.size(); ++j) {
      const VarNode* inner = s.loop_at(new_path[j]).loop_var.get();
      if (uses_var(s.loop_at(new_path[i]).extent, [&](const VarNode* v) { return v == inner; })) {
        fail(s, kDependentLoopError, {new_path[i]},
             "Outer Loop {0}'s `min` or `extent` is dependent on an inner loop " + inner->name + " in the new order");
      }
    }
  }
}

// A reduction's init runs at the first iteration of its reduction loops: moving a loop that
// feeds both spatial and reduction iterators of a block with init (fuse(i, k) then a split)
// can put a row's later iterations before its first one, and the init then wipes partial
// results. TVM requires every loop to bind iterators of one kind for this.
void check_inits_stay_first(const ScheduleState& s, LoopSid top, const std::vector<LoopSid>& order) {
  for_each_stmt(s.loop_at(top).body, [&](const Stmt& st) {
    auto* r = as<BlockRealizeNode>(st);
    if (!r || !r->block->init) return;
    for (LoopSid l : order) {
      const VarNode* lv = s.loop_at(l).loop_var.get();
      if (binds_spatial_and_reduction(*r, lv))
        fail(s, kLoopTouchedByBothKindsError, {l, sid_of(*r->block)},
             "It is not allowed that the loop {0} is touched by both some data parallel block iters and some reduction "
             "block iters of block {1}, which has an init: reordering it can run a row's init after its first updates");
    }
  });
}

}  // namespace

void reorder(ScheduleState& s, const std::vector<LoopSid>& order) {
  // Step 1. Check: no loop twice; all on one chain of single-child loops; the blocks under it
  // bound affinely; no outer extent over an inner loop; inits still run first.
  check_no_repeated_loop(s, order);
  if (order.size() <= 1) return;
  std::vector<LoopSid> path = check_loops_in_chain(s, order);
  for (const BlockRealizeNode* r : realizes_under(s.loop_at(path.back()).body))
    check_block_property(s, *r, path.front());
  // The new order: given loops take the positions of given loops, in the order asked.
  std::unordered_set<LoopSid> given(order.begin(), order.end());
  std::vector<LoopSid> new_path;
  size_t next = 0;
  for (LoopSid l : path) new_path.push_back(given.count(l) ? order[next++] : l);
  check_no_dependent_loop(s, new_path);
  check_inits_stay_first(s, path.front(), order);
  // Step 2. Rebuild the chain bottom-up; loops keep their identities.
  Stmt body = s.loop_at(path.back()).body;
  for (size_t i = new_path.size(); i-- > 0;) {
    auto copy = std::make_shared<ForNode>(s.loop_at(new_path[i]));
    copy->body = body;
    body = copy;
  }
  s.replace(path.front(), body);
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_reorder_kinds(KindList& kinds) {
  ParamSpec loops = input("ordered_loops", ParamType::Loops);
  kinds.push_back(define_kind(
      "Reorder", "reorder", {loops}, OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        std::vector<LoopSid> sids;
        for (const TraceArg& a : c.inputs) sids.push_back(sch.loop_sid(a));
        reorder(sch.state(), sids);
      },
      "reorder(*ordered_loops): put the loops of one chain in the given order.",
      "the loops form a single chain (each under the previous), no loop given twice, nothing but loops between them",
      "for i, j, k in T.grid(...)        ->  sch.reorder(k, i)  gives  for k, j, i in T.grid(...)"));
  kinds.push_back(define_kind(
      "ReorderBlockIterVar", "reorder_block_iter_var",
      {input("block", ParamType::Block), input("new_order", ParamType::IntList)}, OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        std::vector<int64_t> order;
        for (const TraceArg& a : c.inputs[1].list) order.push_back(a.as_int());
        reorder_block_iter_var(sch.state(), sch.block_sid(c.inputs[0]), order);
      },
      "reorder_block_iter_var(block, new_order): list the block's iterators (and their bindings) in the order given.",
      "new_order is a permutation of range(number of the block's iterators)",
      "vi, vj = T.axis.remap(\"SS\", [i, j])  ->  sch.reorder_block_iter_var(block, [1, 0])  gives  vj, vi = "
      "T.axis.remap(\"SS\", [j, i])"));
}

}  // namespace tsch::schedule
