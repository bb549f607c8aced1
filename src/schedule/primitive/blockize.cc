// blockize: wrap a subtree into an outer block whose iterators `vi_o` are the parts of the
// bindings that come from the loops outside (TVM's Blockize). Each binding must split into
// outer * inner_extent + inner, where inner uses only the loops inside (subspace division,
// via the affine iteration maps of arith/iter_map.h).
//   - blockize(loop): the subtree under the loop becomes "X_o"; a reduction block's init
//     moves to the outer block as a loop nest of "X_init".
//   - blockize([b0, b1, ...]): consecutive sibling subtrees holding those blocks become
//     "outer_B0_B1_"; every block must divide into the same outer iterators.
// As in TVM, the outer block always has one iterator per block iterator, an inner
// iterator exists only where its extent is above 1, and a unit outer part disappears from
// the inner block's indices (v = v_i).
//
//   for i_0, i_1 in T.grid(8, 16):                  for i_0 in range(8):
//     with T.block("C"): vi = i_0 * 16 + i_1   ─▶     with T.block("C_o"): vi_o = i_0
//                                                        for i_1 in range(16):
//                                                          with T.block("C"): vi_i = i_1
#include <fmt/format.h>

#include <unordered_set>

#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"
#include "support/diagnostics.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// The value of one split of a loop variable: floormod(floordiv(v, lower), extent).
PrimExpr split_value(const arith::IterSplit& split, const ForNode* loop) {
  PrimExpr v = loop->loop_var;
  DataType t = v->dtype;
  int64_t extent;
  bool whole = split.lower_factor == 1 && as_const_int(loop->extent, &extent) && extent == split.extent;
  if (whole) return v;
  PrimExpr out = split.lower_factor == 1 ? v : floordiv(v, make_int(split.lower_factor, t));
  return floormod(out, make_int(split.extent, t));
}

// One binding written as outer * inner_extent + inner.
struct Division {
  PrimExpr outer, inner;
  int64_t outer_extent = 1, inner_extent = 1;
};

// A block's bindings divided at its inner loops (those from `first_inner` on among its
// enclosing loops).
struct Subspace {
  std::vector<Division> parts;              // one per iterator
  std::vector<const ForNode*> inner_loops;  // outermost first
  PrimExpr outer_predicate, inner_predicate;
};

TSCH_SCHEDULE_ERROR_KIND(
    kSubspaceNotDivisibleError, "SubspaceNotDivisibleError", "The bindings of the inner block can not be blockized.",
    "ScheduleError: The bindings of the inner block {0} can not be blockized by the loops starting at {1}.");
TSCH_SCHEDULE_ERROR_KIND(kBlocksNotSharingOuterError, "BlocksNotSharingOuterError",
                         "The blocks cannot share an outer block", "The blocks cannot share an outer block");
TSCH_SCHEDULE_ERROR_KIND(kUnboundedRegionError, "UnboundedRegionError.blockize",
                         "The region the outer block accesses cannot be bounded",
                         "The region that the outer block of {0} accesses cannot be bounded");
TSCH_SCHEDULE_ERROR_KIND(kNoBlockError, "NoBlockError", "blockize needs at least one block",
                         "blockize needs at least one block");
TSCH_SCHEDULE_ERROR_KIND(kBlockMultiAppearanceError, "BlockMultiAppearanceError",
                         "Some block appears in the input array for multiple times.",
                         "Block {0} appears in the input array for multiple times.");
TSCH_SCHEDULE_ERROR_KIND(kBlocksNotInSameScopeError, "BlocksNotInSameScopeError",
                         "The blocks are not in the same scope", "The blocks {0} and {1} are not in the same scope");
TSCH_SCHEDULE_ERROR_KIND(kBlocksNotConsecutiveError, "BlocksNotConsecutiveError",
                         "The blocks to blockize must be consecutive statements under their common loop or block",
                         "The blocks to blockize must be consecutive statements under their common loop or block");
TSCH_SCHEDULE_ERROR_KIND(kUnlistedBlockError, "UnlistedBlockError",
                         "The subtrees to blockize also hold a block that is not listed",
                         "The subtrees to blockize also hold block {0}, which is not listed");

