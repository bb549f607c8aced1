// compute_at and reverse_compute_at: move a producer (consumer) block under a loop of its
// consumers (producers), regenerating loops `ax0, ax1, ...` that cover exactly the region
// needed (produced) per iteration of that loop (TVM's ComputeAt / ReverseComputeAt). Where
// that region may pass the buffer's end (an imperfect split) a T.where keeps the block in.
//
//   for i, j_0 in T.grid(128, 32):                 sch.reverse_compute_at(C, j_0)
//       for k, j_1 in T.grid(128, 4): Y[...]   ─▶      for ax0 in range(4):
//   for i, j in T.grid(128, 128): C[...]                   vi = i; vj = j_0 * 4 + ax0
#include <fmt/format.h>

#include <numeric>
#include <optional>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitive/compute_at_region.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

using namespace compute_at_detail;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNotAllRequiredBlocksAreVisitedError, "NotAllRequiredBlocksAreVisitedError",
                         "Not all required blocks are under the loop scope",
                         "Not all required blocks are under the loop scope");
TSCH_SCHEDULE_ERROR_KIND(kNoConsumerError, "NoConsumerError", "The block has no consumer to compute at",
                         "The block {0} has no consumer to compute at");
TSCH_SCHEDULE_ERROR_KIND(kNoProducerError, "NoProducerError", "The block has no producer to compute at",
                         "The block {0} has no producer to compute at");

// The original T.where restated over the block's iterators, so it can guard the block under
// its new loops. A term over loops that feed only spatial iterators is dropped, as TVM drops
// the whole predicate: it only kept the block from writing elements no consumer under the
// loop reads. A term over a loop feeding a reduction iterator limits the reduction (rfactor
// of an imperfect split: `k_0 * 16 + k_1 < m`) and must stay; when it cannot be restated
// (a loop bound through an expression) the primitive is refused.
PrimExpr restated_predicate(const ScheduleState& s, BlockSid block_sid, const BlockRealizeNode* realize) {
  const BlockNode* block = realize->block.get();
  std::unordered_map<const VarNode*, PrimExpr> loop_to_iter;
  std::unordered_set<const VarNode*> feeds_reduction;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const PrimExpr& value = realize->iter_values[i];
    if (auto* v = as<VarNode>(value)) loop_to_iter[v] = block->iter_vars[i].var;
    if (block->iter_vars[i].type == IterType::CommReduce) {
      for_each_expr(value, [&](const PrimExpr& e) {
        if (auto* v = as<VarNode>(e)) feeds_reduction.insert(v);
      });
    }
  }
  std::unordered_set<const VarNode*> loop_vars;
  for (LoopSid l : s.enclosing_loops(block_sid)) loop_vars.insert(s.loop_at(l).loop_var.get());
  // Over its whole iteration domain, does the block stay inside the buffers it writes? If
  // not (an overcomputing producer that reverse_compute_inline guarded), its T.where keeps it
  // in bounds and stays, spatial terms too.
  arith::VarDomain iter_dom;
  for (const auto& iv : block->iter_vars) iter_dom[iv.var.get()] = arith::interval_of(iv.dom);
  bool writes_in_bounds = true;
  for (const BufferRegion& w : block->writes) {
    for (size_t d = 0; d < w.region.size() && d < w.buffer->shape.size(); ++d) {
      arith::Interval lo = arith::eval_interval(w.region[d].min, iter_dom);
      arith::Interval hi = arith::eval_interval(
          sub(add(w.region[d].min, w.region[d].extent), make_int(1, w.region[d].extent->dtype)), iter_dom);
      bool inside = lo.min && hi.max &&
                    arith::can_prove(make_binary(ExprKind::GE, lo.min, make_int(0, lo.min->dtype)), {}) &&
                    arith::can_prove(make_binary(ExprKind::LT, hi.max, cast(hi.max->dtype, w.buffer->shape[d])), {});
      writes_in_bounds = writes_in_bounds && inside;
    }
  }
  PrimExpr out = make_bool(true);
  for (const PrimExpr& term : conjuncts(realize->predicate)) {
    if (is_one(term)) continue;
    if (writes_in_bounds && !uses_var(term, [&](const VarNode* v) { return feeds_reduction.count(v) > 0; })) continue;
    PrimExpr restated = term;
    // A side that is exactly a binding (`k_0 * 4 + k_1 < 10` over vk = k_0 * 4 + k_1).
    if (term->kind == ExprKind::LT || term->kind == ExprKind::LE || term->kind == ExprKind::GE ||
        term->kind == ExprKind::GT) {
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        if (expr_deep_equal(binary_a(term), realize->iter_values[i])) {
          restated = make_binary(term->kind, block->iter_vars[i].var, binary_b(term));
        }
      }
    }
    restated = substitute(restated, loop_to_iter);
    if (uses_var(restated, [&](const VarNode* v) { return loop_vars.count(v) > 0; })) {
      fail_not_supported(s, {block_sid},
                         "moving block {0}, whose T.where (" + ir::script(term) + ") limits " +
                             (writes_in_bounds ? "its reduction" : "its writes to the buffer's bounds") +
                             " through loops that no block iterator names");
    }
    out = is_one(out) ? restated : make_binary(ExprKind::And, out, restated);
  }
  return out;
}

