// blockize: wrap the subtree under a loop into an outer block "X_o" whose iterators `vi_o`
// are the parts of the bindings that come from the loops outside (TVM's Blockize). Each
// binding must split into outer * inner_extent + inner, where inner uses only the loops
// inside (subspace division, via the affine iteration maps of arith/iter_map.h).
// A reduction block's init moves to the outer block as a loop nest of "X_init".
//
//   for i_0, i_1 in T.grid(8, 16):                  for i_0 in range(8):
//     with T.block("C"): vi = i_0 * 16 + i_1   ─▶     with T.block("C_o"): vi_o = i_0
//                                                        for i_1 in range(16):
//                                                          with T.block("C"): vi_i = i_1
#include <fmt/format.h>

#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

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

}  // namespace

uint64_t blockize(ScheduleState& s, uint64_t loop_sid, bool preserve_unit_iters) {
  // Step 1. Check: one block under the loop, affine bindings that divide into outer/inner.
  std::vector<uint64_t> blocks;
  for (uint64_t b : s.blocks_in(s.info(loop_sid)->func)) {
    std::vector<uint64_t> loops = s.enclosing_loops(b);
    if (std::find(loops.begin(), loops.end(), loop_sid) != loops.end() && s.scope_block(b) == s.scope_block(loop_sid)) blocks.push_back(b);
  }
  if (blocks.size() != 1) {
    fail("blockize", {loop_sid}, fmt::format("not supported yet: blockize of a loop holding {} blocks (exactly one is supported)", blocks.size()));
  }
  uint64_t block_sid = blocks[0];
  const BlockNode* block = s.block(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::vector<uint64_t> all = s.enclosing_loops(block_sid);
  std::unordered_set<const VarNode*> inner_vars;
  bool inside = false;
  arith::LoopExtents extents;
  std::unordered_map<const VarNode*, const ForNode*> loop_of;
  std::vector<const ForNode*> inner_loops;
  for (uint64_t l : all) {
    const ForNode* f = s.loop(l);
    if (l == loop_sid) inside = true;
    int64_t e;
    if (!is_zero(f->min) || !as_const_int(f->extent, &e)) {
      fail("blockize", {l}, "not supported yet: blockize over loops that do not start at 0 or have symbolic extents");
    }
    extents[f->loop_var.get()] = e;
    loop_of[f->loop_var.get()] = f;
    if (inside) {
      inner_vars.insert(f->loop_var.get());
      inner_loops.push_back(f);
    }
  }
  // A T.where predicate goes with the loops it tests: over outer loops only it guards the
  // outer block, over inner loops only it stays on the inner block.
  PrimExpr outer_predicate = make_bool(true), inner_predicate = make_bool(true);
  if (!is_one(realize->predicate)) {
    bool uses_inner = uses_var(realize->predicate, [&](const VarNode* v) { return inner_vars.count(v) > 0; });
    bool uses_outer = uses_var(realize->predicate, [&](const VarNode* v) { return extents.count(v) > 0 && inner_vars.count(v) == 0; });
    if (uses_inner && uses_outer) {
      fail("blockize", {block_sid},
           "The bindings of the inner block can not be blockized: the predicate " + ir::script(realize->predicate) +
               " tests both loops inside and outside the blockized loop");
    }
    if (uses_inner && block->init) {
      fail("blockize", {block_sid}, "not supported yet: blockize of a reduction block whose predicate tests the inner loops");
    }
    (uses_inner ? inner_predicate : outer_predicate) = realize->predicate;
  }
  arith::IterMapResult map = arith::detect_iter_map(realize->iter_values, extents, false);
  if (!map.ok) fail("blockize", {block_sid}, "The bindings of the inner block can not be blockized: a binding " + map.error);
  struct Division {
    PrimExpr outer, inner;
    int64_t outer_extent, inner_extent;
  };
  std::vector<Division> division;
  for (size_t i = 0; i < map.sums.size(); ++i) {
    const arith::IterSum& sum = map.sums[i];
    DataType t = realize->iter_values[i]->dtype;
    Division d{make_int(0, t), make_int(0, t), 1, 1};
    // Terms collected innermost first, summed outermost first (`i_0 * 16 + i_1`).
    std::vector<PrimExpr> outer_terms, inner_terms;
    bool seen_outer = false;
    for (const auto& split : sum.splits) {  // innermost digit first
      bool is_inner = inner_vars.count(split.source) > 0;
      if (is_inner && seen_outer) {
        fail("blockize", {block_sid},
             "The bindings of the inner block can not be blockized: binding " + ir::script(realize->iter_values[i]) +
                 " mixes inner loops above outer ones");
      }
      PrimExpr value = split_value(split, loop_of.at(split.source));
      if (is_inner) {
        inner_terms.push_back(mul(value, make_int(split.scale, t)));
        d.inner_extent *= split.extent;
      } else {
        seen_outer = true;
        outer_terms.push_back(mul(value, make_int(split.scale / d.inner_extent, t)));
        d.outer_extent *= split.extent;
      }
    }
    for (size_t k = outer_terms.size(); k-- > 0;) d.outer = is_zero(d.outer) ? outer_terms[k] : add(d.outer, outer_terms[k]);
    for (size_t k = inner_terms.size(); k-- > 0;) d.inner = is_zero(d.inner) ? inner_terms[k] : add(d.inner, inner_terms[k]);
    // An imperfect split covers more than the iterator's domain; the outer iterator only
    // needs to reach the blocks that exist.
    int64_t dom_extent;
    if (as_const_int(block->iter_vars[i].dom.extent, &dom_extent)) {
      d.outer_extent = std::min(d.outer_extent, (dom_extent + d.inner_extent - 1) / d.inner_extent);
    }
    if (sum.base % d.inner_extent != 0) fail("blockize", {block_sid}, "The bindings of the inner block can not be blockized: offset binding");
    d.outer = arith::simplify(add(d.outer, make_int(sum.base / d.inner_extent, t)));
    d.inner = arith::simplify(d.inner);
    division.push_back(d);
  }

  // Step 2. The outer and inner iterators; the inner block sees v = v_o * inner + v_i.
  auto outer_block = std::make_shared<BlockNode>();
  outer_block->name = block->name + "_o";
  outer_block->sid = s.fresh_sid();
  std::vector<PrimExpr> outer_values, inner_values;
  std::vector<IterVar> inner_iters;
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  arith::VarDomain inner_dom;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    const Division& d = division[i];
    DataType t = iv.var->dtype;
    PrimExpr outer_part = make_int(0, t);
    if (d.outer_extent > 1 || preserve_unit_iters) {
      Var vo = make_var(iv.var->name + "_o", t);
      outer_block->iter_vars.push_back(IterVar{vo, Range{make_int(0, t), make_int(d.outer_extent, t)}, iv.type});
      outer_values.push_back(d.outer);
      outer_part = mul(vo, make_int(d.inner_extent, t));
    }
    Var vi = make_var(iv.var->name + "_i", t);
    inner_iters.push_back(IterVar{vi, Range{make_int(0, t), make_int(d.inner_extent, t)}, iv.type});
    inner_values.push_back(d.inner);
    vmap[iv.var.get()] = arith::simplify(add(outer_part, vi));
    inner_dom[vi.get()] = arith::Interval{make_int(0, t), make_int(d.inner_extent - 1, t)};
  }
  auto inner_block = std::make_shared<BlockNode>(*block);
  inner_block->iter_vars = inner_iters;
  inner_block->body = substitute(block->body, vmap);
  inner_block->init = nullptr;
  auto map_regions = [&](const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const auto& r : regions) {
      BufferRegion m{r.buffer, {}};
      for (const auto& range : r.region) m.region.push_back(Range{substitute(range.min, vmap), range.extent});
      out.push_back(m);
    }
    return out;
  };
  if (block->init) {
    // Without its init the inner block also reads what it accumulates into.
    arith::AccessRegions regions = arith::infer_access_regions(inner_block->body, nullptr);
    inner_block->reads = regions.reads;
    inner_block->writes = regions.writes;
  } else {
    inner_block->reads = map_regions(block->reads);
    inner_block->writes = map_regions(block->writes);
  }
  // The outer block accesses what the inner block does over all inner iterations.
  auto relax = [&](const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const auto& r : regions) {
      BufferRegion m{r.buffer, {}};
      for (const auto& range : r.region) {
        arith::Interval lo = arith::eval_interval(range.min, inner_dom);
        arith::Interval hi = arith::eval_interval(arith::simplify(sub(add(range.min, range.extent), make_int(1, range.extent->dtype))), inner_dom);
        if (!lo.min || !hi.min) fail("blockize", {block_sid}, "the region of buffer " + r.buffer->name + " cannot be bounded");
        m.region.push_back(arith::range_of(arith::Interval{lo.min, hi.max}));
      }
      out.push_back(m);
    }
    return out;
  };
  outer_block->writes = relax(inner_block->writes);
  outer_block->reads = relax(inner_block->reads);
  if (block->init) {
    // The outer block initializes what it writes, so those are not reads (as in the parser).
    std::vector<BufferRegion> kept;
    for (const auto& r : outer_block->reads) {
      bool written = false;
      for (const auto& w : outer_block->writes) written |= w.buffer == r.buffer;
      if (!written) kept.push_back(r);
    }
    outer_block->reads = kept;
  }
  // Step 3. A reduction's init becomes the outer block's init: a nest of "X_init" over the
  // inner loops that feed spatial iterators.
  if (block->init) {
    auto init_block = std::make_shared<BlockNode>();
    init_block->name = block->name + "_init";
    init_block->sid = s.fresh_sid();
    std::unordered_map<const VarNode*, PrimExpr> init_vmap = vmap;
    std::unordered_map<const VarNode*, PrimExpr> loop_copy;
    std::vector<PrimExpr> init_values;
    std::vector<const ForNode*> init_loops;
    for (const ForNode* f : inner_loops) {
      bool used = false;
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        if (block->iter_vars[i].type == IterType::DataPar) {
          used |= uses_var(inner_values[i], [&](const VarNode* v) { return v == f->loop_var.get(); });
        }
      }
      if (!used) continue;
      init_loops.push_back(f);
      loop_copy[f->loop_var.get()] = make_var(f->loop_var->name, f->loop_var->dtype);
    }
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const IterVar& iv = block->iter_vars[i];
      if (iv.type != IterType::DataPar) continue;
      Var v = make_var(inner_iters[i].var->name + "_init", iv.var->dtype);
      init_block->iter_vars.push_back(IterVar{v, inner_iters[i].dom, IterType::DataPar});
      init_values.push_back(substitute(inner_values[i], loop_copy));
      init_vmap[iv.var.get()] = substitute(vmap.at(iv.var.get()), {{inner_iters[i].var.get(), v}});
    }
    init_block->body = substitute(block->init, init_vmap);
    arith::AccessRegions regions = arith::infer_access_regions(init_block->body, nullptr);
    init_block->reads = regions.reads;
    init_block->writes = regions.writes;
    Stmt init = std::make_shared<BlockRealizeNode>(init_values, make_bool(true), init_block);
    for (size_t k = init_loops.size(); k-- > 0;) {
      auto f = std::make_shared<ForNode>(std::static_pointer_cast<const VarNode>(loop_copy.at(init_loops[k]->loop_var.get())),
                                         init_loops[k]->min, init_loops[k]->extent, ForKind::Serial, init);
      f->sid = s.fresh_sid();
      init = f;
    }
    outer_block->init = init;
  }
  // Step 4. Rewrite: the inner loops (keeping their identities) around the inner block form
  // the outer block's body, which replaces the loop.
  Stmt body = std::make_shared<BlockRealizeNode>(inner_values, inner_predicate, inner_block);
  for (size_t k = inner_loops.size(); k-- > 0;) {
    auto copy = std::make_shared<ForNode>(*inner_loops[k]);
    copy->body = body;
    body = copy;
  }
  outer_block->body = body;
  s.replace(loop_sid, std::make_shared<BlockRealizeNode>(outer_values, outer_predicate, outer_block));
  return outer_block->sid;
}

}  // namespace tsch::schedule