// TVM's SubspaceNotDivisibleError names the block and the first loop of the inner part.
[[noreturn]] void fail_not_divisible(const ScheduleState& s, const std::vector<StmtSid>& where,
                                     const std::string& why) {
  fail(s, kSubspaceNotDivisibleError, where,
       std::string("ScheduleError: The bindings of the inner block {0} can not be blockized") +
           (where.size() > 1 ? " by the loops starting at {1}" : "") + ": " + why);
}

// The loops around a block (from 0, with constant extents) and which of them are inner.
struct BlockLoops {
  std::vector<LoopSid> sids;  // outermost first
  arith::LoopExtents extents;
  std::unordered_map<const VarNode*, const ForNode*> loop_of;
  std::unordered_set<const VarNode*> inner_vars;
  std::vector<const ForNode*> inner_loops;  // outermost first
  std::vector<StmtSid> where;               // the block and the first inner loop, for errors
};

BlockLoops block_loops(const ScheduleState& s, BlockSid block_sid, size_t first_inner) {
  BlockLoops out;
  out.sids = s.enclosing_loops(block_sid);
  out.where = {block_sid};
  if (first_inner < out.sids.size()) out.where.push_back(out.sids[first_inner]);
  for (size_t k = 0; k < out.sids.size(); ++k) {
    const ForNode* f = &s.loop_at(out.sids[k]);
    int64_t e;
    if (!is_zero(f->min) || !as_const_int(f->extent, &e)) {
      fail_not_supported(s, {out.sids[k]},
                         "blockize over loops that do not start at 0 or have symbolic extents (loop {0})");
    }
    out.extents[f->loop_var.get()] = e;
    out.loop_of[f->loop_var.get()] = f;
    if (k >= first_inner) {
      out.inner_vars.insert(f->loop_var.get());
      out.inner_loops.push_back(f);
    }
  }
  return out;
}

// A T.where predicate goes with the loops it tests: over outer loops only it guards the outer
// block, over inner loops only it stays on the inner block.
void divide_predicate(const ScheduleState& s, BlockSid block_sid, const BlockLoops& loops, Subspace& out) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  out.outer_predicate = make_bool(true);
  out.inner_predicate = make_bool(true);
  if (is_one(realize->predicate)) return;
  bool uses_inner = uses_var(realize->predicate, [&](const VarNode* v) { return loops.inner_vars.count(v) > 0; });
  bool uses_outer = uses_var(realize->predicate, [&](const VarNode* v) {
    return loops.extents.count(v) > 0 && loops.inner_vars.count(v) == 0;
  });
  if (uses_inner && uses_outer) {
    fail_not_divisible(
        s, loops.where,
        "the predicate " + ir::script(realize->predicate) + " tests both loops inside and outside the blockized loop");
  }
  if (uses_inner && s.block_at(block_sid).init) {
    fail_not_supported(s, {block_sid}, "blockize of a reduction block {0} whose predicate tests the inner loops");
  }
  (uses_inner ? out.inner_predicate : out.outer_predicate) = realize->predicate;
}

// With preserve_unit_iters an outer part that is only a unit loop stays that loop's variable
// (TVM's `vi_o = T.axis.spatial(1, i0)`), which the iter map dropped as 0. Likewise a unit
// loop among other outer loops stays in the binding, after them (`ax0_0 * 2 + ax0_1 + ax0`),
// as TVM writes it.
void keep_unit_outer_loops(const ScheduleState& s, const PrimExpr& binding, const BlockLoops& loops, Division& d) {
  DataType t = binding->dtype;
  for (LoopSid sid : loops.sids) {
    const ForNode* loop = &s.loop_at(sid);
    const VarNode* var = loop->loop_var.get();
    if (loops.inner_vars.count(var) || loops.extents.at(var) != 1) continue;
    if (!uses_var(binding, [&](const VarNode* v) { return v == var; })) continue;
    if (uses_var(d.outer, [&](const VarNode* v) { return v == var; })) continue;
    d.outer = is_zero(d.outer) ? cast(t, loop->loop_var) : add(d.outer, cast(t, loop->loop_var));
  }
}