// Loops covering `ranges` for the block's iterators (ax0, ax1, ...), with the block inside,
// guarded by `predicate` (over the iterators) where the new loops do not already imply it.
Stmt make_nest(ScheduleState& s, const Block& block, const std::vector<IterRange>& ranges, bool preserve_unit_loops,
               const PrimExpr& predicate, arith::VarDomain dom) {
  std::vector<Var> loop_vars;
  std::vector<PrimExpr> extents;
  std::vector<PrimExpr> bindings;
  std::unordered_map<const VarNode*, PrimExpr> iter_to_binding;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    DataType t = block->iter_vars[i].var->dtype;
    // Simplified under the outer loops' ranges: a clamp they decide goes (`T.max(i_0 * 32 + i_1, 0)`).
    // A unit outer loop's variable is 0 there (TVM binds `T.axis.spatial(1, 0)`).
    PrimExpr lo = reversed_form(arith::simplify_folding_points(ranges[i].range.min, dom));
    PrimExpr extent =
        arith::simplify(add(sub(arith::simplify_folding_points(ranges[i].range.max, dom), lo), make_int(1, t)), dom);
    if (!preserve_unit_loops && is_one(extent)) {
      bindings.push_back(lo);
    } else {
      Var v = make_var("ax" + std::to_string(loop_vars.size()), t);
      loop_vars.push_back(v);
      extents.push_back(extent);
      bindings.push_back(add(lo, v));  // TVM's `min + var`, not simplified further
    }
    iter_to_binding[block->iter_vars[i].var.get()] = bindings.back();
  }
  std::vector<LoopSpec> loops;
  for (size_t k = 0; k < loop_vars.size(); ++k) loops.push_back({loop_vars[k], nullptr, extents[k]});
  for (size_t k = 0; k < loop_vars.size(); ++k)
    dom[loop_vars[k].get()] = arith::interval_of(Range{make_int(0, extents[k]->dtype), extents[k]});
  PrimExpr guard = make_bool(true);
  auto add_term = [&](const PrimExpr& t) {
    if (prove_bound(t, dom)) return;
    guard = is_one(guard) ? t : make_binary(ExprKind::And, guard, t);
  };
  for (const PrimExpr& term : conjuncts(predicate)) add_term(arith::simplify(substitute(term, iter_to_binding)));
  // TVM's bounds, iterator by iterator, lower then upper.
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!ranges[i].bound) continue;
    PrimExpr value = arith::simplify_folding_points(bindings[i], dom);
    add_term(bound_term(value, ranges[i].bound->min, true));
    add_term(bound_term(value, ranges[i].bound->max, false));
  }
  return make_loop_nest(s, loops, std::make_shared<BlockRealizeNode>(bindings, guard, block));
}

