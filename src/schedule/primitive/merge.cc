// merge: merge loop nests of the same shape that are siblings into one nest whose body runs
// the nests' bodies one after the other (TVM's Merge). Each loop given is the innermost of a
// chain of perfectly nested loops below the loops' lowest common ancestor; the chains must
// have the same depth and extents.
//
//   for i_0, j_0, i_1, j_1 in T.grid(8, 8, 16, 16): C      sch.merge(i_0 of C, i_0 of D)
//   for i_0, j_0, i_1, j_1 in T.grid(8, 8, 8, 8): D     ─────────────────────────────▶
//   for i_0_m in range(8):
//       for j_0, i_1, j_1 in T.grid(8, 16, 16): C
//       for j_0, i_1, j_1 in T.grid(8, 8, 8): D
//
// The merged body interleaves the nests, so tsch also checks what TVM leaves to the user:
// no nest may touch an element another nest writes (or write one it reads) in an iteration
// that comes earlier in the merged order than it did before; nor may the statements a nest
// moves across. Where that cannot be proved, merge refuses.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/transform.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(
    kMergeScopeError, "MergeError.scope", "Expected the loops to be under the same block scope.",
    "Expected the loops to be under the same block scope: loop {0} is in another block scope than loop {1}.");
TSCH_SCHEDULE_ERROR_KIND(kMergeDepthError, "MergeError.depth", "Merge loop's nesting depth must be same, but not.",
                         "Merge loop's nesting depth must be same, but not.");
TSCH_SCHEDULE_ERROR_KIND(kMergeExtentError, "MergeError.extent", "Merge loop's `extent` must be same, but not.",
                         "Merge loop's `extent` must be same, but not.");
TSCH_SCHEDULE_ERROR_KIND(kMergeNestedError, "MergeError.nested", "The loops to merge are nested in one another",
                         "Loop {0} lies inside loop {1}: the loops to merge must be in separate nests.");
TSCH_SCHEDULE_ERROR_KIND(kMergeOrderError, "MergeError.dependence",
                         "Merging the loops would change the order of dependent accesses",
                         "Merging the loops would change the order of dependent accesses: {0}");

// The loops and blocks from `sid` up to the function root (sid first).
std::vector<StmtSid> ancestors(const ScheduleState& s, StmtSid sid) {
  std::vector<StmtSid> out;
  for (StmtSid p = sid; p; p = s.info(p)->parent) out.push_back(p);
  return out;
}

// One nest to merge: its chain of loops (outermost first) below the common ancestor.
struct Nest {
  std::vector<LoopSid> chain;
  size_t position = 0;  // of chain[0] in the common ancestor's body
};

// An access of a block under a nest, relaxed over the loops inside the nest: per dimension
// [lo, hi] in terms of the nest's chain variables.
struct Access {
  Buffer buffer;
  std::vector<arith::Interval> dims;
  bool write = false;
};

std::vector<Access> accesses_under(const ScheduleState& s, const Stmt& body,
                                   const std::unordered_set<const VarNode*>& chain_vars) {
  std::vector<Access> out;
  for (const BlockRealizeNode* realize : realizes_under(body)) {
    const BlockNode* block = realize->block.get();
    std::unordered_map<const VarNode*, PrimExpr> bind;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) bind[block->iter_vars[i].var.get()] = realize->iter_values[i];
    arith::VarDomain inner;
    for (LoopSid l : s.enclosing_loops(sid_of(*block))) {
      const ForNode* f = &s.loop_at(l);
      if (!chain_vars.count(f->loop_var.get())) inner[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
    }
    // A container of loop partitions declares nothing itself: its body's accesses count.
    arith::AccessRegions regions = arith::effective_access_regions(*block);
    for (bool write : {false, true}) {
      for (const BufferRegion& r : write ? regions.writes : regions.reads) {
        Access a{r.buffer, {}, write};
        for (const Range& range : r.region) {
          arith::Interval lo = arith::eval_interval(substitute(range.min, bind), inner);
          arith::Interval hi = arith::eval_interval(
              substitute(arith::simplify(sub(add(range.min, range.extent), make_int(1, range.extent->dtype))), bind),
              inner);
          a.dims.push_back(lo.min && hi.max ? arith::Interval{lo.min, hi.max} : arith::Interval{});
        }
        out.push_back(std::move(a));
      }
    }
  }
  return out;
}

// Whether accesses `x` and `y` (already in the same variables) provably touch no common
// element under `dom`: some dimension where one ends before the other begins.
bool disjoint(const Access& x, const Access& y, const arith::VarDomain& dom) {
  for (size_t d = 0; d < x.dims.size() && d < y.dims.size(); ++d) {
    const arith::Interval& a = x.dims[d];
    const arith::Interval& b = y.dims[d];
    if (!a.min || !b.min) continue;
    if (arith::can_prove(make_binary(ExprKind::LT, a.max, b.min), dom) ||
        arith::can_prove(make_binary(ExprKind::LT, b.max, a.min), dom))
      return true;
  }
  return false;
}