// Binding `i` (its iter map `sum`) written as outer * inner_extent + inner.
Division divide_binding(const ScheduleState& s, BlockSid block_sid, size_t i, const arith::IterSum& sum,
                        const BlockLoops& loops, bool preserve_unit_iters) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  DataType t = realize->iter_values[i]->dtype;
  Division d{make_int(0, t), make_int(0, t), 1, 1};
  // Terms collected innermost first, summed outermost first (`i_0 * 16 + i_1`). Without
  // preserve_unit_iters a unit loop counts as the constant 0.
  std::vector<PrimExpr> outer_terms, inner_terms;
  bool seen_outer = false;
  for (const auto& split : sum.splits) {  // innermost digit first
    if (split.extent == 1 && !preserve_unit_iters) continue;
    bool is_inner = loops.inner_vars.count(split.source) > 0;
    if (is_inner && seen_outer && split.extent > 1) {
      fail_not_divisible(s, loops.where,
                         "binding " + ir::script(realize->iter_values[i]) + " mixes inner loops above outer ones");
    }
    PrimExpr value = split_value(split, loops.loop_of.at(split.source));
    if (is_inner && !seen_outer) {
      inner_terms.push_back(mul(value, make_int(split.scale, t)));
      d.inner_extent *= split.extent;
    } else {
      seen_outer = true;
      outer_terms.push_back(mul(value, make_int(split.scale / d.inner_extent, t)));
      d.outer_extent *= split.extent;
    }
  }
  for (size_t k = outer_terms.size(); k-- > 0;)
    d.outer = is_zero(d.outer) ? outer_terms[k] : add(d.outer, outer_terms[k]);
  for (size_t k = inner_terms.size(); k-- > 0;)
    d.inner = is_zero(d.inner) ? inner_terms[k] : add(d.inner, inner_terms[k]);
  // An imperfect split covers more than the iterator's domain; the outer iterator only
  // needs to reach the blocks that exist.
  int64_t dom_extent;
  if (as_const_int(s.block_at(block_sid).iter_vars[i].dom.extent, &dom_extent)) {
    d.outer_extent = std::min(d.outer_extent, (dom_extent + d.inner_extent - 1) / d.inner_extent);
    // All inside: the inner iterator covers the domain, the predicate the rest.
    if (outer_terms.empty()) d.inner_extent = std::min(d.inner_extent, dom_extent);
  }
  if (sum.base % d.inner_extent != 0) fail_not_divisible(s, loops.where, "offset binding");
  d.outer = arith::simplify(add(d.outer, make_int(sum.base / d.inner_extent, t)));
  d.inner = arith::simplify(d.inner);
  if (preserve_unit_iters) keep_unit_outer_loops(s, realize->iter_values[i], loops, d);
  return d;
}

Subspace divide(const ScheduleState& s, BlockSid block_sid, size_t first_inner, bool preserve_unit_iters) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  BlockLoops loops = block_loops(s, block_sid, first_inner);
  Subspace out;
  out.inner_loops = loops.inner_loops;
  divide_predicate(s, block_sid, loops, out);
  // Only the inner loops must tile: the outer ones are the outer block's (a warp index bound
  // as `fused // 2` in one binding and `fused % 2` in another is an outer value like any).
  arith::IterMapResult map = arith::detect_iter_map(realize->iter_values, loops.extents, false, &loops.inner_vars);
  if (!map.ok) fail_not_divisible(s, loops.where, "a binding " + map.error);
  for (size_t i = 0; i < map.sums.size(); ++i)
    out.parts.push_back(divide_binding(s, block_sid, i, map.sums[i], loops, preserve_unit_iters));
  return out;
}

// The outer block under construction: its iterators and their bindings.
struct Outer {
  std::shared_ptr<BlockNode> block = std::make_shared<BlockNode>();
  std::vector<PrimExpr> values;
  bool has_iters = false;
};

// A block rewritten as the inner block of a division, with its loops.
struct Inner {
  std::shared_ptr<BlockNode> block;
  std::vector<PrimExpr> values;
  std::unordered_map<const VarNode*, PrimExpr> vmap;  // original iterator -> new expression
  arith::VarDomain dom;                               // the inner iterators' ranges
  Stmt nest;                                          // inner loops around the realize
};