TSCH_SCHEDULE_ERROR_KIND(kInsertionIndexError, "InsertionIndexError",
                         "The index is not a position of the loop body where the block can be inserted",
                         "The index is not a position of the loop body where the block can be inserted.");

// Where in `loop`'s body to insert, as TVM's FindInsertionPoint: the block must follow every
// statement holding one of its `producers` and precede every one holding one of its
// `consumers`, so the valid positions are (last producer, first consumer]. index -1 is the
// last of them, -2 the first; an explicit index outside them is refused.
size_t insertion_point(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid,
                       const std::vector<const StmtNode*>& producers, const std::vector<const StmtNode*>& consumers,
                       int64_t index) {
  std::vector<Stmt> items = body_items(s.loop_at(loop_sid).body);
  auto holds = [&](const Stmt& st, const std::vector<const StmtNode*>& nodes) {
    bool found = false;
    for_each_stmt(st, [&](const Stmt& x) {
      for (const StmtNode* a : nodes) found |= x.get() == a;
    });
    return found;
  };
  int64_t last_producer = -1, first_consumer = static_cast<int64_t>(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (holds(items[i], producers)) last_producer = static_cast<int64_t>(i);
    if (first_consumer == static_cast<int64_t>(items.size()) && holds(items[i], consumers))
      first_consumer = static_cast<int64_t>(i);
  }
  if (last_producer >= first_consumer) {
    fail(s, kInsertionIndexError, {block_sid, loop_sid},
         fmt::format(
             "Block {{0}} has a consumer at position {} of the body of loop {{1}} before a producer at position {}: no "
             "position there follows all its producers and precedes all its consumers.",
             first_consumer, last_producer));
  }
  if (index == -1) return static_cast<size_t>(first_consumer);
  if (index == -2) return static_cast<size_t>(last_producer + 1);
  if (index < last_producer + 1 || index > first_consumer) {
    fail(s, kInsertionIndexError, {block_sid, loop_sid},
         fmt::format(
             "Valid index: (-1, -2, [{}, {}]), current index={}. Block {{0}} must follow its producers and precede its "
             "consumers in the body of loop {{1}}.",
             last_producer + 1, first_consumer, index));
  }
  return static_cast<size_t>(index);
}

Stmt insert_into(const ForNode* loop, const Stmt& nest, size_t pos) {
  auto copy = std::make_shared<ForNode>(*loop);
  copy->body = insert_into_body(loop->body, pos, nest);
  return copy;
}

// The blocks of `scope` other than `block_sid` that write a buffer the block reads (producers)
// or read one it writes (consumers).
std::vector<BlockSid> neighbours(const ScheduleState& s, BlockSid scope, BlockSid block_sid, bool producers) {
  const BlockNode* block = &s.block_at(block_sid);
  std::vector<BlockSid> out;
  for (BlockSid b : s.child_blocks(scope)) {
    if (b == block_sid) continue;
    bool related = false;
    if (producers) {
      for (const auto& r : block->reads) related |= writes_buffer(&s.block_at(b), r.buffer);
    } else {
      for (const auto& w : block->writes) related |= reads_buffer(&s.block_at(b), w.buffer);
    }
    if (related) out.push_back(b);
  }
  return out;
}

std::vector<const StmtNode*> nodes_of(const ScheduleState& s, const std::vector<BlockSid>& blocks) {
  std::vector<const StmtNode*> out;
  for (BlockSid b : blocks) out.push_back(s.info(b)->node);
  return out;
}

