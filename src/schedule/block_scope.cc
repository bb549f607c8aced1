#include "schedule/block_scope.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/thread_storage_scope.h"
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// The child blocks of `scope` in program order, without those in its init (TVM's collector
// does not visit a block's init).
std::vector<BlockSid> scope_children(const ScheduleState& s, BlockSid scope) {
  std::unordered_set<const StmtNode*> in_init;
  if (const Stmt& init = s.block_at(scope).init) {
    for_each_stmt(init, [&](const Stmt& st) {
      if (auto* r = as<BlockRealizeNode>(st)) in_init.insert(r->block.get());
    });
  }
  std::vector<BlockSid> out;
  for (BlockSid b : s.child_blocks(scope)) {
    if (!in_init.count(s.info(b)->node)) out.push_back(b);
  }
  return out;
}

// `e` with each sum equal to `pattern` (once simplified) replaced by `by`.
class ReplaceSum : public IRMutator {
 public:
  ReplaceSum(PrimExpr pattern, PrimExpr by) : pattern_(std::move(pattern)), by_(std::move(by)) {}
  PrimExpr mutate_Add(const AddNode& n, const PrimExpr& self) override {
    return matches(self) ? by_ : IRMutator::mutate_Add(n, self);
  }
  PrimExpr mutate_Sub(const SubNode& n, const PrimExpr& self) override {
    return matches(self) ? by_ : IRMutator::mutate_Sub(n, self);
  }

 private:
  bool matches(const PrimExpr& sum) const { return expr_deep_equal(arith::simplify(sum), pattern_); }
  PrimExpr pattern_, by_;
};

bool binding_is_affine(const ScheduleState& s, BlockSid block_sid) {
  const BlockNode& block = s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  if (!realize) return block.iter_vars.empty();  // the root block
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  if (loops.empty()) return true;
  arith::LoopExtents extents;
  std::unordered_set<const VarNode*> loop_vars, symbolic;
  for (LoopSid l : loops) {
    const ForNode& f = s.loop_at(l);
    loop_vars.insert(f.loop_var.get());
    int64_t extent;
    if (is_zero(f.min) && as_const_int(f.extent, &extent))
      extents[f.loop_var.get()] = extent;
    else
      symbolic.insert(f.loop_var.get());
  }
  // A sum of loops the block's predicate bounds is one iterator over the range it allows, as
  // TVM's DetectIterMap makes of it: `f0 * 256 + f1 < 49` makes `(f0 * 256 + f1) // 7` a
  // split of a 49-long iterator. The sum must step by 1 (its smallest coefficient).
  struct Bounded {
    PrimExpr expr;
    std::optional<int64_t> lo, hi;
  };
  std::vector<Bounded> bounded;
  for (const PrimExpr& c : conjuncts(realize->predicate)) {
    PrimExpr t = c;
    if (auto* call = as<CallNode>(t); call && call->op == "likely" && call->args.size() == 1) t = call->args[0];
    std::optional<PredicateBound> b = comparison_bound(t);
    if (!b) continue;
    auto it = std::find_if(bounded.begin(), bounded.end(),
                           [&](const Bounded& x) { return expr_deep_equal(x.expr, b->expr); });
    if (it == bounded.end()) it = bounded.insert(bounded.end(), Bounded{b->expr, std::nullopt, std::nullopt});
    if (b->lo) it->lo = std::max(it->lo.value_or(INT64_MIN), *b->lo);
    if (b->hi) it->hi = std::min(it->hi.value_or(INT64_MAX), *b->hi);
  }
  std::vector<PrimExpr> values = realize->iter_values;
  std::unordered_set<const VarNode*> fused_loops;
  for (const Bounded& b : bounded) {
    if (!b.hi) continue;
    LinearForm lin;
    if (!linear_form(b.expr, 1, lin)) continue;
    int64_t step = INT64_MAX;
    bool usable = true;
    for (const auto& [v, coeff] : lin.terms) {
      usable = usable && loop_vars.count(v) && !symbolic.count(v) && coeff > 0 && !fused_loops.count(v);
      step = std::min(step, coeff);
    }
    if (!usable || step != 1) continue;
    int64_t lo = std::max<int64_t>(b.lo.value_or(0), 0);
    if (*b.hi <= lo) return false;
    Var fused = make_var("fused", b.expr->dtype);
    extents[fused.get()] = *b.hi - lo;
    loop_vars.insert(fused.get());
    for (const auto& [v, coeff] : lin.terms) fused_loops.insert(v);
    PrimExpr by = arith::simplify(add(fused, make_int(lo, b.expr->dtype)));
    for (PrimExpr& value : values) {
      int64_t shift;
      if (as_const_int(arith::simplify(sub(value, b.expr)), &shift))
        value = arith::simplify(add(by, make_int(shift, value->dtype)));
      else
        value = ReplaceSum(b.expr, by).mutate(value);
    }
  }
  std::vector<PrimExpr> rest;
  for (const PrimExpr& value : values) {
    if (!uses_var(value, [&](const VarNode* v) { return loop_vars.count(v) > 0; })) continue;
    if (uses_var(value, [&](const VarNode* v) { return fused_loops.count(v) > 0; })) return false;  // not independent
    if (auto* v = as<VarNode>(value); v && symbolic.count(v)) continue;  // a symbolic loop itself
    if (uses_var(value, [&](const VarNode* v) { return symbolic.count(v) > 0; })) return false;
    rest.push_back(value);
  }
  if (rest.empty()) return true;
  arith::IterMapResult map = arith::detect_iter_map(rest, extents, /*require_bijective=*/false);
  if (!map.ok) return false;
  for (const arith::IterSum& sum : map.sums) {
    if (!sum.splits.empty() && sum.splits.front().scale != 1) return false;
  }
  return true;
}