// Creates the outer iterators from the first block (`outer.has_iters` false) or checks
// that a later block divides into the same ones, then rewrites the block.
Inner derive(const ScheduleState& s, BlockSid block_sid, const BlockNode* block, const Subspace& sub,
             bool preserve_unit_iters, Outer& outer) {
  bool reuse = outer.has_iters;
  if (reuse && outer.block->iter_vars.size() != block->iter_vars.size()) {
    fail(
        s, kBlocksNotSharingOuterError, {block_sid},
        fmt::format("The blocks cannot share an outer block: block {{0}} has {} iterators where the first block has {}",
                    block->iter_vars.size(), outer.block->iter_vars.size()));
  }
  Inner in;
  std::vector<IterVar> inner_iters;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    const Division& d = sub.parts[i];
    DataType t = iv.var->dtype;
    Var vo;
    if (reuse) {
      const IterVar& shared = outer.block->iter_vars[i];
      int64_t extent = 0;
      if (!as_const_int(shared.dom.extent, &extent) || extent != d.outer_extent ||
          !expr_deep_equal(outer.values[i], d.outer)) {
        fail(s, kBlocksNotSharingOuterError, {block_sid},
             fmt::format(
                 "The blocks cannot share an outer block: iterator {} of block {{0}} divides into {} over [0, {}), the "
                 "first block's into {}",
                 iv.var->name, ir::script(d.outer), d.outer_extent, ir::script(outer.values[i])));
      }
      vo = shared.var;
    } else {
      vo = make_var(iv.var->name + "_o", t);
      outer.block->iter_vars.push_back(IterVar{vo, Range{make_int(0, t), make_int(d.outer_extent, t)}, iv.type});
      outer.values.push_back(d.outer);
    }
    PrimExpr replacement;
    if (d.inner_extent == 1) {
      replacement = d.outer_extent == 1 && !preserve_unit_iters ? make_int(0, t) : PrimExpr(vo);
    } else {
      Var vi = make_var(iv.var->name + "_i", t);
      inner_iters.push_back(IterVar{vi, Range{make_int(0, t), make_int(d.inner_extent, t)}, iv.type});
      in.values.push_back(d.inner);
      in.dom[vi.get()] = arith::Interval{make_int(0, t), make_int(d.inner_extent - 1, t)};
      replacement = d.outer_extent == 1 ? PrimExpr(vi) : arith::simplify(add(mul(vo, make_int(d.inner_extent, t)), vi));
    }
    in.vmap[iv.var.get()] = replacement;
  }
  outer.has_iters = true;
  in.block = std::make_shared<BlockNode>(*block);
  in.block->iter_vars = inner_iters;
  in.block->body = substitute_simplify(block->body, in.vmap, in.dom);
  in.block->init = nullptr;
  auto map_regions = [&](const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const auto& r : regions) {
      BufferRegion m{r.buffer, {}};
      for (const auto& range : r.region)
        m.region.push_back(Range{arith::simplify(substitute(range.min, in.vmap), in.dom), range.extent});
      out.push_back(m);
    }
    return out;
  };
  in.block->reads = map_regions(block->reads);
  in.block->writes = map_regions(block->writes);
  // As TVM: any reduction iterator of the outer block counts, even one of extent 1.
  bool outer_reduction = false;
  for (const auto& iv : outer.block->iter_vars) outer_reduction |= iv.type == IterType::CommReduce;
  if (block->init && outer_reduction) {
    // Without its init the inner block also reads what it accumulates into.
    std::vector<BufferRegion> reads = in.block->writes;
    reads.insert(reads.end(), in.block->reads.begin(), in.block->reads.end());
    in.block->reads = reads;
  }
  in.nest =
      wrap_in_loops(std::make_shared<BlockRealizeNode>(in.values, sub.inner_predicate, in.block), sub.inner_loops);
  return in;
}