// Whether the block, computed over `ranges` (its iterators' ranges in terms of the loops of
// `dom`) for every iteration of those loops, still writes every element of its one output:
// each dimension written at exactly one iterator, whose range moves with at most one loop
// (a dimension of its own) by steps no wider than the range, from at most 0 to at least the
// last index. A sufficient condition; what it cannot prove is refused.
bool covers_whole_output(const BlockNode& block, const std::vector<IterRange>& ranges, const arith::VarDomain& dom) {
  if (block.writes.size() != 1) return false;
  const BufferRegion& w = block.writes[0];
  std::unordered_set<const VarNode*> used_loops;
  for (size_t d = 0; d < w.region.size(); ++d) {
    auto* iv = as<VarNode>(w.region[d].min);
    if (!iv || !is_one(w.region[d].extent)) return false;
    size_t k = 0;
    while (k < block.iter_vars.size() && block.iter_vars[k].var.get() != iv) ++k;
    if (k == block.iter_vars.size() || k >= ranges.size() || !ranges[k].range.min || !ranges[k].range.max) return false;
    const arith::Interval& r = ranges[k].range;
    std::vector<PrimExpr> loops;  // the loop variables the range moves with
    for (const PrimExpr& e : {r.min, r.max}) {
      for_each_expr(e, [&](const PrimExpr& x) {
        auto* v = as<VarNode>(x);
        bool seen = std::any_of(loops.begin(), loops.end(), [&](const PrimExpr& l) { return l.get() == v; });
        if (v && dom.count(v) && !seen) loops.push_back(x);
      });
    }
    if (loops.size() > 1) return false;
    PrimExpr last = sub(w.buffer->shape[d], make_int(1, w.buffer->shape[d]->dtype));
    PrimExpr start = r.min, end = r.max;
    if (!loops.empty()) {
      const auto* x = as<VarNode>(loops[0]);
      if (!used_loops.insert(x).second) return false;
      std::unordered_map<const VarNode*, PrimExpr> next{{x, add(loops[0], make_int(1, loops[0]->dtype))}};
      int64_t step, width;
      if (!as_const_int(arith::simplify(sub(substitute(r.min, next), r.min)), &step) || step < 0) return false;
      if (!as_const_int(arith::simplify(sub(r.max, r.min)), &width) || width < 0 || width + 1 < step) return false;
      start = substitute(r.min, {{x, dom.at(x).min}});
      end = substitute(r.max, {{x, dom.at(x).max}});
    }
    if (!arith::can_prove(make_binary(ExprKind::LE, start, make_int(0, start->dtype)), dom) ||
        !arith::can_prove(make_binary(ExprKind::GE, end, last), dom))
      return false;
  }
  return true;
}

// Checked on the rewritten state (the new bindings are known only then), which is put back
// on a refusal.
void recheck_under_parallel_loops(ScheduleState& s, const ScheduleState& before, BlockSid block_sid) {
  try {
    check_parallel_loops_above(s, block_sid);
  } catch (...) {
    s = before;
    throw;
  }
}

void check_same_scope(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid) {
  if (s.info(block_sid)->func != s.info(loop_sid)->func || s.scope_block(block_sid) != s.scope_block(loop_sid) ||
      is_under(s, block_sid, loop_sid)) {
    fail(s, kNotInSameScopeError, {block_sid, loop_sid});
  }
}

// TVM's NotAllRequiredBlocksAreVisitedError: the consumers (producers) not under the loop.
void check_all_under(const ScheduleState& s, const std::vector<BlockSid>& required, LoopSid loop_sid, bool consumers) {
  std::vector<BlockSid> missing;
  for (BlockSid b : required) {
    if (!is_under(s, b, loop_sid) && std::find(missing.begin(), missing.end(), b) == missing.end())
      missing.push_back(b);
  }
  if (missing.empty()) return;
  std::string relation = consumers ? "consumer(s)" : "producer(s)";
  std::string list;
  for (size_t i = 0; i < missing.size(); ++i) list += "{" + std::to_string(i) + "}";
  fail(s, kNotAllRequiredBlocksAreVisitedError, stmt_sids(missing),
       fmt::format("The primitive requires all the {0} of the given block to be present under the target loop. "
                   "However, there are "
                   "{1} {0} not satisfying the constraint. List of the {0}:{2}",
                   relation, missing.size(), list));
}

