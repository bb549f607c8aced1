// decompose_padding: a padding block `Y[v] = T.if_then_else(in_bounds(v), X[f(v)], pad)` split
// in two (TVM's DecomposePadding): `Y_pad_const` fills the whole region with the constant
// before `loop`, and the block itself then writes only the in-bound part, its iterators
// narrowed to the in-bound region (a loop bound to one of them directly narrows with it).
// can_decompose_padding asks the same without changing anything.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kPaddingPatternMatchError, "PaddingPatternMatchError",
                         "decompose_padding expect the block to match padding pattern",
                         "ScheduleError: decompose_padding expect the block {0} to match padding pattern");

[[noreturn]] void fail_pattern(const ScheduleState& s, BlockSid block, const std::string& why) {
  fail(s, kPaddingPatternMatchError, {block},
       "ScheduleError: decompose_padding expect the block {0} to match padding pattern\n  " + why,
       "decompose_padding expect the block to match padding pattern\n  " + why);
}

// Calls that change state or read more than memory (TVM's side effects above kReadState).
bool has_side_effect(const PrimExpr& e) {
  bool found = false;
  for_each_expr(e, [&](const PrimExpr& x) {
    auto* call = as<CallNode>(x);
    if (!call) return;
    const std::string& op = call->op;
    if (op == "call_extern" || op == "call_packed" || op == "tvm_call_packed" || op == "call_cpacked" ||
        op == "call_llvm_intrin" || op == "tvm_storage_sync" || op == "assume" || op.rfind("ptx_", 0) == 0 ||
        op.rfind("tvm_", 0) == 0)
      found = true;
  });
  return found;
}

PrimExpr drop_likely(const PrimExpr& e) {
  if (auto* call = as<CallNode>(e); call && call->op == "likely" && call->args.size() == 1) return call->args[0];
  return e;
}

// The and-chain of `pred`'s terms, each simplified under `dom`, without those it proves;
// true when none is left.
PrimExpr simplify_predicate(const PrimExpr& pred, const arith::VarDomain& dom) {
  PrimExpr out;
  for (const PrimExpr& c : conjuncts(pred)) {
    PrimExpr t = arith::simplify(c, dom);
    int64_t v;
    if ((as_const_int(t, &v) && v != 0) || arith::can_prove(t, dom)) continue;
    out = out ? make_binary(ExprKind::And, out, t) : t;
  }
  return out ? out : make_bool(true);
}

// What the analysis finds: per block iterator, the in-bound region [min, min + extent).
struct PaddingInfo {
  std::vector<int64_t> region_min, region_extent;
  PrimExpr in_bound_value, in_bound_predicate, pad_value;
};

// Steps 1-2: `Y[...] = T.if_then_else(predicate, value, constant)`, the value free of side
// effects. Returns the if_then_else.
const CallNode& match_padding_store(const ScheduleState& s, BlockSid block_sid) {
  auto* store = as<BufferStoreNode>(s.block_at(block_sid).body);
  if (!store) fail_pattern(s, block_sid, "Block body expect a BufferStore to the write buffer");
  auto* ite = as<CallNode>(store->value);
  if (!ite || ite->op != "if_then_else" || ite->args.size() != 3)
    fail_pattern(s, block_sid, "Value of BufferStore expect to be constrained by a padding predicate");
  if (ite->args[2]->kind != ExprKind::IntImm && ite->args[2]->kind != ExprKind::FloatImm)
    fail_pattern(s, block_sid, "Pad value should be constant");
  if (has_side_effect(ite->args[1])) fail_pattern(s, block_sid, "Inbound computation should not have side-effect");
  return *ite;
}

// Step 3: the in-bound predicate over the loops — the padding condition with the bindings
// substituted, and the block's own predicate; `T.likely` dropped (TVM's RewritePredicate).
PrimExpr in_bound_predicate(const ScheduleState& s, BlockSid block_sid, const PrimExpr& condition,
                            const arith::VarDomain& dom) {
  const BlockNode& block = s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) bind[block.iter_vars[i].var.get()] = realize->iter_values[i];
  std::vector<PrimExpr> terms;
  for (const PrimExpr& c : conjuncts(substitute(condition, bind))) terms.push_back(drop_likely(c));
  for (const PrimExpr& c : conjuncts(realize->predicate)) terms.push_back(drop_likely(c));
  PrimExpr pred;
  for (const PrimExpr& t : terms) pred = pred ? make_binary(ExprKind::And, pred, t) : t;
  pred = simplify_predicate(pred, dom);
  int64_t truth;
  if (as_const_int(pred, &truth) && truth != 0) fail_pattern(s, block_sid, "The in-bound predicate is trivial");
  return pred;
}