// What the inner block accesses over all inner iterations.
std::vector<BufferRegion> relax(const ScheduleState& s, BlockSid block_sid, const std::vector<BufferRegion>& regions,
                                const arith::VarDomain& dom) {
  std::vector<BufferRegion> out;
  for (const auto& r : regions) {
    BufferRegion m{r.buffer, {}};
    for (const auto& range : r.region) {
      arith::Interval lo = arith::eval_interval(range.min, dom);
      arith::Interval hi = arith::eval_interval(
          arith::simplify(sub(add(range.min, range.extent), make_int(1, range.extent->dtype))), dom);
      if (!lo.min || !hi.min)
        fail(s, kUnboundedRegionError, {block_sid},
             "The region of buffer " + r.buffer->name + " that the outer block of {0} accesses cannot be bounded");
      m.region.push_back(arith::range_of(arith::Interval{arith::simplify(lo.min), arith::simplify(hi.max)}));
    }
    out.push_back(m);
  }
  return out;
}

// Adds `more` to `regions`, one bounding box per buffer in order of first appearance;
// `dom` (the outer iterators' ranges) lets min/max of their expressions fold.
void unite(std::vector<BufferRegion>& regions, const std::vector<BufferRegion>& more, const arith::VarDomain& dom) {
  for (const auto& r : more) {
    auto it = std::find_if(regions.begin(), regions.end(), [&](const BufferRegion& x) { return x.buffer == r.buffer; });
    if (it == regions.end()) {
      regions.push_back(r);
      continue;
    }
    for (size_t d = 0; d < r.region.size(); ++d) {
      Range& a = it->region[d];
      const Range& b = r.region[d];
      PrimExpr lo = arith::simplify(make_binary(ExprKind::Min, a.min, b.min), dom);
      PrimExpr hi = arith::simplify(make_binary(ExprKind::Max, add(a.min, a.extent), add(b.min, b.extent)), dom);
      a = Range{lo, arith::simplify(sub(hi, lo), dom)};
    }
  }
}

// A reduction's init as the outer block's init: a nest of "X_init" over the inner loops
// that feed the iterators the init uses (TVM's GenerateOuterInit).
Stmt outer_init(ScheduleState& s, const BlockNode* block, const Inner& in, const std::vector<const ForNode*>& loops) {
  Stmt init_body = substitute(block->init, in.vmap);
  auto init_block = std::make_shared<BlockNode>();
  init_block->name = block->name + "_init";
  init_block->sid = s.fresh_sid();
  std::unordered_map<const VarNode*, PrimExpr> rename;
  std::vector<PrimExpr> values;
  for (size_t i = 0; i < in.block->iter_vars.size(); ++i) {
    const IterVar& iv = in.block->iter_vars[i];
    bool used = false;
    for_each_expr(init_body, [&](const PrimExpr& e) { used |= e.get() == iv.var.get(); });
    if (iv.type != IterType::DataPar || !used) continue;
    Var v = make_var(iv.var->name + "_init", iv.var->dtype);
    init_block->iter_vars.push_back(IterVar{v, iv.dom, IterType::DataPar});
    values.push_back(in.values[i]);
    rename[iv.var.get()] = v;
  }
  std::unordered_map<const VarNode*, PrimExpr> loop_copy;
  std::vector<const ForNode*> init_loops;
  for (const ForNode* f : loops) {
    bool used = false;
    for (const auto& value : values) used |= uses_var(value, [&](const VarNode* v) { return v == f->loop_var.get(); });
    if (!used) continue;
    init_loops.push_back(f);
    loop_copy[f->loop_var.get()] = make_var(f->loop_var->name, f->loop_var->dtype);
  }
  for (auto& value : values) value = substitute(value, loop_copy);
  init_block->body = substitute(init_body, rename);
  init_block->writes = in.block->writes;
  for (auto& w : init_block->writes) {
    for (auto& range : w.region) range.min = substitute(range.min, rename);
  }
  std::vector<LoopSpec> specs;
  for (const ForNode* l : init_loops) {
    specs.push_back({std::static_pointer_cast<const VarNode>(loop_copy.at(l->loop_var.get())), l->min, l->extent});
  }
  return make_loop_nest(s, specs, std::make_shared<BlockRealizeNode>(values, make_bool(true), init_block));
}

}  // namespace