// A block that declares no regions over the blocks inside it has no iterators to re-bind:
// under the loop it would run whole in every iteration.
void check_not_container(const ScheduleState& s, BlockSid block_sid, const std::string& primitive) {
  if (arith::is_undeclared_container(s.block_at(block_sid)))
    fail_not_supported(s, {block_sid},
                       primitive + " of block {0}, which declares no T.reads/T.writes over the blocks inside it");
}

// ---- Step 1: the checks, shared and by direction

using RegionMap = std::unordered_map<const BufferNode*, std::vector<arith::Interval>>;

// compute_at: an output block writes an argument of the function; it moves only where the
// schedule allows it, and then only if the new loops still write all of it (Step 2).
void check_not_output_block(const ScheduleState& s, BlockSid block_sid, bool output) {
  if (output && !s.compute_at_covered_outputs) fail(s, kNotOutputBlockError, {block_sid});
}

// The blocks the moved block must sit among under the loop: compute_at's consumers (blocks
// reading a buffer it writes), reverse_compute_at's producers (blocks writing one it reads).
// A block related through several buffers is listed once per buffer, as the region union
// of Step 2 has always seen it.
template <bool is_compute_at>
std::vector<BlockSid> required_blocks(const ScheduleState& s, BlockSid scope, BlockSid block_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  std::vector<BlockSid> out;
  for (BlockSid b : s.child_blocks(scope)) {
    if (b == block_sid) continue;
    for (const BufferRegion& access : is_compute_at ? block->writes : block->reads) {
      bool related =
          is_compute_at ? reads_buffer(&s.block_at(b), access.buffer) : writes_buffer(&s.block_at(b), access.buffer);
      if (related) out.push_back(b);
    }
  }
  return out;
}

// TVM's NoConsumerError / NoProducerError, then NotAllRequiredBlocksAreVisitedError.
template <bool is_compute_at>
void check_required_blocks_under(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid,
                                 const std::vector<BlockSid>& required) {
  if (required.empty()) fail(s, is_compute_at ? kNoConsumerError : kNoProducerError, {block_sid});
  check_all_under(s, required, loop_sid, is_compute_at);
}

// reverse_compute_at: loop_partition's containers hold blocks that declare every partition's
// whole range (as TVM's do): what one iteration of the loop writes cannot be read from them,
// and taking the declared range for it would read elements later iterations write.
void check_producers_not_containers(const ScheduleState& s, const std::vector<BlockSid>& producers,
                                    BlockSid block_sid) {
  for (BlockSid p : producers) {
    if (arith::is_undeclared_container(s.block_at(p))) {
      fail_not_supported(
          s, {p, block_sid},
          "reverse_compute_at of block {1} after block {0}, a container of loop partitions whose blocks declare "
          "the whole range of each partition, not what one iteration writes");
    }
  }
}

// reverse_compute_at: a producer that reduces over the loop (or a loop around it) has
// written only partial values when one iteration of the loop ends. A block that copies them
// is still right if it runs again at every iteration over the same elements and so ends with
// the full ones (a write-back under k); a reduction would add every partial. Returns the
// producer and the loop variables it reduces over (empty when none does).
struct ReductionOverLoop {
  BlockSid producer;
  std::unordered_set<const VarNode*> loop_vars;
};
ReductionOverLoop check_no_reduction_over_loop(const ScheduleState& s, const std::vector<BlockSid>& producers,
                                               BlockSid block_sid, LoopSid loop_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  bool reduces = false;
  for (const auto& iv : block->iter_vars) reduces = reduces || iv.type == IterType::CommReduce;
  std::unordered_set<const VarNode*> at_or_above;
  at_or_above.insert(s.loop_at(loop_sid).loop_var.get());
  for (LoopSid l : s.enclosing_loops(loop_sid)) at_or_above.insert(s.loop_at(l).loop_var.get());
  ReductionOverLoop found;
  for (BlockSid p : producers) {
    const BlockNode& producer = s.block_at(p);
    const BlockRealizeNode* realize = s.info(p)->realize;
    for (size_t i = 0; i < producer.iter_vars.size(); ++i) {
      if (producer.iter_vars[i].type != IterType::CommReduce) continue;
      bool over_loop = false;
      for_each_expr(realize->iter_values[i], [&](const PrimExpr& e) {
        if (auto* v = as<VarNode>(e); v && at_or_above.count(v)) over_loop = true, found.loop_vars.insert(v);
      });
      if (!over_loop) continue;
      found.producer = p;
      if (reduces)
        fail_not_supported(s, {p, loop_sid, block_sid},
                           "reverse_compute_at of block {2} under loop {1}, over which block {0} reduces: one "
                           "iteration of the loop leaves partial results");
    }
  }
  return found;
}

