// decompose_reduction: move a reduction block's T.init into its own block `X_init`, placed
// right before `loop`, under copies (`j_init`) of the loops between `loop` and the block that
// its spatial iterators use; the original block becomes `X_update` (TVM's DecomposeReduction).
#include <fmt/format.h>

#include <optional>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
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

// `e` with sums moved inside T.min: `T.min(a, b) - c + 1` becomes `T.min(a - c + 1, b - c + 1)`.
PrimExpr sums_into_min(const PrimExpr& e, int depth = 0) {
  if (depth > 8 || (e->kind != ExprKind::Add && e->kind != ExprKind::Sub)) return e;
  PrimExpr a = sums_into_min(binary_a(e), depth + 1), b = sums_into_min(binary_b(e), depth + 1);
  if (a->kind == ExprKind::Min) {
    return make_binary(ExprKind::Min, sums_into_min(make_binary(e->kind, binary_a(a), b), depth + 1),
                       sums_into_min(make_binary(e->kind, binary_b(a), b), depth + 1));
  }
  if (b->kind == ExprKind::Min && e->kind == ExprKind::Add) {
    return make_binary(ExprKind::Min, sums_into_min(add(a, binary_a(b)), depth + 1),
                       sums_into_min(add(a, binary_b(b)), depth + 1));
  }
  return make_binary(e->kind, a, b);
}

// A constant upper bound of `e` over `dom`, if one is found. A T.min is bounded by each
// side simplified on its own: compute_at's clamped extent `T.min(j_0 * 24 + 23, 63) -
// j_0 * 24 + 1` is at most 24, where intervals alone give 64.
std::optional<int64_t> upper_bound(const PrimExpr& e, const arith::VarDomain& dom) {
  PrimExpr x = sums_into_min(e);
  if (x->kind == ExprKind::Min) {
    std::optional<int64_t> a = upper_bound(binary_a(x), dom), b = upper_bound(binary_b(x), dom);
    if (a && b) return std::min(*a, *b);
    return a ? a : b;
  }
  arith::Interval range = arith::eval_interval(arith::simplify(x), dom);
  int64_t upper;
  if (range.max && as_const_int(arith::simplify(range.max), &upper)) return upper;
  return std::nullopt;
}

// Whether the block's bindings, as affine maps of the loops in `inner` (the others held
// fixed), are one-to-one: every inner loop's splits tile its whole range. A loop's range is
// its extent, or an upper bound of it (a clamped loop of compute_at), or for a loop whose
// extent has none (a symbolic shape) the largest value of its dtype: a one-to-one map over
// a larger range is one-to-one over the real one.
bool runs_each_instance_once(const ScheduleState& s, const BlockRealizeNode* realize, const std::vector<LoopSid>& all,
                             const std::vector<LoopSid>& inner) {
  arith::LoopExtents extents;
  for (LoopSid l : all) {
    const ForNode* f = &s.loop_at(l);
    if (!is_zero(f->min)) return false;
    int64_t bound = f->loop_var->dtype.bits >= 64 ? (int64_t{1} << 40) : (int64_t{1} << 31) - 1;
    std::optional<int64_t> upper = upper_bound(f->extent, loop_domain(s, l));
    if (upper && *upper < bound) bound = *upper;
    extents[f->loop_var.get()] = std::max<int64_t>(bound, 1);
  }
  std::unordered_set<const VarNode*> tiled;
  for (LoopSid l : inner) tiled.insert(s.loop_at(l).loop_var.get());
  // A binding of the outer loops alone is fixed during one run of `loop`, whatever its form
  // (affine or not); only the bindings of inner loops matter.
  std::vector<PrimExpr> varying;
  for (const PrimExpr& value : realize->iter_values) {
    if (uses_var(value, [&](const VarNode* v) { return tiled.count(v) > 0; })) varying.push_back(value);
  }
  arith::IterMapResult map = arith::detect_iter_map(varying, extents, /*require_bijective=*/false, &tiled);
  if (!map.ok) return false;
  for (LoopSid l : inner) {
    const VarNode* v = s.loop_at(l).loop_var.get();
    int64_t covered = 1;
    for (const auto& sum : map.sums)
      for (const auto& split : sum.splits)
        if (split.source == v) covered *= split.extent;
    if (covered != extents.at(v)) return false;
  }
  return true;
}

}  // namespace