BlockSid blockize(ScheduleState& s, LoopSid loop_sid, bool preserve_unit_iters) {
  // Step 1. Check: one block under the loop, affine bindings that divide into outer/inner.
  std::vector<BlockSid> blocks;
  for (BlockSid b : s.blocks_in(s.info(loop_sid)->func)) {
    std::vector<LoopSid> loops = s.enclosing_loops(b);
    if (std::find(loops.begin(), loops.end(), loop_sid) != loops.end() && s.scope_block(b) == s.scope_block(loop_sid))
      blocks.push_back(b);
  }
  if (blocks.size() != 1) {
    fail_not_supported(
        s, {loop_sid},
        fmt::format("blockize of a loop {{0}} holding {} blocks (exactly one is supported)", blocks.size()));
  }
  BlockSid block_sid = blocks[0];
  const BlockNode* block = &s.block_at(block_sid);
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  size_t first_inner = static_cast<size_t>(std::find(loops.begin(), loops.end(), loop_sid) - loops.begin());
  Subspace sub = divide(s, block_sid, first_inner, preserve_unit_iters);

  // Step 2. The outer block "X_o" around the rewritten block and its loops.
  Outer outer;
  Inner in = derive(s, block_sid, block, sub, preserve_unit_iters, outer);
  outer.block->name = block->name + "_o";
  outer.block->sid = s.fresh_sid();
  outer.block->reads = relax(s, block_sid, in.block->reads, in.dom);
  outer.block->writes = relax(s, block_sid, in.block->writes, in.dom);
  if (block->init) {
    outer.block->init = outer_init(s, block, in, sub.inner_loops);
    // The outer block initializes what it writes, so those are not reads (as in the parser).
    std::vector<BufferRegion> kept;
    for (const auto& r : outer.block->reads) {
      bool written = false;
      for (const auto& w : outer.block->writes) written |= w.buffer == r.buffer;
      if (!written) kept.push_back(r);
    }
    outer.block->reads = kept;
  }
  outer.block->body = in.nest;
  s.replace(loop_sid, std::make_shared<BlockRealizeNode>(outer.values, sub.outer_predicate, outer.block));
  return sid_of(*outer.block);
}