Access renamed(const Access& a, const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  Access out = a;
  for (auto& d : out.dims) {
    if (d.min) d = arith::Interval{substitute(d.min, vmap), substitute(d.max, vmap)};
  }
  return out;
}

// The loops' lowest common ancestor (a loop or a block).
StmtSid lowest_common_ancestor(const ScheduleState& s, const std::vector<LoopSid>& loop_sids) {
  std::vector<StmtSid> common = ancestors(s, loop_sids[0]);
  for (size_t k = 1; k < loop_sids.size(); ++k) {
    std::vector<StmtSid> up = ancestors(s, loop_sids[k]);
    std::unordered_set<StmtSid> on_path(up.begin(), up.end());
    std::vector<StmtSid> kept;
    for (StmtSid a : common) {
      if (on_path.count(a)) kept.push_back(a);
    }
    common = kept;
  }
  StmtSid lca = common.empty() ? StmtSid() : common.front();
  if (!lca) fail(s, kMergeScopeError, {loop_sids[0], loop_sids[1]});
  return lca;
}

// The chain of loops from below `lca` down to `sid`: perfectly nested plain loops from 0.
Nest chain_below(const ScheduleState& s, LoopSid sid, StmtSid lca, const std::vector<LoopSid>& loop_sids) {
  LoopSid other = loop_sids[0] == sid ? loop_sids[1] : loop_sids[0];
  if (sid == lca) fail(s, kMergeNestedError, {other, sid});
  Nest n;
  for (StmtSid p = sid; p != lca; p = s.info(p)->parent) {
    LoopSid loop = s.as_loop(p);
    if (!loop) fail(s, kMergeScopeError, {sid, other});
    n.chain.push_back(loop);
  }
  std::reverse(n.chain.begin(), n.chain.end());
  for (size_t i = 0; i < n.chain.size(); ++i) {
    const ForNode* f = &s.loop_at(n.chain[i]);
    if (!f->annotations.empty() || f->for_kind == ForKind::ThreadBinding)
      fail(s, kHasAnnotationOrThreadBindingError, {n.chain[i]});
    if (!is_zero(f->min)) fail(s, kLoopNotStartWithZeroError, {n.chain[i]});
    if (i > 0 && s.loop_at(n.chain[i - 1]).body.get() != static_cast<const StmtNode*>(f)) {
      fail(s, kNotOnlyChildError, {n.chain[i - 1], n.chain[i]});
    }
  }
  return n;
}

// Every chain as deep as the first, loop by loop of the same extent.
void check_same_shape(const ScheduleState& s, const std::vector<Nest>& nests, const std::vector<LoopSid>& loop_sids) {
  const std::vector<LoopSid>& first = nests[0].chain;
  for (size_t k = 1; k < nests.size(); ++k) {
    const std::vector<LoopSid>& chain = nests[k].chain;
    if (chain.size() != first.size()) fail(s, kMergeDepthError, {loop_sids[0], loop_sids[k]});
    for (size_t j = 0; j < chain.size(); ++j) {
      PrimExpr a = s.loop_at(first[j]).extent, b = s.loop_at(chain[j]).extent;
      if (!is_zero(arith::simplify(sub(a, cast(a->dtype, b))))) {
        fail(s, kMergeExtentError, {first[j], chain[j]},
             fmt::format("Merge loop's `extent` must be same, but not. extent=[{},{},{}]", j, ir::script(a),
                         ir::script(b)));
      }
    }
  }
}

// The common ancestor's body items; the chains' outermost loops must be distinct items of it
// (each nest's `position`).
std::vector<Stmt> locate_in_body(const ScheduleState& s, StmtSid lca, std::vector<Nest>& nests) {
  const StmtNode* lca_node = s.info(lca)->node;
  const Stmt& lca_body = lca_node->kind == StmtKind::For ? static_cast<const ForNode*>(lca_node)->body
                                                         : static_cast<const BlockNode*>(lca_node)->body;
  std::vector<Stmt> items = body_items(lca_body);
  for (Nest& n : nests) {
    const StmtNode* root = &s.loop_at(n.chain[0]);
    auto it = std::find_if(items.begin(), items.end(), [&](const Stmt& st) { return st.get() == root; });
    if (it == items.end())
      fail_not_supported(s, {n.chain[0]}, "merging loop {0}, which is not an item of its parent's body");
    n.position = static_cast<size_t>(it - items.begin());
  }
  return items;
}