// T.max(e, c) / T.min(e, c), without repeating a bound `e` already has (`T.max(x, 0)`
// clipped at 0 again stays as it is, so the comparisons below see equal terms).
PrimExpr max_with(const PrimExpr& e, int64_t c) {
  int64_t v;
  if (as_const_int(e, &v)) return make_int(std::max(v, c), e->dtype);
  if (e->kind == ExprKind::Max && as_const_int(binary_b(e), &v) && v >= c) return e;
  return make_binary(ExprKind::Max, e, make_int(c, e->dtype));
}
PrimExpr min_with(const PrimExpr& e, int64_t c) {
  int64_t v;
  if (as_const_int(e, &v)) return make_int(std::min(v, c), e->dtype);
  if (e->kind == ExprKind::Min && as_const_int(binary_b(e), &v) && v <= c) return e;
  return make_binary(ExprKind::Min, e, make_int(c, e->dtype));
}

// Whether `index` moves with one relaxed loop only, by 1: it then covers its whole interval
// whatever the loop's (symbolic) extent.
bool steps_one_loop(const PrimExpr& index, const arith::VarDomain& dom) {
  LinearForm lin;
  if (!linear_form(arith::simplify(index), 1, lin)) return false;
  int relaxed = 0;
  for (const auto& [v, coeff] : lin.terms) {
    if (!dom.count(v)) continue;
    if (coeff != 1 && coeff != -1) return false;
    ++relaxed;
  }
  return relaxed <= 1;
}

// The region a block accesses of `region`'s buffer while the loops below `lca` run (and the
// thread-bound loops above whose threads share the buffer's storage, TVM's extra relax
// scope): per dimension [min, max], or nullopt where unknown. With `lower_bound`, only what
// is certainly accessed: a relaxed dimension with gaps, or a predicate that limits it other
// than by bounding a dimension, gives nullopt (TVM's EstimateRegionLowerBound).
std::optional<std::vector<arith::Interval>> region_bound(const ScheduleState& s, BlockSid block_sid, StmtSid lca,
                                                         const BufferRegion& region, bool lower_bound) {
  const BlockNode& block = s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) bind[block.iter_vars[i].var.get()] = realize->iter_values[i];
  arith::VarDomain dom;
  bool below = true;
  for (StmtSid p = s.info(block_sid)->parent; p; p = s.info(p)->parent) {
    if (p == lca) below = false;
    const ForNode* f = s.loop(p);
    if (!f) continue;
    bool thread_shared =
        f->for_kind == ForKind::ThreadBinding && ir::storage_shared_by_thread(region.buffer->scope, f->thread_tag);
    if (below || thread_shared) dom[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
  }
  std::vector<arith::Interval> out;
  std::vector<PrimExpr> mins;
  for (const Range& r : region.region) {
    PrimExpr lo = substitute(r.min, bind);
    PrimExpr hi = substitute(arith::simplify(sub(add(r.min, r.extent), make_int(1, r.extent->dtype))), bind);
    arith::Interval a = relax_bounds(lo, dom), b = relax_bounds(hi, dom);
    if (!a.min || !b.max) return std::nullopt;
    if (lower_bound && !steps_one_loop(lo, dom)) {
      // At most (product of the relaxed loops the index uses) x (extent per instance) points.
      int64_t points = 1, per_instance, hull, n;
      if (!as_const_int(arith::simplify(r.extent), &per_instance) ||
          !as_const_int(arith::simplify(add(sub(b.max, a.min), make_int(1, r.extent->dtype))), &hull))
        return std::nullopt;
      for (const auto& [var, range] : dom) {
        if (!uses_var(lo, [&](const VarNode* x) { return x == var; })) continue;
        if (!as_const_int(arith::simplify(add(sub(range.max, range.min), make_int(1, range.min->dtype))), &n))
          return std::nullopt;
        points *= n;
      }
      if (hull > points * per_instance) return std::nullopt;
    }
    out.push_back(arith::Interval{arith::simplify(a.min), arith::simplify(b.max)});
    mins.push_back(arith::simplify(lo));
  }
  if (lower_bound) {
    for (const PrimExpr& c : conjuncts(realize->predicate)) {
      int64_t truth;
      if (as_const_int(c, &truth) && truth != 0) continue;
      PrimExpr t = c;
      if (auto* call = as<CallNode>(t); call && call->op == "likely" && call->args.size() == 1) t = call->args[0];
      std::optional<PredicateBound> bound = comparison_bound(t);
      if (!bound) return std::nullopt;
      bool matched = false;
      for (size_t d = 0; d < mins.size() && !matched; ++d) {
        int64_t shift;
        if (!as_const_int(arith::simplify(sub(bound->expr, mins[d])), &shift)) continue;
        if (bound->lo) out[d].min = max_with(out[d].min, *bound->lo - shift);
        if (bound->hi) out[d].max = min_with(out[d].max, *bound->hi - 1 - shift);
        matched = true;
      }
      if (!matched) return std::nullopt;
    }
  }
  return out;
}