namespace {

// TVM's NoBlockError and BlockMultiAppearanceError.
void check_block_list(const ScheduleState& s, const std::vector<BlockSid>& block_sids) {
  if (block_sids.empty()) fail(s, kNoBlockError, {});
  std::unordered_set<BlockSid> targets(block_sids.begin(), block_sids.end());
  if (targets.size() == block_sids.size()) return;
  for (size_t i = 0; i < block_sids.size(); ++i) {
    if (std::count(block_sids.begin(), block_sids.begin() + i, block_sids[i]))
      fail(s, kBlockMultiAppearanceError, {block_sids[i]});
  }
}

// The blocks' lowest common ancestor: their innermost common loop, else their scope block,
// and the sequence of its body whose children hold the blocks (null: the body is one child).
struct CommonAncestor {
  BlockSid scope;
  std::vector<LoopSid> common;  // the common loops, outermost first
  StmtSid lca;
  Stmt body;
  const SeqStmtNode* seq = nullptr;
};

// TVM's BlocksNotInSameScopeError, then the lowest common ancestor.
CommonAncestor common_ancestor(const ScheduleState& s, const std::vector<BlockSid>& block_sids) {
  CommonAncestor out;
  out.scope = s.scope_block(block_sids[0]);
  out.common = s.enclosing_loops(block_sids[0]);
  for (BlockSid b : block_sids) {
    if (s.scope_block(b) != out.scope) fail(s, kBlocksNotInSameScopeError, {block_sids[0], b});
    std::vector<LoopSid> loops = s.enclosing_loops(b);
    size_t n = 0;
    while (n < out.common.size() && n < loops.size() && out.common[n] == loops[n]) ++n;
    out.common.resize(n);
  }
  out.lca = out.common.empty() ? StmtSid(out.scope) : StmtSid(out.common.back());
  // A scope's body is looked at under its leading AllocateConst / DeclBuffer statements.
  out.body = out.common.empty() ? peel_decls(s.block_at(out.scope).body).inner : s.loop_at(out.common.back()).body;
  out.seq = as<SeqStmtNode>(out.body);
  return out;
}

// Which child of the ancestor's sequence holds block `b`.
size_t child_of(const ScheduleState& s, const CommonAncestor& at, BlockSid b) {
  StmtSid node = b;
  while (s.info(node)->parent != at.lca) node = s.info(node)->parent;
  if (!at.seq) return 0;
  for (size_t i = 0; i < at.seq->seq.size(); ++i) {
    const StmtNode* child = at.seq->seq[i].get();
    if (auto* r = as<BlockRealizeNode>(at.seq->seq[i])) child = r->block.get();
    if (child == s.info(node)->node) return i;
  }
  internal_fail(__FILE__, __LINE__, "blockize: a block is not under its common ancestor's sequence");
}

// TVM's BlocksNotConsecutiveError: the children holding the blocks are consecutive. Returns
// them, sorted.
std::vector<size_t> check_consecutive(const ScheduleState& s, const CommonAncestor& at,
                                      const std::vector<BlockSid>& block_sids) {
  std::vector<size_t> sorted;
  for (BlockSid b : block_sids) sorted.push_back(child_of(s, at, b));
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (sorted.back() - sorted.front() + 1 != sorted.size()) fail(s, kBlocksNotConsecutiveError, stmt_sids(block_sids));
  return sorted;
}

// The children to blockize hold no block of the scope that is not listed.
void check_no_unlisted_block(const ScheduleState& s, const CommonAncestor& at, const std::vector<BlockSid>& block_sids,
                             const std::vector<size_t>& children) {
  std::unordered_set<BlockSid> targets(block_sids.begin(), block_sids.end());
  for (BlockSid b : s.blocks_in(s.info(block_sids[0])->func)) {
    if (targets.count(b) || s.scope_block(b) != at.scope) continue;
    std::vector<LoopSid> loops = s.enclosing_loops(b);
    bool under_lca = at.common.empty() || std::find(loops.begin(), loops.end(), at.lca) != loops.end();
    if (under_lca && std::find(children.begin(), children.end(), child_of(s, at, b)) != children.end()) {
      fail(s, kUnlistedBlockError, {b});
    }
  }
}

// A listed reduction block keeps its init: the reduction stays whole inside the inner block
// (TVM drops the init here, which would change the result).
void keep_init(const ScheduleState& s, BlockSid b, const BlockNode* block, const Subspace& sub, const Outer& outer,
               Inner& in) {
  for (size_t i = 0; i < sub.parts.size(); ++i) {
    if (sub.parts[i].outer_extent > 1 && block->iter_vars[i].type == IterType::CommReduce) {
      fail_not_supported(s, {b},
                         "blockize of a block list where block {0} reduces over loops outside the new outer block");
    }
  }
  auto with_init = std::make_shared<BlockNode>(*in.block);
  with_init->init = substitute(block->init, in.vmap);
  // With its init the block no longer reads what it accumulates into (derive() added those
  // regions in front, for an outer reduction iterator).
  bool outer_reduction = false;
  for (const auto& iv : outer.block->iter_vars) outer_reduction |= iv.type == IterType::CommReduce;
  if (outer_reduction)
    with_init->reads.erase(with_init->reads.begin(),
                           with_init->reads.begin() + static_cast<long>(with_init->writes.size()));
  in.block = with_init;
  in.nest =
      wrap_in_loops(std::make_shared<BlockRealizeNode>(in.values, sub.inner_predicate, with_init), sub.inner_loops);
}

// Step 2 for one listed block: divided at the loops below the ancestor into the shared outer
// iterators; its regions, relaxed over the inner ones, added to the outer block's.
Stmt divide_listed_block(const ScheduleState& s, BlockSid b, size_t first_inner, bool preserve_unit_iters,
                         Outer& outer) {
  const BlockNode* block = &s.block_at(b);
  Subspace sub = divide(s, b, first_inner, preserve_unit_iters);
  Inner in = derive(s, b, block, sub, preserve_unit_iters, outer);
  if (block->init) keep_init(s, b, block, sub, outer, in);
  if (!is_one(sub.outer_predicate)) {
    fail_not_supported(s, {b}, "blockize of a block list whose block {0} has a T.where over the outer loops");
  }
  arith::VarDomain outer_dom;
  for (const auto& iv : outer.block->iter_vars) {
    outer_dom[iv.var.get()] = arith::Interval{
        iv.dom.min, arith::simplify(ir::sub(add(iv.dom.min, iv.dom.extent), make_int(1, iv.dom.extent->dtype)))};
  }
  unite(outer.block->reads, relax(s, b, in.block->reads, in.dom), outer_dom);
  unite(outer.block->writes, relax(s, b, in.block->writes, in.dom), outer_dom);
  outer.block->name += block->name + "_";
  return in.nest;
}

// Step 3: the outer block replaces the ancestor's children `children` (all of its body when
// that is one child).
void replace_children(ScheduleState& s, const CommonAncestor& at, const std::vector<size_t>& children,
                      const Stmt& blockized) {
  std::vector<Stmt> items;
  if (at.seq) {
    for (size_t i = 0; i < at.seq->seq.size(); ++i) {
      if (i == children.front()) items.push_back(blockized);
      if (i < children.front() || i > children.back()) items.push_back(at.seq->seq[i]);
    }
  } else {
    items.push_back(blockized);
  }
  Stmt new_body = make_seq(items);
  if (at.common.empty()) {
    auto block = std::make_shared<BlockNode>(s.block_at(at.scope));
    block->body = rewrap(peel_decls(block->body).wrappers, new_body);
    const BlockRealizeNode* r = s.info(at.scope)->realize;
    if (r) {
      s.replace(at.scope, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, block));
    } else {
      s.replace(at.scope, std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), block));
    }
  } else {
    auto loop = std::make_shared<ForNode>(s.loop_at(at.common.back()));
    loop->body = new_body;
    s.replace(at.lca, loop);
  }
}

}  // namespace