const char* const kNotIndependent = "Block iters are not independent wrt padding condition";

// The bounds the predicate's terms put on each binding [lo, hi): every term bounds one
// binding, a constant apart.
struct BindingBounds {
  std::vector<std::optional<int64_t>> lo, hi;
};

BindingBounds binding_bounds(const ScheduleState& s, BlockSid block_sid, const PrimExpr& pred) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  size_t n = realize->iter_values.size();
  BindingBounds out{std::vector<std::optional<int64_t>>(n), std::vector<std::optional<int64_t>>(n)};
  for (const PrimExpr& t : conjuncts(pred)) {
    std::optional<PredicateBound> b = comparison_bound(drop_likely(t));
    if (!b) fail_pattern(s, block_sid, kNotIndependent);
    bool matched = false;
    for (size_t i = 0; i < n && !matched; ++i) {
      const PrimExpr& value = realize->iter_values[i];
      if (!uses_var(value, [](const VarNode*) { return true; })) continue;
      int64_t shift;
      if (!as_const_int(arith::simplify(sub(b->expr, value)), &shift)) continue;
      // expr = value + shift: value >= lo - shift, value < hi - shift.
      if (b->lo) out.lo[i] = std::max(out.lo[i].value_or(INT64_MIN), *b->lo - shift);
      if (b->hi) out.hi[i] = std::min(out.hi[i].value_or(INT64_MAX), *b->hi - shift);
      matched = true;
    }
    if (!matched) fail_pattern(s, block_sid, kNotIndependent);
  }
  return out;
}

// A bounded binding steps by 1 over its loops: the in-bound region [lo, hi) narrowed to
// where its loops take it and to the predicate's bounds.
void narrow_to_bounds(const ScheduleState& s, BlockSid block_sid, const PrimExpr& value, const arith::VarDomain& dom,
                      std::optional<int64_t> lo, std::optional<int64_t> hi, int64_t& region_lo, int64_t& region_hi) {
  LinearForm lin;
  if (!linear_form(arith::simplify(value), 1, lin)) fail_pattern(s, block_sid, kNotIndependent);
  int64_t step = INT64_MAX;
  for (const auto& [v, coeff] : lin.terms) {
    if (coeff <= 0) fail_pattern(s, block_sid, "Strided iteration is not supported");
    step = std::min(step, coeff);
  }
  if (step != 1) fail_pattern(s, block_sid, "Strided iteration is not supported");
  arith::Interval own = arith::eval_interval(value, dom);
  int64_t own_lo, own_hi;
  if (own.min && own.max && as_const_int(arith::simplify(own.min), &own_lo) &&
      as_const_int(arith::simplify(own.max), &own_hi)) {
    region_lo = std::max(region_lo, own_lo);
    region_hi = std::min(region_hi, own_hi + 1);
  }
  if (lo) region_lo = std::max(region_lo, *lo);
  if (hi) region_hi = std::min(region_hi, *hi);
}

// The loops of `dom` from 0 with a constant extent, as detect_iter_map takes them.
arith::LoopExtents constant_extents(const arith::VarDomain& dom) {
  arith::LoopExtents extents;
  for (const auto& [var, range] : dom) {
    int64_t lo_v, hi_v;
    if (range.min && range.max && as_const_int(range.min, &lo_v) && lo_v == 0 && as_const_int(range.max, &hi_v))
      extents[var] = hi_v + 1;
  }
  return extents;
}