// The union of intervals known to be accessed: one interval, or constant ones that join
// without a gap; nullopt otherwise.
std::optional<arith::Interval> union_lower_bound(std::vector<arith::Interval> parts) {
  if (parts.size() == 1) return parts[0];
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const arith::Interval& p : parts) {
    int64_t lo, hi;
    if (!as_const_int(p.min, &lo) || !as_const_int(p.max, &hi)) return std::nullopt;
    ranges.push_back({lo, hi});
  }
  std::sort(ranges.begin(), ranges.end());
  int64_t lo = ranges[0].first, hi = ranges[0].second;
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first > hi + 1) return std::nullopt;
    hi = std::max(hi, ranges[i].second);
  }
  DataType t = parts[0].min->dtype;
  return arith::Interval{make_int(lo, t), make_int(hi, t)};
}

bool provably_le(const PrimExpr& a, const PrimExpr& b) {
  return arith::can_prove(make_binary(ExprKind::LE, arith::simplify(sub(a, b)), make_int(0, a->dtype)), {});
}

// TVM's ProducerCoversConsumer, both regions clipped to the buffer.
bool covers(const Buffer& buffer, const std::vector<std::optional<arith::Interval>>& produced,
            const std::vector<arith::Interval>& consumed) {
  for (size_t d = 0; d < consumed.size(); ++d) {
    if (!produced[d]) return false;
    DataType t = consumed[d].min->dtype;
    PrimExpr last = arith::simplify(sub(buffer->shape[d], make_int(1, t)));
    int64_t last_value;
    auto clip = [&](const arith::Interval& iv) {
      PrimExpr hi =
          as_const_int(last, &last_value) ? min_with(iv.max, last_value) : make_binary(ExprKind::Min, iv.max, last);
      return arith::Interval{max_with(iv.min, 0), hi};
    };
    arith::Interval p = clip(*produced[d]), c = clip(consumed[d]);
    if (!provably_le(p.min, c.min) || !provably_le(c.max, p.max)) return false;
  }
  return true;
}

struct ScopeFlags {
  std::unordered_map<BlockSid, bool> region_cover;  // consumers only; others are covered
  bool stage_pipeline = true;
};