BlockSid blockize_blocks(ScheduleState& s, const std::vector<BlockSid>& block_sids, bool preserve_unit_iters) {
  // Step 1. Check: blocks of one scope whose subtrees are consecutive children of their
  // lowest common ancestor, each subtree holding only target blocks.
  check_block_list(s, block_sids);
  CommonAncestor at = common_ancestor(s, block_sids);
  std::vector<size_t> children = check_consecutive(s, at, block_sids);
  check_no_unlisted_block(s, at, block_sids, children);
  // Step 2. Each block divides at the loops below the ancestor; all share the outer iterators.
  Outer outer;
  outer.block->name = "outer_";
  std::vector<std::pair<size_t, Stmt>> nests;
  for (BlockSid b : block_sids) {
    Stmt nest = divide_listed_block(s, b, at.common.size(), preserve_unit_iters, outer);
    nests.emplace_back(child_of(s, at, b), nest);
  }
  std::stable_sort(nests.begin(), nests.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<Stmt> body;
  for (auto& [index, nest] : nests) body.push_back(nest);
  outer.block->body = make_seq(body);
  outer.block->sid = s.fresh_sid();
  // Step 3. The outer block replaces those children of the ancestor's sequence.
  replace_children(s, at, children, std::make_shared<BlockRealizeNode>(outer.values, make_bool(true), outer.block));
  return sid_of(*outer.block);
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_blockize_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "Blockize", "blockize",
      {input("target", ParamType::Target), attr("preserve_unit_iters", ParamType::Bool, "True")}, OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        bool preserve = c.attrs[0].as_bool();
        if (c.inputs[0].kind == TraceArg::Kind::List) {
          // A list of blocks: their consecutive subtrees become one outer block.
          std::vector<BlockSid> blocks;
          for (const TraceArg& b : c.inputs[0].list) blocks.push_back(sch.block_sid(b));
          output_blocks(c, {blockize_blocks(sch.state(), blocks, preserve)});
        } else {
          output_blocks(c, {blockize(sch.state(), sch.loop_sid(c.inputs[0]), preserve)});
        }
      },
      "blockize(target, preserve_unit_iters=True) -> BlockRV: wrap the subtree under a loop (or the consecutive "
      "subtrees of a "
      "list of blocks) into an outer block X_o (outer_B_C_).",
      "a loop: exactly one block under it; a list of blocks: one scope, consecutive statements under their "
      "common loop or block, holding no other block, all dividing into the same outer iterators; bindings divide "
      "into outer and inner parts (inner loops only below outer ones)",
      "C under i_0, j_0, k_0, i_1, j_1, k_1; blockize(i_1)  ->  outer block C_o (vi_o, vj_o, vk_o) holding C; "
      "blockize([B, C])  ->  outer block outer_B_C_"));
}

}  // namespace tsch::schedule