// Step 4: the in-bound region of each iterator (TVM's DetectIterMap under the predicate):
// bindings use disjoint loops; an unbounded binding is an affine map of its loops, a bounded
// one steps by 1.
void in_bound_region(const ScheduleState& s, BlockSid block_sid, const arith::VarDomain& dom, PaddingInfo& info) {
  const BlockNode& block = s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  BindingBounds bounds = binding_bounds(s, block_sid, info.in_bound_predicate);
  std::unordered_set<const VarNode*> used_loops;
  std::vector<PrimExpr> unbounded;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) {
    const PrimExpr& value = realize->iter_values[i];
    bool independent = true;
    for_each_expr(value, [&](const PrimExpr& x) {
      if (auto* v = as<VarNode>(x); v && dom.count(v) && !used_loops.insert(v).second) independent = false;
    });
    if (!independent) fail_pattern(s, block_sid, kNotIndependent);
    const Range& iter_dom = block.iter_vars[i].dom;
    int64_t dom_min, dom_extent;
    if (!as_const_int(iter_dom.min, &dom_min) || !as_const_int(iter_dom.extent, &dom_extent))
      fail_not_supported(s, {block_sid}, "decompose_padding of a block with a symbolic iterator domain");
    int64_t region_lo = dom_min, region_hi = dom_min + dom_extent;
    if (bounds.lo[i] || bounds.hi[i]) {
      narrow_to_bounds(s, block_sid, value, dom, bounds.lo[i], bounds.hi[i], region_lo, region_hi);
    } else if (uses_var(value, [](const VarNode*) { return true; })) {
      unbounded.push_back(value);
    }
    if (region_hi <= region_lo)
      fail_not_supported(s, {block_sid}, "decompose_padding of a block whose in-bound region is empty");
    info.region_min.push_back(region_lo);
    info.region_extent.push_back(region_hi - region_lo);
  }
  if (!unbounded.empty() && !arith::detect_iter_map(unbounded, constant_extents(dom), /*require_bijective=*/false).ok)
    fail_pattern(s, block_sid, kNotIndependent);
}

PaddingInfo analyze_padding(const ScheduleState& s, BlockSid block_sid, const arith::VarDomain& dom) {
  const CallNode& ite = match_padding_store(s, block_sid);
  PaddingInfo info;
  info.in_bound_value = ite.args[1];
  info.pad_value = ite.args[2];
  info.in_bound_predicate = in_bound_predicate(s, block_sid, ite.args[0], dom);
  in_bound_region(s, block_sid, dom, info);
  return info;
}

// Each store index is one iterator plus a constant, or a constant, every iterator at most
// once: then no two instances write the same element, and filling the pad value first
// cannot overwrite an in-bound value another instance wrote (tsch's guard; TVM assumes it).
bool writes_each_element_once(const BlockNode& block, const BufferStoreNode& store) {
  std::unordered_set<const VarNode*> seen;
  for (const PrimExpr& index : store.indices) {
    LinearForm lin;
    if (!linear_form(index, 1, lin)) return false;
    if (lin.terms.empty()) continue;
    if (lin.terms.size() != 1 || lin.terms[0].second != 1 || !seen.insert(lin.terms[0].first).second) return false;
  }
  for (const IterVar& iv : block.iter_vars) {
    if (!seen.count(iv.var.get()) && !is_one(iv.dom.extent)) return false;
  }
  return true;
}

// Check 2: `loop` encloses the block (TVM's LoopPositionError). Returns the block's loops,
// outermost first.
std::vector<LoopSid> check_loop_encloses(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid) {
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  if (std::find(loops.begin(), loops.end(), loop_sid) == loops.end()) {
    fail(s, kLoopPositionError, {loop_sid, block_sid},
         "ScheduleError: The input loop {0} of decompose_padding is required to be an ancestor of block {1}.",
         "decompose_padding expect the loop to be an ancestor of block");
  }
  return loops;
}

// The root of the in-bound nest: the loops from the block up while each holds only the next,
// at most up to `loop` (TVM stops at `loop` even when it holds more, dropping its other
// children; tsch does not). 0: the block alone (its loop holds other statements too).
LoopSid in_bound_root(const ScheduleState& s, const std::vector<LoopSid>& loops, LoopSid loop_sid) {
  LoopSid root;
  for (size_t k = loops.size(); k-- > 0;) {
    StmtKind body = s.loop_at(loops[k]).body->kind;
    if (body != StmtKind::For && body != StmtKind::BlockRealize) break;
    root = loops[k];
    if (loops[k] == loop_sid) break;
  }
  return root;
}