ScopeFlags scope_flags(const ScheduleState& s, BlockSid scope) {
  ScopeFlags out;
  std::vector<Dependency> deps = block_dependencies(s, scope);
  std::vector<BlockSid> consumers;
  for (const Dependency& d : deps) {
    if (std::find(consumers.begin(), consumers.end(), d.dst) == consumers.end()) consumers.push_back(d.dst);
  }
  for (BlockSid consumer : consumers) {
    // The consumer's path up to the scope, and each producer's lowest ancestor on it.
    std::vector<StmtSid> path;
    for (StmtSid p = consumer;; p = s.info(p)->parent) {
      path.push_back(p);
      if (p == scope) break;
    }
    std::unordered_map<StmtSid, std::vector<BlockSid>> producers_at;
    for (const Dependency& d : deps) {
      if (d.dst != consumer) continue;
      if (d.kind == DepKind::WAR || d.kind == DepKind::Opaque) out.stage_pipeline = false;
      if (d.kind != DepKind::RAW) continue;
      for (StmtSid p = d.src; p; p = s.info(p)->parent) {
        if (std::find(path.begin(), path.end(), p) != path.end()) {
          producers_at[p].push_back(d.src);
          break;
        }
      }
    }
    bool cover = true;
    arith::AccessRegions reader = arith::effective_access_regions(s.block_at(consumer));
    for (StmtSid lca : path) {
      if (!cover) break;
      auto it = producers_at.find(lca);
      if (it == producers_at.end()) continue;
      for (const BufferRegion& read : reader.reads) {
        std::vector<std::vector<arith::Interval>> produced;
        bool unknown = false;
        for (BlockSid producer : it->second) {
          bool container = arith::is_undeclared_container(s.block_at(producer));
          for (const BufferRegion& write : arith::effective_access_regions(s.block_at(producer)).writes) {
            if (write.buffer != read.buffer) continue;
            // What an undeclared container writes is inferred, a hull: no lower bound.
            if (container) {
              unknown = true;
              continue;
            }
            auto bound = region_bound(s, producer, lca, write, /*lower_bound=*/true);
            if (!bound)
              unknown = true;
            else
              produced.push_back(*bound);
          }
        }
        if (produced.empty() && !unknown) continue;
        auto consumed = region_bound(s, consumer, lca, read, /*lower_bound=*/false);
        if (unknown || !consumed) {
          cover = false;
          break;
        }
        std::vector<std::optional<arith::Interval>> joined;
        for (size_t d = 0; d < consumed->size(); ++d) {
          std::vector<arith::Interval> parts;
          for (const auto& region : produced) parts.push_back(region[d]);
          joined.push_back(union_lower_bound(parts));
        }
        if (!covers(read.buffer, joined, *consumed)) {
          cover = false;
          break;
        }
      }
    }
    out.region_cover[consumer] = cover;
    out.stage_pipeline = out.stage_pipeline && cover;
  }
  return out;
}

TSCH_SCHEDULE_ERROR_KIND(kNotStagePipelineError, "NotStagePipelineError", "The scope root is not a stage pipeline",
                         "The scope {0} is not a stage pipeline.\n"
                         "Definition of a scope that is a stage pipeline:\n"
                         "- The region cover property holds for every of its child blocks\n"
                         "- No write-after-read dependency or opaque dependency,\n"
                         "- only read-after-write and write-after-write are allowed\n"
                         "- All the statements in the scope are schedulable statements, i.e. Block and For");

}  // namespace

void check_stage_pipeline(const ScheduleState& s, BlockSid scope) {
  if (!scope_flags(s, scope).stage_pipeline) fail(s, kNotStagePipelineError, {scope});
}

std::vector<Dependency> block_dependencies(const ScheduleState& s, BlockSid scope) {
  std::vector<Dependency> deps;
  std::unordered_map<const BufferNode*, std::vector<BlockSid>> readers, writers;
  auto add = [&](BlockSid src, BlockSid dst, DepKind kind) {
    if (src != dst) deps.push_back(Dependency{src, dst, kind});
  };
  for (BlockSid child : scope_children(s, scope)) {
    // An undeclared container (loop_partition's blocks) depends as the blocks inside it do.
    arith::AccessRegions block = arith::effective_access_regions(s.block_at(child));
    for (const BufferRegion& r : block.reads) readers[r.buffer.get()].push_back(child);
    for (const BufferRegion& w : block.writes) writers[w.buffer.get()].push_back(child);
    for (const BufferRegion& r : block.reads) {
      for (BlockSid from : writers[r.buffer.get()]) add(from, child, DepKind::RAW);
    }
    for (const BufferRegion& w : block.writes) {
      for (BlockSid from : writers[w.buffer.get()]) add(from, child, DepKind::WAW);
    }
    for (const BufferRegion& w : block.writes) {
      for (BlockSid from : readers[w.buffer.get()]) add(from, child, DepKind::WAR);
    }
  }
  return deps;
}

CachedFlags cached_flags(const ScheduleState& s, BlockSid block) {
  CachedFlags flags;
  flags.affine_binding = binding_is_affine(s, block);
  flags.region_cover = true;
  if (BlockSid scope = s.scope_block(block)) {
    ScopeFlags outer = scope_flags(s, scope);
    if (auto it = outer.region_cover.find(block); it != outer.region_cover.end()) flags.region_cover = it->second;
  }
  flags.stage_pipeline = scope_flags(s, block).stage_pipeline;
  return flags;
}

}  // namespace tsch::schedule