namespace {

TSCH_SCHEDULE_ERROR_KIND(
    kLoopHeightError, "LoopHeightError",
    "decompose_reduction expect the loop to be higher than all the loops related to reduce block var",
    "ScheduleError: decompose_reduction expect the loop {0} to be higher than all the loops related to reduce "
    "block var of block {1}");

// Step 1 checks. A reduction block: a T.init, and no store indexed by a reduction iterator.
void check_reduction_with_init(const ScheduleState& s, BlockSid block_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  if (!block->init) fail(s, kNotReductionBlockError, {block_sid});
  for_each_stmt(block->body, [&](const Stmt& st) {
    if (auto* store = as<BufferStoreNode>(st); store && reduction_var_in(*block, store->indices))
      fail_not_reduction_block(s, block_sid, 5);
  });
}

// `loop` encloses the block (TVM's LoopPositionError) and is above every loop a reduction
// iterator is bound to (TVM's LoopHeightError). Returns `loop` and the loops inside it.
std::vector<LoopSid> check_loop_height(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  auto pos = std::find(loops.begin(), loops.end(), loop_sid);
  if (pos == loops.end()) fail(s, kLoopPositionError, {loop_sid, block_sid});
  std::vector<LoopSid> above(loops.begin(), pos);
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i].type != IterType::CommReduce) continue;
    for (LoopSid l : above) {
      const VarNode* v = s.loop_at(l).loop_var.get();
      if (uses_var(realize->iter_values[i], [&](const VarNode* x) { return x == v; })) {
        fail(s, kLoopHeightError, {loop_sid, block_sid, l},
             fmt::format(
                 "ScheduleError: decompose_reduction expect the loop {{0}} to be higher than all the loops related to "
                 "reduce block var of block {{1}}: loop {{2}} binds reduction iterator {} but is outside loop {{0}}",
                 block->iter_vars[i].var->name));
      }
    }
  }
  return std::vector<LoopSid>(pos, loops.end());
}

// One run of `loop` must run each instance of the block at most once: the init moves in
// front of it and then runs once per instance, where the original ran it at the start of
// every sweep of the reduction (a block computed at a loop it does not depend on, or depends
// on only in part — `vi = i_j_fused // 20` — sweeps each row several times).
void check_runs_each_instance_once(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid,
                                   const std::vector<LoopSid>& below) {
  if (!runs_each_instance_once(s, s.info(block_sid)->realize, s.enclosing_loops(block_sid), below)) {
    fail_not_supported(
        s, {loop_sid, block_sid},
        "one run of loop {0} may run an instance of block {1} more than once (its bindings are not a one-to-one "
        "map of the loops inside), so the init could not move before it");
  }
}

// The init nest leaves out the T.where terms over loops it does not copy (as TVM's
// RemakePredicate). A term that ties such a loop to a loop outside `loop` that no iterator of
// the block is bound to also limits how often the init runs: that loop repeats the init, and
// only the term kept the block to one of its iterations (`u_0 * 8 + u_1 < 1` with u_1
// outside: the init ran at every u_1, after the update at u_1 == 0, and zeroed its sums).
void check_predicate_separable(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid,
                               const std::unordered_set<const VarNode*>& dropped) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::unordered_set<const VarNode*> repeating;
  for (LoopSid l : s.enclosing_loops(loop_sid)) {
    const VarNode* v = s.loop_at(l).loop_var.get();
    bool bound = false;
    for (const PrimExpr& value : realize->iter_values)
      bound |= uses_var(value, [&](const VarNode* x) { return x == v; });
    if (!bound) repeating.insert(v);
  }
  if (coupled_conjunct(realize->predicate, dropped, repeating)) {
    fail_not_supported(s, {loop_sid, block_sid},
                       "the T.where of block {1} ties a loop the init block would not iterate over to a loop outside "
                       "loop {0} that no iterator is bound to, so the init before loop {0} would run again after "
                       "updates");
  }
}

// The loops from `loop` down that the init nest copies: those its spatial iterators use.
struct InitLoops {
  std::vector<const ForNode*> loops;
  std::unordered_map<const VarNode*, PrimExpr> loop_map;  // old loop var -> init loop var
  std::unordered_set<const VarNode*> dropped;             // loops the init nest leaves out
};

InitLoops init_loops(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, const std::vector<LoopSid>& below) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  InitLoops out;
  for (LoopSid l : below) {
    const ForNode* f = &s.loop_at(l);
    bool used = false;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].type != IterType::DataPar) continue;
      used |= uses_var(realize->iter_values[i], [&](const VarNode* x) { return x == f->loop_var.get(); });
    }
    if (!used) {
      out.dropped.insert(f->loop_var.get());
      continue;
    }
    out.loops.push_back(f);
    out.loop_map[f->loop_var.get()] = make_var(f->loop_var->name + "_init", f->loop_var->dtype);
  }
  // A copied loop's range may name outer loops (compute_at clamps `ax0` to
  // `T.min(j_0 * 24 + 23, 63) - j_0 * 24 + 1`): those are copied too and renamed, but a
  // range naming a loop the init nest leaves out would use it outside its scope.
  for (const ForNode* f : out.loops) {
    for (const PrimExpr& e : {f->min, f->extent}) {
      if (uses_var(e, [&](const VarNode* x) { return out.dropped.count(x) > 0; }))
        fail_not_supported(s, {loop_sid, block_sid},
                           fmt::format("the range of loop {} depends on a loop the init block does not iterate over",
                                       f->loop_var->name));
    }
  }
  check_predicate_separable(s, block_sid, loop_sid, out.dropped);
  return out;
}