// The constant part: the block's iterators over their domains, under copies of the loops
// from `loop` down, writing the pad value; named X_pad_const. Sets `const_sid` to its sid.
Stmt pad_const_nest(ScheduleState& s, BlockSid block_sid, const std::vector<LoopSid>& const_loops,
                    const PaddingInfo& info, const arith::VarDomain& dom, BlockSid& const_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  auto* store = as<BufferStoreNode>(block->body);
  std::unordered_map<const VarNode*, PrimExpr> const_map;
  auto const_block = std::make_shared<BlockNode>();
  const_block->name = block->name + "_pad_const";
  const_block->sid = s.fresh_sid();
  const_sid = sid_of(*const_block);
  for (const IterVar& iv : block->iter_vars) {
    Var v = make_var(iv.var->name, iv.var->dtype);
    const_map[iv.var.get()] = v;
    const_block->iter_vars.push_back(IterVar{v, iv.dom, IterType::DataPar});
  }
  std::vector<LoopSpec> const_specs;
  for (LoopSid l : const_loops) {
    const ForNode& f = s.loop_at(l);
    Var v = make_var(f.loop_var->name, f.loop_var->dtype);
    const_map[f.loop_var.get()] = v;
    const_specs.push_back(LoopSpec{v, substitute(f.min, const_map), substitute(f.extent, const_map)});
  }
  // Simplified under the original loops' ranges: the copies' variables are new to it (TVM's
  // analyzer knows only the original loops, so a copied unit loop's variable stays).
  auto rewrite_const = [&](const PrimExpr& e) { return arith::simplify_folding_points(substitute(e, const_map), dom); };
  std::vector<PrimExpr> const_indices;
  for (const PrimExpr& i : store->indices) const_indices.push_back(rewrite_const(i));
  const_block->body =
      std::make_shared<BufferStoreNode>(store->buffer, cast(store->buffer->dtype, info.pad_value), const_indices);
  for (const BufferRegion& w : block->writes) {
    BufferRegion r{w.buffer, {}};
    for (const Range& range : w.region)
      r.region.push_back(Range{rewrite_const(range.min), rewrite_const(range.extent)});
    const_block->writes.push_back(r);
  }
  std::vector<PrimExpr> const_values;
  for (const PrimExpr& v : realize->iter_values) const_values.push_back(rewrite_const(v));
  PrimExpr const_pred = substitute(realize->predicate, const_map);
  return make_loop_nest(s, const_specs, std::make_shared<BlockRealizeNode>(const_values, const_pred, const_block));
}

// The in-bound block's iterators re-based to 0 and what replaces the old ones: iterator i
// over [0, extent_i) stands for min_i + it; a loop bound to it directly (among the
// single-child loops replaced) narrows to the same range instead.
struct InBoundIters {
  std::vector<IterVar> iter_vars;
  std::vector<PrimExpr> values;
  std::unordered_map<const VarNode*, PrimExpr> repl;
  std::unordered_map<LoopSid, int64_t> narrowed;  // loop sid -> new extent
  arith::VarDomain dom;
};

InBoundIters in_bound_iters(const ScheduleState& s, BlockSid block_sid, const std::vector<LoopSid>& in_bound_loops,
                            const PaddingInfo& info, const arith::VarDomain& dom) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::unordered_map<const VarNode*, LoopSid> replaced_loop;  // loop var -> sid
  for (LoopSid l : in_bound_loops) replaced_loop[s.loop_at(l).loop_var.get()] = l;
  InBoundIters out;
  out.dom = dom;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    DataType t = iv.var->dtype;
    Var v = make_var(iv.var->name, t);
    out.iter_vars.push_back(IterVar{v, Range{make_int(0, t), make_int(info.region_extent[i], t)}, IterType::DataPar});
    out.repl[iv.var.get()] = arith::simplify(add(v, make_int(info.region_min[i], t)));
    const PrimExpr& value = realize->iter_values[i];
    auto* loop_var = as<VarNode>(value);
    if (loop_var && replaced_loop.count(loop_var)) {
      out.narrowed[replaced_loop.at(loop_var)] = info.region_extent[i];
      out.values.push_back(value);
      out.repl[loop_var] = arith::simplify(add(value, make_int(info.region_min[i], value->dtype)));
      out.dom[loop_var] = arith::Interval{make_int(0, value->dtype), make_int(info.region_extent[i] - 1, value->dtype)};
    } else {
      out.values.push_back(arith::simplify_folding_points(sub(value, make_int(info.region_min[i], value->dtype)), dom));
    }
  }
  return out;
}