// reverse_compute_at past a producer's partial results (above): the block runs again at
// every iteration over the same elements only if the region it must cover does not change
// with the loops the producer reduces over. Otherwise each element is computed once, from
// partial values (softmax's normalisation under the loop of its row sum).
void check_region_not_over_reduction(const ScheduleState& s, const ReductionOverLoop& reduction,
                                     const RegionMap& region, LoopSid loop_sid, BlockSid block_sid) {
  if (reduction.loop_vars.empty()) return;
  auto varies = [&](const PrimExpr& e) {
    return uses_var(e, [&](const VarNode* v) { return reduction.loop_vars.count(v) > 0; });
  };
  for (const auto& [buffer, intervals] : region) {
    for (const arith::Interval& iv : intervals) {
      if (!varies(iv.min) && !varies(iv.max)) continue;
      fail_not_supported(s, {reduction.producer, loop_sid, block_sid},
                         "reverse_compute_at of block {2} under loop {1}, over which block {0} reduces: block {2} "
                         "would read partial results, each element once");
    }
  }
}

// ---- Step 2: the region the blocks under the loop require (consume or produce), per buffer

// reverse_compute_at: what producer `p` writes of `buffer` in one iteration of the loop must
// be the region found, or the consumer would read elements a later iteration writes.
void check_region_per_iteration(const ScheduleState& s, BlockSid p, LoopSid loop_sid, BlockSid block_sid,
                                const Buffer& buffer, bool gapped, bool predicate_unused) {
  if (predicate_unused) {
    // What one iteration writes could be less than the hull.
    fail_not_supported(
        s, {p, loop_sid, block_sid},
        fmt::format("block {{0}} writes {} under a T.where that tsch cannot turn into a bound of what one "
                    "iteration of loop {{1}} writes, so block {{2}} cannot be computed there",
                    buffer->name));
  }
  if (gapped) {
    fail_not_supported(
        s, {p, loop_sid, block_sid},
        fmt::format("what block {{0}} writes of {} in one iteration of loop {{1}} is not a contiguous region, so "
                    "block {{2}} cannot be computed there",
                    buffer->name));
  }
}

// Adds `region` to what `regions` holds for `buffer`, dimension by dimension; a dimension
// either side cannot bound stays unbounded.
void unite_region(RegionMap& regions, const BufferNode* buffer, const std::vector<arith::Interval>& region) {
  auto it = regions.find(buffer);
  if (it == regions.end()) {
    regions[buffer] = region;
    return;
  }
  for (size_t d = 0; d < region.size(); ++d) {
    it->second[d] =
        (!it->second[d].min || !region[d].min) ? arith::Interval{} : arith::interval_union(it->second[d], region[d]);
  }
}

// compute_at: a dimension the consumers read at indices the analysis cannot bound (through a
// float cast) is the whole buffer, as TVM relaxes it: the block produces all of it in each
// iteration.
void widen_unbounded_to_buffer(RegionMap& regions) {
  for (auto& [buffer, region] : regions) {
    for (size_t d = 0; d < region.size(); ++d) {
      const PrimExpr& extent = buffer->shape[d];
      if (!region[d].min) region[d] = arith::interval_of(Range{make_int(0, extent->dtype), extent});
    }
  }
}