// Step 2's result: the merged loop variables, and per nest the map from its chain's
// variables to them and its accesses in their terms.
struct MergedNests {
  std::vector<LoopSid> first;  // the first nest's chain, whose extents the merged loops take
  std::vector<Var> merged;
  std::vector<std::unordered_map<const VarNode*, PrimExpr>> to_merged;
  std::vector<std::vector<Access>> accesses;
};

MergedNests merged_nests(const ScheduleState& s, const std::vector<Nest>& nests) {
  MergedNests m;
  m.first = nests[0].chain;
  size_t depth = m.first.size();
  for (LoopSid l : m.first)
    m.merged.push_back(make_var(s.loop_at(l).loop_var->name + "_m", s.loop_at(l).loop_var->dtype));
  m.to_merged.resize(nests.size());
  for (size_t k = 0; k < nests.size(); ++k) {
    std::unordered_set<const VarNode*> chain_vars;
    for (size_t j = 0; j < depth; ++j) {
      const Var& v = s.loop_at(nests[k].chain[j]).loop_var;
      chain_vars.insert(v.get());
      m.to_merged[k][v.get()] = cast(v->dtype, m.merged[j]);
    }
    std::vector<Access> mine;
    for (const Access& a : accesses_under(s, s.loop_at(nests[k].chain.back()).body, chain_vars))
      mine.push_back(renamed(a, m.to_merged[k]));
    m.accesses.push_back(std::move(mine));
  }
  return m;
}

[[noreturn]] void fail_merge_order(const ScheduleState& s, LoopSid loop_a, LoopSid loop_b, const std::string& buffer) {
  fail(s, kMergeOrderError, {loop_a, loop_b},
       fmt::format(
           "Merging the loops would change the order of dependent accesses: the nest of loop {{0}} and the nest of "
           "loop "
           "{{1}} both access {} (one writes it), and tsch cannot prove that the merged order keeps each access "
           "before or after the other as it was",
           buffer));
}

// The domain of the merged loops.
arith::VarDomain merged_domain(const ScheduleState& s, const MergedNests& m) {
  arith::VarDomain base;
  for (size_t j = 0; j < m.merged.size(); ++j)
    base[m.merged[j].get()] = arith::interval_of(Range{make_int(0, m.merged[j]->dtype), s.loop_at(m.first[j]).extent});
  return base;
}

// Whether access x of an earlier nest, at any iteration t' after t, provably touches other
// elements than access y of a later nest at t: for each loop j where t' may first differ
// from t, t' being later there.
bool later_iterations_disjoint(const ScheduleState& s, const MergedNests& m, const arith::VarDomain& base,
                               const Access& x, const Access& y) {
  size_t depth = m.merged.size();
  for (size_t j = 0; j < depth; ++j) {
    int64_t extent;
    if (as_const_int(s.loop_at(m.first[j]).extent, &extent) && extent <= 1) continue;
    arith::VarDomain dom = base;
    std::unordered_map<const VarNode*, PrimExpr> later;
    Var step = make_var("delta", m.merged[j]->dtype);
    dom[step.get()] = arith::interval_of(Range{make_int(0, m.merged[j]->dtype), s.loop_at(m.first[j]).extent});
    later[m.merged[j].get()] = add(add(m.merged[j], make_int(1, m.merged[j]->dtype)), step);
    for (size_t k = j + 1; k < depth; ++k) {
      Var other = make_var(m.merged[k]->name + "_later", m.merged[k]->dtype);
      dom[other.get()] = base.at(m.merged[k].get());
      later[m.merged[k].get()] = other;
    }
    if (!disjoint(renamed(x, later), y, dom)) return false;
  }
  return true;
}

// Step 3. Dependences. Before, nest a (earlier in the body) ran entirely before nest b;
// merged, b at iteration t runs before a at every later iteration t'. So for every pair
// of their accesses to one buffer, one a write, a at t' > t must touch other elements
// than b at t; and at t' = t too when merge puts b's body first.
void check_merged_order(const ScheduleState& s, const std::vector<LoopSid>& loop_sids, const std::vector<Nest>& nests,
                        const MergedNests& m) {
  arith::VarDomain base = merged_domain(s, m);
  for (size_t a = 0; a < nests.size(); ++a) {
    for (size_t b = 0; b < nests.size(); ++b) {
      if (nests[a].position >= nests[b].position) continue;  // a before b in the body
      for (const Access& x : m.accesses[a]) {
        for (const Access& y : m.accesses[b]) {
          if (x.buffer != y.buffer || (!x.write && !y.write)) continue;
          if (!later_iterations_disjoint(s, m, base, x, y))
            fail_merge_order(s, loop_sids[a], loop_sids[b], x.buffer->name);
          bool b_first = std::find(loop_sids.begin(), loop_sids.end(), nests[b].chain.back()) <
                         std::find(loop_sids.begin(), loop_sids.end(), nests[a].chain.back());
          if (b_first && !disjoint(x, y, base)) fail_merge_order(s, loop_sids[a], loop_sids[b], x.buffer->name);
        }
      }
    }
  }
}