// The in-bound part: the block writing the in-bound value over the in-bound region, inside
// copies of the replaced loops (those bound to an iterator narrowed).
Stmt in_bound_nest(const ScheduleState& s, BlockSid block_sid, const std::vector<LoopSid>& in_bound_loops,
                   const PaddingInfo& info, const arith::VarDomain& dom) {
  const BlockNode* block = &s.block_at(block_sid);
  auto* store = as<BufferStoreNode>(block->body);
  InBoundIters iters = in_bound_iters(s, block_sid, in_bound_loops, info, dom);
  auto in_block = std::make_shared<BlockNode>(*block);
  in_block->iter_vars = iters.iter_vars;
  auto rewrite_in = [&](const PrimExpr& e) {
    return arith::simplify_folding_points(substitute(e, iters.repl), iters.dom);
  };
  auto rewrite_regions = [&](const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      BufferRegion n{r.buffer, {}};
      for (const Range& range : r.region) n.region.push_back(Range{rewrite_in(range.min), rewrite_in(range.extent)});
      out.push_back(n);
    }
    return out;
  };
  in_block->reads = rewrite_regions(block->reads);
  in_block->writes = rewrite_regions(block->writes);
  in_block->body = substitute_simplify(
      std::make_shared<BufferStoreNode>(store->buffer, info.in_bound_value, store->indices), iters.repl, iters.dom);
  PrimExpr in_pred = simplify_predicate(substitute(info.in_bound_predicate, iters.repl), iters.dom);
  Stmt nest = std::make_shared<BlockRealizeNode>(iters.values, in_pred, in_block);
  for (size_t k = in_bound_loops.size(); k-- > 0;) {
    auto copy = std::make_shared<ForNode>(s.loop_at(in_bound_loops[k]));
    if (auto it = iters.narrowed.find(in_bound_loops[k]); it != iters.narrowed.end()) {
      copy->min = make_int(0, copy->loop_var->dtype);
      copy->extent = make_int(it->second, copy->loop_var->dtype);
    }
    copy->body = nest;
    nest = copy;
  }
  return nest;
}

}  // namespace

BlockSid decompose_padding(ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, bool check_only) {
  const BlockNode* block = &s.block_at(block_sid);
  // Check 1. A complete block.
  check_complete_block(s, block_sid);
  // Check 2. `loop` encloses the block. The in-bound part replaces the loops from the block up
  // to the highest one with a single child (at most `loop`); the constant part goes before `loop`.
  std::vector<LoopSid> loops = check_loop_encloses(s, block_sid, loop_sid);  // outermost first
  std::vector<LoopSid> const_loops(std::find(loops.begin(), loops.end(), loop_sid), loops.end());
  LoopSid root = in_bound_root(s, loops, loop_sid);
  arith::VarDomain dom = loop_domain(s, block_sid);
  // Check 3. The padding pattern and its in-bound region.
  PaddingInfo info = analyze_padding(s, block_sid, dom);
  if (!writes_each_element_once(*block, *as<BufferStoreNode>(block->body)))
    fail_not_supported(s, {block_sid},
                       "decompose_padding of a block whose store indices are not its iterators plus constants");
  // The rewrite: the constant part before `loop`, the in-bound part in place of its nest.
  BlockSid const_sid;
  Stmt const_nest = pad_const_nest(s, block_sid, const_loops, info, dom, const_sid);
  std::vector<LoopSid> in_bound_loops;
  if (root) in_bound_loops.assign(std::find(loops.begin(), loops.end(), root), loops.end());
  Stmt in_nest = in_bound_nest(s, block_sid, in_bound_loops, info, dom);
  if (check_only) return block_sid;

  s.replace(root ? StmtSid(root) : StmtSid(block_sid), in_nest);
  std::shared_ptr<const ForNode> keep(std::make_shared<ForNode>(s.loop_at(loop_sid)));
  s.replace(loop_sid, make_seq({const_nest, keep}));
  return const_sid;
}

bool can_decompose_padding(ScheduleState& s, BlockSid block_sid, LoopSid loop_sid) {
  try {
    decompose_padding(s, block_sid, loop_sid, /*check_only=*/true);
  } catch (const ScheduleError&) {
    return false;
  }
  return true;
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_decompose_padding_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "DecomposePadding", "decompose_padding", {input("block", ParamType::Block), input("loop", ParamType::Loop)},
      OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        BlockSid block = sch.block_sid(c.inputs[0]);
        output_blocks(c, {decompose_padding(sch.state(), block, sch.loop_sid(c.inputs[1]))});
      },
      "decompose_padding(block, loop) -> BlockRV: split a padding block into X_pad_const, which fills the pad value "
      "before "
      "loop, and the block itself writing only the in-bound part.",
      "a complete block whose body is Y[...] = T.if_then_else(in-bound predicate, value, constant); the loop encloses "
      "it; "
      "each predicate term bounds one iterator's binding",
      "Y[i] = T.if_then_else(6 <= i and i < 134, X[i - 6], 0) over i in 140  ->  Y_pad_const: Y[i] = 0 over 140; "
      "Y: Y[i + 6] = X[i] over 128"));
}

}  // namespace tsch::schedule