// What the required blocks read (compute_at) or write (reverse_compute_at) of the moved
// block's outputs (inputs) in one iteration of the loop, per buffer (TVM's region union).
template <bool is_compute_at>
RegionMap required_region(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid,
                          const std::vector<BlockSid>& required) {
  const BlockNode* block = &s.block_at(block_sid);
  RegionMap regions;
  for (BlockSid b : required) {
    arith::AccessRegions accesses = arith::effective_access_regions(s.block_at(b));
    for (const BufferRegion& access : is_compute_at ? accesses.reads : accesses.writes) {
      if constexpr (is_compute_at) {
        if (!writes_buffer(block, access.buffer)) continue;
        unite_region(regions, access.buffer.get(),
                     relaxed_region(s, b, loop_sid, access, nullptr, /*relax_threads_by_scope=*/true));
      } else {
        if (!reads_buffer(block, access.buffer)) continue;
        bool gapped = false, predicate_unused = false;
        std::vector<arith::Interval> region = relaxed_region(s, b, loop_sid, access, &gapped, false, &predicate_unused);
        check_region_per_iteration(s, b, loop_sid, block_sid, access.buffer, gapped, predicate_unused);
        unite_region(regions, access.buffer.get(), region);
      }
    }
  }
  if constexpr (is_compute_at) widen_unbounded_to_buffer(regions);
  return regions;
}

// compute_at of an output block: the new loops must still write every element of it.
void check_output_covered(const ScheduleState& s, BlockSid block_sid, const std::vector<IterRange>& ranges,
                          const arith::VarDomain& loop_dom) {
  if (!covers_whole_output(s.block_at(block_sid), ranges, loop_dom)) {
    fail_not_supported(s, {block_sid},
                       "compute_at of block {0}, which writes an argument of the function: tsch cannot prove that the "
                       "loops it moves under still compute every element of it");
  }
}

// ---- Step 3: the rewrite

// Takes the block out and puts a fresh nest covering `ranges` under the loop, after its
// producers and before its consumers there.
void move_under_loop(ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, const std::vector<IterRange>& ranges,
                     bool preserve_unit_loops, const std::vector<BlockSid>& producers,
                     const std::vector<BlockSid>& consumers, int64_t index) {
  Block block_ref = s.info(block_sid)->realize->block;
  PrimExpr predicate = restated_predicate(s, block_sid, s.info(block_sid)->realize);
  Stmt nest = make_nest(s, block_ref, ranges, preserve_unit_loops, predicate, loop_domain(s, loop_sid));
  // The block is not under the loop (check_same_scope), so taking it out leaves the loop's
  // body, and the position found in it, as they are.
  size_t pos = insertion_point(s, block_sid, loop_sid, nodes_of(s, producers), nodes_of(s, consumers), index);
  ScheduleState before = s;
  remove_from_scope(s, block_sid, nullptr);
  s.replace(loop_sid, insert_into(&s.loop_at(loop_sid), nest, pos));
  recheck_under_parallel_loops(s, before, block_sid);
}