// The nests move to where the last one given is: what they cross must not depend on them.
void check_crossed_statements(const ScheduleState& s, const std::vector<LoopSid>& loop_sids,
                              const std::vector<Nest>& nests, const MergedNests& m, const std::vector<Stmt>& items,
                              const std::unordered_set<size_t>& merged_positions) {
  size_t target = nests.back().position;
  for (size_t k = 0; k + 1 < nests.size(); ++k) {
    std::unordered_set<const BufferNode*> reads, writes;
    for (const Access& a : m.accesses[k]) (a.write ? writes : reads).insert(a.buffer.get());
    size_t lo = std::min(nests[k].position, target), hi = std::max(nests[k].position, target);
    for (size_t p = lo + 1; p < hi; ++p) {
      if (merged_positions.count(p)) continue;
      for (const BlockRealizeNode* r : realizes_under(items[p])) {
        arith::AccessRegions regions = arith::effective_access_regions(*r->block);
        for (const BufferRegion& w : regions.writes) {
          if (reads.count(w.buffer.get()) || writes.count(w.buffer.get()))
            fail_merge_order(s, loop_sids[k], loop_sids[nests.size() - 1], w.buffer->name);
        }
        for (const BufferRegion& rd : regions.reads) {
          if (writes.count(rd.buffer.get()))
            fail_merge_order(s, loop_sids[k], loop_sids[nests.size() - 1], rd.buffer->name);
        }
      }
    }
  }
}

}  // namespace

LoopSid merge(ScheduleState& s, const std::vector<LoopSid>& loop_sids) {
  // Step 1. The common ancestor and each loop's chain below it.
  if (loop_sids.size() < 2) return loop_sids.empty() ? LoopSid() : loop_sids[0];
  StmtSid lca = lowest_common_ancestor(s, loop_sids);
  std::vector<Nest> nests;
  for (LoopSid sid : loop_sids) nests.push_back(chain_below(s, sid, lca, loop_sids));
  check_same_shape(s, nests, loop_sids);
  std::vector<Stmt> items = locate_in_body(s, lca, nests);
  // Step 2. The merged variables, and each nest's accesses in their terms.
  MergedNests m = merged_nests(s, nests);
  // Step 3. The merged order keeps every dependence.
  check_merged_order(s, loop_sids, nests, m);
  std::unordered_set<size_t> merged_positions;
  for (const Nest& n : nests) merged_positions.insert(n.position);
  check_crossed_statements(s, loop_sids, nests, m, items, merged_positions);
  // Step 4. The merged nest in place of the last nest given; the others leave the body.
  std::vector<Stmt> bodies;
  for (size_t k = 0; k < nests.size(); ++k)
    bodies.push_back(substitute(s.loop_at(nests[k].chain.back()).body, m.to_merged[k]));
  std::vector<LoopSpec> specs;
  for (size_t j = 0; j < m.merged.size(); ++j) specs.push_back({m.merged[j], nullptr, s.loop_at(m.first[j]).extent});
  std::vector<LoopSid> sids;
  Stmt nest = make_loop_nest(s, specs, make_seq(bodies), &sids);
  std::vector<Stmt> new_items;
  for (size_t p = 0; p < items.size(); ++p) {
    if (p == nests.back().position)
      new_items.push_back(nest);
    else if (!merged_positions.count(p))
      new_items.push_back(items[p]);
  }
  Stmt new_body = make_seq(new_items);
  if (auto* loop = s.loop(lca)) {
    auto copy = std::make_shared<ForNode>(*loop);
    copy->body = new_body;
    s.replace(lca, copy);
  } else {
    rebuild_scope(s, s.as_block(lca), [&](BlockNode& b) { b.body = rewrap(peel_decls(b.body).wrappers, new_body); });
  }
  return sids.back();
}

void register_merge_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "Merge", "merge", {input("loops", ParamType::Loops)}, OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        std::vector<LoopSid> loops;
        for (const TraceArg& a : c.inputs) loops.push_back(sch.loop_sid(a));
        output_loops(c, {merge(sch.state(), loops)});
      },
      "merge(*loops) -> LoopRV: merge sibling loop nests of the same shape into one; returns the innermost merged "
      "loop.",
      "each loop heads a chain of perfectly nested loops below their common ancestor, starting at 0, without "
      "annotations; the chains have the same depth and extents; the merged order keeps dependent accesses in order",
      "for i in range(8): C;  for i in range(8): D   ->  for i_m in range(8): C; D"));
}

}  // namespace tsch::schedule