// Step 2: the init block `X_init` — the spatial iterators, bound as before but through the
// `_init` loops around it. Sets `init_sid` to its sid.
Stmt init_nest(ScheduleState& s, BlockSid block_sid, const InitLoops& loops, BlockSid& init_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  auto init_block = std::make_shared<BlockNode>();
  init_block->name = block->name + "_init";
  init_block->annotations = block->annotations;  // as TVM: the init keeps the block's annotations
  init_block->sid = s.fresh_sid();
  init_sid = sid_of(*init_block);
  std::unordered_map<const VarNode*, PrimExpr> iter_map;  // old iter var -> init iter var
  std::vector<PrimExpr> init_values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.type != IterType::DataPar) continue;
    Var v = make_var(iv.var->name, iv.var->dtype);
    iter_map[iv.var.get()] = v;
    init_block->iter_vars.push_back(IterVar{v, iv.dom, IterType::DataPar});
    init_values.push_back(substitute(realize->iter_values[i], loops.loop_map));
  }
  init_block->body = substitute(block->init, iter_map);
  arith::AccessRegions init_regions = arith::infer_access_regions(init_block->body, nullptr);
  init_block->reads = init_regions.reads;
  init_block->writes = init_regions.writes;
  PrimExpr init_pred = substitute(predicate_without(realize->predicate, loops.dropped), loops.loop_map);
  Stmt nest = std::make_shared<BlockRealizeNode>(init_values, init_pred, init_block);
  for (size_t k = loops.loops.size(); k-- > 0;) {
    const ForNode* f = loops.loops[k];
    auto copy = std::make_shared<ForNode>(*f);
    copy->loop_var = std::static_pointer_cast<const VarNode>(loops.loop_map.at(f->loop_var.get()));
    copy->min = substitute(f->min, loops.loop_map);
    copy->extent = substitute(f->extent, loops.loop_map);
    copy->body = nest;
    copy->sid = s.fresh_sid();
    nest = copy;
  }
  return nest;
}

// Step 3: the update block — no init, named X_update, reading what it writes.
Block update_block(const BlockNode& block) {
  auto update = std::make_shared<BlockNode>(block);
  update->name = block.name + "_update";
  update->init = nullptr;
  arith::AccessRegions regions =
      arith::infer_access_regions(update->body, nullptr, update->alloc_buffers, update->match_buffers);
  update->reads = regions.reads;
  // Keep written buffers first among the reads, as TVM's detector sees the store first.
  std::stable_sort(update->reads.begin(), update->reads.end(), [&](const BufferRegion& a, const BufferRegion& b) {
    auto written = [&](const BufferRegion& r) {
      for (const auto& w : update->writes) {
        if (w.buffer == r.buffer) return true;
      }
      return false;
    };
    return written(a) && !written(b);
  });
  return update;
}

}  // namespace

BlockSid decompose_reduction(ScheduleState& s, BlockSid block_sid, LoopSid loop_sid) {
  // Step 1. Check: a reduction block under `loop`, with `loop` above every reduction loop,
  // each instance run at most once per run of `loop`.
  check_reduction_with_init(s, block_sid);
  std::vector<LoopSid> below = check_loop_height(s, block_sid, loop_sid);  // `loop` and inside
  check_runs_each_instance_once(s, block_sid, loop_sid, below);
  InitLoops loops = init_loops(s, block_sid, loop_sid, below);
  // Step 2. The init nest; Step 3. the update block in place of the block.
  BlockSid init_sid;
  Stmt init = init_nest(s, block_sid, loops, init_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  Block update = update_block(s.block_at(block_sid));
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate, update));
  // Step 4. Put the init nest right before `loop`.
  std::shared_ptr<const ForNode> keep(std::make_shared<ForNode>(s.loop_at(loop_sid)));
  s.replace(loop_sid, make_seq({init, keep}));
  return init_sid;
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_decompose_reduction_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "DecomposeReduction", "decompose_reduction", {input("block", ParamType::Block), input("loop", ParamType::Loop)},
      OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        BlockSid block = sch.block_sid(c.inputs[0]);
        output_blocks(c, {decompose_reduction(sch.state(), block, sch.loop_sid(c.inputs[1]))});
      },
      "decompose_reduction(block, loop) -> BlockRV: split the block's T.init into a block X_init placed before loop.",
      "the block has a T.init; the loop encloses the block and is above every reduction loop of it",
      "Y with T.init() under loops i, j, k  ->  Y_init under i, j (before k) and Y_update under i, j, k"));
}

}  // namespace tsch::schedule