// TVM's ComputeAtOrReverseComputeAtImpl<is_compute_at>: compute_at moves a producer under a
// loop of its consumers, reverse_compute_at a consumer under a loop of its producers.
template <bool is_compute_at>
void compute_at_or_reverse_compute_at(ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, bool preserve_unit_loops,
                                      int64_t index) {
  // Step 1. Checks: same scope; compute_at: not an output block; every consumer (producer)
  // under the loop; reverse_compute_at: what the producers leave after one iteration is final.
  check_same_scope(s, block_sid, loop_sid);
  check_not_container(s, block_sid, is_compute_at ? "compute_at" : "reverse_compute_at");
  check_complete_or_reduction(s, block_sid);
  BlockSid scope = s.scope_block(block_sid);
  bool output = is_compute_at && is_output_block(s, block_sid);
  if constexpr (is_compute_at) check_not_output_block(s, block_sid, output);
  std::vector<BlockSid> required = required_blocks<is_compute_at>(s, scope, block_sid);
  check_required_blocks_under<is_compute_at>(s, block_sid, loop_sid, required);
  ReductionOverLoop reduction;
  if constexpr (!is_compute_at) {
    check_producers_not_containers(s, required, block_sid);
    reduction = check_no_reduction_over_loop(s, required, block_sid, loop_sid);
  }
  // Step 2. The region required per buffer, and the iterator ranges that provide it.
  RegionMap region = required_region<is_compute_at>(s, block_sid, loop_sid, required);
  if constexpr (!is_compute_at) check_region_not_over_reduction(s, reduction, region, loop_sid, block_sid);
  const BlockNode* block = &s.block_at(block_sid);
  arith::VarDomain loop_dom = loop_domain(s, loop_sid);
  std::vector<IterRange> ranges =
      iter_ranges(s, block_sid, block, is_compute_at ? block->writes : block->reads, region, loop_dom);
  if constexpr (is_compute_at) {
    if (output) check_output_covered(s, block_sid, ranges, loop_dom);
  } else {
    check_reads_produced(s, block_sid, block, ranges, region, loop_dom);
    check_instances_kept(s, block_sid, block, region);
  }
  // Step 3. Rewrite, between the producers and the consumers under the loop.
  std::vector<BlockSid> others = neighbours(s, scope, block_sid, /*producers=*/is_compute_at);
  move_under_loop(s, block_sid, loop_sid, ranges, preserve_unit_loops, is_compute_at ? others : required,
                  is_compute_at ? required : others, index);
}

}  // namespace

void compute_at(ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, bool preserve_unit_loops, int64_t index) {
  compute_at_or_reverse_compute_at<true>(s, block_sid, loop_sid, preserve_unit_loops, index);
}

void reverse_compute_at(ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, bool preserve_unit_loops,
                        int64_t index) {
  compute_at_or_reverse_compute_at<false>(s, block_sid, loop_sid, preserve_unit_loops, index);
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

void register_compute_at_kinds(KindList& kinds) {
  for (bool reverse : {false, true}) {
    kinds.push_back(define_kind(
        reverse ? "ReverseComputeAt" : "ComputeAt", reverse ? "reverse_compute_at" : "compute_at",
        {input("block", ParamType::Block), input("loop", ParamType::Loop),
         attr("preserve_unit_loops", ParamType::Bool, "False"), attr("index", ParamType::Int, "-1")},
        OutputForm::None,
        [reverse](Schedule& sch, InstructionCall& c) {
          BlockSid block = sch.block_sid(c.inputs[0]);
          LoopSid loop = sch.loop_sid(c.inputs[1]);
          // The locations sample_compute_location can return: stay at the root, or inline.
          if (loop == kRootLoop) return;
          if (loop == kInlineLoop) {
            if (reverse)
              reverse_compute_inline(sch.state(), block);
            else
              compute_inline(sch.state(), block);
            return;
          }
          if (reverse)
            reverse_compute_at(sch.state(), block, loop, c.attrs[0].as_bool(), c.attrs[1].as_int());
          else
            compute_at(sch.state(), block, loop, c.attrs[0].as_bool(), c.attrs[1].as_int());
        },
        reverse ? "reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1): move a consumer under a loop "
                  "of its "
                  "producers."
                : "compute_at(block, loop, preserve_unit_loops=False, index=-1): move a producer under a loop of its "
                  "consumers,\n"
                  "computing exactly the region they need per iteration.",
        reverse ? "the block is a consumer whose producers are all under the loop; the loop is not inside the block"
                : "the block is a producer whose consumers are all under the loop; the loop is not inside the block",
        reverse
            ? "mm_relu: Y in loops i, j_0, k, j_1; C over all (i, j)  ->  C moves under j_0: for ax0 in range(4)"
            : "producer B over all i, consumer C in loop i_0  ->  B moves under i_0 and computes only the rows C reads "
              "there (new loops ax0, ax1, ...)"));
  }
}

}  // namespace tsch::schedule
