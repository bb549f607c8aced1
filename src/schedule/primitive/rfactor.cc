// rfactor: factorize a reduction along one of its loops (TVM's RFactor). The loop becomes a
// spatial dimension of a new buffer X_rf computed by block "B_rf"; block "B" then reduces
// X_rf along that dimension into X.
//
//   for i, k_0, k_1 in T.grid(128, 32, 4):        sch.rfactor(k_1, 0)
//     B: X[vi] += A[vi, k_0 * 4 + k_1]      ─▶    B_rf: X_rf[vk_1, vi] += A[vi, vk_0 * 4 + vk_1]
//                                                  B:    X[vi] += X_rf[vk_1, vi]
// Supported combiners: +, *, max, min with their identities as the init value.
#include <fmt/format.h>

#include <cmath>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"
#include "schedule/kind_registration.h"

namespace tsch::schedule {

using namespace ir;

namespace {

bool same_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && !(as<VarNode>(a[i]) && a[i].get() == b[i].get())) return false;
  }
  return true;
}

bool is_identity(ExprKind combiner, const PrimExpr& init) {
  double v;
  if (auto* i = as<IntImmNode>(init)) v = static_cast<double>(i->value);
  else if (auto* f = as<FloatImmNode>(init)) v = f->value;
  else return false;
  switch (combiner) {
    case ExprKind::Add: return v == 0;
    case ExprKind::Mul: return v == 1;
    case ExprKind::Max: return v <= -3.0e38 || (init->dtype.is_int() && v <= -2147483648.0);
    case ExprKind::Min: return v >= 3.0e38 || (init->dtype.is_int() && v >= 2147483647.0);
    default: return false;
  }
}

TSCH_SCHEDULE_ERROR_KIND(kNotSerialLoopKindError, "NotSerialLoopKindError", "The input loop of rfactor is required to be `kSerial`",
                         "ScheduleError: The input loop {0} of rfactor is required to be `Serial`.");
TSCH_SCHEDULE_ERROR_KIND(kNonSingleChildBlockError, "NonSingleChildBlockError", "The loop is required to have only one child block",
                         "The loop {0} is required to have only one child block");
TSCH_SCHEDULE_ERROR_KIND(kRFactorNotApplicableError, "RFactorNotApplicableError",
                         "RFactor cannot be applied to the block since the block does not meet the requirements",
                         "RFactor cannot be applied to block {0}, because the block is not of the form `X[...] = X[...] op value` "
                         "with a T.init() storing op's identity to X[...]");
TSCH_SCHEDULE_ERROR_KIND(kNoMatchedReducerError, "NoMatchedReducerError",
                         "No matched reducer for the identity and the combiner of this reduction block. So rfactor and "
                         "cross-thread reduction cannot be applied.",
                         "No matched reducer for the identity and the combiner of block {0}");
TSCH_SCHEDULE_ERROR_KIND(kDataParIterTouchRFactorLoopError, "LoopPropertyError.data_par_touches_rfactor_loop",
                         "The loop to be applied rfactor is required not to be touched by any data parallel block iter of the block",
                         "The loop to be applied rfactor is {0}, which is required not to be touched by any data parallel block "
                         "iter of the block below. However, some of the block's data parallel block iters touch this loop");
TSCH_SCHEDULE_ERROR_KIND(kFactorAxisOutOfRangeError, "FactorAxisOutOfRangeError",
                         "The input `factor_axis` is out of range. It is required to be in range [-(ndim + 1), ndim] where `ndim` is "
                         "the number of dimensions of the write buffer",
                         "The input `factor_axis` is out of range");

}  // namespace

uint64_t rfactor(ScheduleState& s, uint64_t loop_sid, int64_t factor_axis) {
  // Step 1. Check: one reduction block under a serial loop that only feeds reduction iterators.
  const ForNode* loop = &s.loop_at(loop_sid);
  if (loop->for_kind != ForKind::Serial) {
    static const char* kinds[] = {"serial", "parallel", "vectorized", "unroll", "thread_binding"};
    fail(s, kNotSerialLoopKindError, {loop_sid},
         fmt::format("ScheduleError: The input loop {{0}} of rfactor is required to be `Serial`. However, the kind of {{0}} is `{}`",
                     kinds[static_cast<int>(loop->for_kind)]));
  }
  std::vector<uint64_t> blocks = s.child_blocks(loop_sid);
  if (blocks.size() != 1) {
    fail(s, kNonSingleChildBlockError, {loop_sid});
  }
  uint64_t block_sid = blocks[0];
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  auto* update = as<BufferStoreNode>(block->body);
  auto* init = block->init ? as<BufferStoreNode>(block->init) : nullptr;
  if (!update || !init || update->buffer != init->buffer || !same_indices(update->indices, init->indices)) {
    fail(s, kRFactorNotApplicableError, {block_sid});
  }
  Buffer x = update->buffer;
  ExprKind combiner = update->value->kind;
  if (combiner != ExprKind::Add && combiner != ExprKind::Mul && combiner != ExprKind::Max && combiner != ExprKind::Min) {
    fail(s, kNoMatchedReducerError, {block_sid},
         fmt::format("No matched reducer for identity {} and combiner {} of block {{0}}. In this case rfactor cannot be applied.",
                     ir::script(init->value), ir::script(update->value)));
  }
  PrimExpr lhs = binary_a(update->value), rhs = binary_b(update->value);
  auto is_self = [&](const PrimExpr& e) {
    auto* l = as<BufferLoadNode>(e);
    return l && l->buffer == x && same_indices(l->indices, update->indices);
  };
  if (!is_self(lhs)) std::swap(lhs, rhs);
  if (!is_self(lhs)) fail(s, kRFactorNotApplicableError, {block_sid});
  if (!is_identity(combiner, init->value)) {
    fail(s, kNoMatchedReducerError, {block_sid},
         fmt::format("No matched reducer for identity {} and combiner {} of block {{0}}. In this case rfactor cannot be applied.",
                     ir::script(init->value), ir::script(update->value)));
  }
  const VarNode* rf_var = loop->loop_var.get();
  auto uses_rf = [&](const PrimExpr& e) { return uses_var(e, [&](const VarNode* v) { return v == rf_var; }); };
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i].type == IterType::DataPar && uses_rf(realize->iter_values[i])) {
      fail(s, kDataParIterTouchRFactorLoopError, {loop_sid, block_sid});
    }
  }
  // TVM's rule: no loop of the block may feed both a spatial and a reduction iterator (after
  // fuse(i, k0) the rf block made the fused loop a reduction iterator, and its init ran once
  // instead of once per row).
  for (uint64_t l : s.enclosing_loops(block_sid)) {
    const VarNode* lv = s.loop_at(l).loop_var.get();
    if (binds_spatial_and_reduction(*realize, lv))
      fail(s, kLoopTouchedByBothKindsError, {l, block_sid});
  }
  // Under a T.where over the loop (an imperfect split of the reduction) each X_rf entry is
  // initialised where the other reduction loops start, and the write-back reads every entry:
  // the predicate must hold there for every value of the loop. TVM does not check (with an
  // extent below the factor it reads entries nothing wrote).
  bool init_needs_decompose = false;
  if (uses_rf(realize->predicate)) {
    std::unordered_map<const VarNode*, PrimExpr> at_start;
    for (uint64_t l : s.enclosing_loops(block_sid)) {
      const ForNode* f = &s.loop_at(l);
      if (f->loop_var.get() == rf_var) continue;
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        if (block->iter_vars[i].type == IterType::CommReduce &&
            uses_var(realize->iter_values[i], [&](const VarNode* v) { return v == f->loop_var.get(); })) {
          at_start[f->loop_var.get()] = f->min;
        }
      }
    }
    arith::VarDomain dom = loop_domain(s, block_sid);
    for (const PrimExpr& term : conjuncts(realize->predicate)) {
      bool reduction_term = uses_rf(term) || uses_var(term, [&](const VarNode* v) { return at_start.count(v) > 0; });
      if (!reduction_term || arith::can_prove(substitute(term, at_start), dom)) continue;
      if (!s.rfactor_init_decomposed_later) {
        fail_not_supported(s, {loop_sid, block_sid},
                           fmt::format("rfactor of loop {{0}}: where its other reduction loops start, the T.where of block {{1}} "
                                       "({}) may be false for some values of {{0}}, whose {}_rf entries would then never be "
                                       "initialised (a reduction extent that can be below the split factor)",
                                       ir::script(term), update->buffer->name));
      }
      init_needs_decompose = true;
    }
  }
  int64_t ndim = static_cast<int64_t>(x->shape.size());
  if (factor_axis < -(ndim + 1) || factor_axis > ndim) {
    fail(s, kFactorAxisOutOfRangeError, {block_sid},
         fmt::format("The write buffer {} has {} dimension(s), so `factor_axis` is required to be in [{}, {}] for rfactor. However, "
                     "the input `factor_axis` is {}, which is out of the expected range",
                     x->name, ndim, -(ndim + 1), ndim, factor_axis));
  }
  if (factor_axis < 0) factor_axis += ndim + 1;

  // Step 2. The rf block: a spatial iterator for the loop, the spatial iterators of the block,
  // and a reduction iterator per other loop feeding the reduction.
  std::vector<uint64_t> loops = s.enclosing_loops(block_sid);
  DataType t = loop->loop_var->dtype;
  Var v_rf = make_var("v" + rf_var->name, t);
  std::vector<IterVar> rf_iters{IterVar{v_rf, Range{loop->min, loop->extent}, IterType::DataPar}};
  std::vector<PrimExpr> rf_values{loop->loop_var};
  std::unordered_map<const VarNode*, PrimExpr> loop_to_iter{{rf_var, v_rf}};
  std::vector<IterVar> reduce_iters;
  std::vector<PrimExpr> reduce_values;
  for (uint64_t l : loops) {
    const ForNode* f = &s.loop_at(l);
    if (f->loop_var.get() == rf_var) continue;
    bool feeds_reduction = false;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].type != IterType::CommReduce) continue;
      feeds_reduction |= uses_var(realize->iter_values[i], [&](const VarNode* v) { return v == f->loop_var.get(); });
    }
    if (!feeds_reduction) continue;
    Var v = make_var("v" + f->loop_var->name, f->loop_var->dtype);
    loop_to_iter[f->loop_var.get()] = v;
    reduce_iters.push_back(IterVar{v, Range{f->min, f->extent}, IterType::CommReduce});
    reduce_values.push_back(f->loop_var);
  }
  std::unordered_map<const VarNode*, PrimExpr> iter_subst;  // old reduction iterators -> new expressions
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.type == IterType::DataPar) {
      rf_iters.push_back(iv);
      rf_values.push_back(realize->iter_values[i]);
    } else {
      iter_subst[iv.var.get()] = substitute(realize->iter_values[i], loop_to_iter);
    }
  }
  rf_iters.insert(rf_iters.end(), reduce_iters.begin(), reduce_iters.end());
  rf_values.insert(rf_values.end(), reduce_values.begin(), reduce_values.end());
  std::vector<PrimExpr> rf_shape = x->shape;
  rf_shape.insert(rf_shape.begin() + factor_axis, loop->extent);
  Buffer x_rf = buffer_with(x, x->name + "_rf", rf_shape, x->scope);
  std::vector<PrimExpr> rf_indices = update->indices;
  rf_indices.insert(rf_indices.begin() + factor_axis, v_rf);
  PrimExpr rf_rhs = substitute(rhs, iter_subst);
  auto rf_block = std::make_shared<BlockNode>();
  rf_block->name = block->name + "_rf";
  rf_block->sid = s.fresh_sid();
  rf_block->iter_vars = rf_iters;
  rf_block->init = std::make_shared<BufferStoreNode>(x_rf, init->value, rf_indices);
  rf_block->body = std::make_shared<BufferStoreNode>(x_rf, make_binary(combiner, buffer_load(x_rf, rf_indices), rf_rhs), rf_indices);
  arith::AccessRegions rf_regions = arith::infer_access_regions(rf_block->body, rf_block->init);
  rf_block->reads = rf_regions.reads;
  rf_block->writes = rf_regions.writes;
  PrimExpr rf_pred = realize->predicate;

  // Step 3. The write-back block: reduce X_rf along the factored dimension into X, under
  // copies of the loops feeding its spatial iterators and of the factored loop.
  auto wb = std::make_shared<BlockNode>(*block);
  wb->sid = block->sid;  // keeps the block's handle
  Var v_wb = make_var("v" + rf_var->name, t);
  std::vector<IterVar> wb_iters{IterVar{v_wb, Range{loop->min, loop->extent}, IterType::CommReduce}};
  std::unordered_map<const VarNode*, PrimExpr> loop_copy;
  std::vector<const ForNode*> wb_loops;
  std::unordered_set<const VarNode*> wb_dropped;  // loops the write-back nest leaves out
  for (uint64_t l : loops) {
    const ForNode* f = &s.loop_at(l);
    bool needed = f->loop_var.get() == rf_var;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].type == IterType::DataPar) {
        needed |= uses_var(realize->iter_values[i], [&](const VarNode* v) { return v == f->loop_var.get(); });
      }
    }
    if (!needed) {
      wb_dropped.insert(f->loop_var.get());
      continue;
    }
    wb_loops.push_back(f);
    loop_copy[f->loop_var.get()] = make_var(f->loop_var->name, f->loop_var->dtype);
  }
  // The rf block keeps the block's spatial iterators; the write-back block gets its own
  // (one Var is defined once in a well-formed function, as in TVM).
  std::vector<PrimExpr> wb_values{loop_copy.at(rf_var)};
  std::unordered_map<const VarNode*, PrimExpr> wb_own;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.type != IterType::DataPar) continue;
    Var own = make_var(iv.var->name, iv.var->dtype);
    wb_own[iv.var.get()] = own;
    wb_iters.push_back(IterVar{own, iv.dom, iv.type});
    wb_values.push_back(substitute(realize->iter_values[i], loop_copy));
  }
  std::vector<PrimExpr> wb_indices;
  for (const auto& index : update->indices) wb_indices.push_back(substitute(index, wb_own));
  std::vector<PrimExpr> read_indices = wb_indices;
  read_indices.insert(read_indices.begin() + factor_axis, v_wb);
  wb->iter_vars = wb_iters;
  if (wb->init) wb->init = substitute(wb->init, wb_own);
  wb->body = std::make_shared<BufferStoreNode>(x, make_binary(combiner, buffer_load(x, wb_indices), buffer_load(x_rf, read_indices)),
                                               wb_indices);
  arith::AccessRegions wb_regions = arith::infer_access_regions(wb->body, wb->init, wb->alloc_buffers);
  wb->reads = wb_regions.reads;
  wb->writes = wb_regions.writes;
  // TVM gives the write-back block no predicate; then a spatial loop split imperfectly writes
  // past the output's end. It keeps the terms over its own loops instead.
  PrimExpr wb_pred = substitute(predicate_without(realize->predicate, wb_dropped), loop_copy);
  std::vector<LoopSpec> wb_specs;
  for (const ForNode* l : wb_loops) {
    wb_specs.push_back({std::static_pointer_cast<const VarNode>(loop_copy.at(l->loop_var.get())), l->min, l->extent});
  }
  Stmt wb_nest = make_loop_nest(s, wb_specs, std::make_shared<BlockRealizeNode>(wb_values, wb_pred, wb));

  // Step 4. Rewrite: the rf block replaces the block; the write-back nest follows the nest.
  uint64_t scope = s.scope_block(block_sid);
  uint64_t top = loops.empty() ? block_sid : loops.front();
  if (s.info(top)->parent != scope) fail_not_supported(s, {loop_sid}, "rfactor of a block nested in another block's loops");
  // The write-back nest goes after the block's whole loop nest; a block sharing those loops
  // (a consumer moved there by reverse_compute_at) would read the output before it is
  // written. TVM keeps the write-back inside the shared loops; tsch refuses.
  for (uint64_t other : s.blocks_in(s.info(block_sid)->func)) {
    if (other != block_sid && s.scope_block(other) == scope && is_under(s, other, top)) {
      fail_not_supported(s, {block_sid, other}, "rfactor of block {0}, whose loops also hold block {1}");
    }
  }
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(rf_values, rf_pred, rf_block));
  if (init_needs_decompose) s.rfactor_blocks_to_decompose.push_back(rf_block->sid);
  const BlockNode* scope_now = &s.block_at(scope);
  auto copy = std::make_shared<BlockNode>(*scope_now);
  std::vector<Stmt> items;
  if (auto* seq = as<SeqStmtNode>(copy->body)) items = seq->seq;
  else items.push_back(copy->body);
  // The rewritten top statement is the one holding the rf block now.
  const StmtNode* new_top = s.info(top)->node->kind == StmtKind::Block ? s.info(top)->realize : s.info(top)->node;
  size_t pos = items.size();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].get() == new_top) pos = i + 1;
  }
  items.insert(items.begin() + static_cast<long>(pos), wb_nest);
  copy->body = make_seq(items);
  copy->alloc_buffers.push_back(x_rf);
  const BlockRealizeNode* sr = s.info(scope)->realize;
  s.replace(scope, std::make_shared<BlockRealizeNode>(sr->iter_values, sr->predicate, copy));
  return rf_block->sid;
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_rfactor_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "RFactor", "rfactor", {input("loop", ParamType::Loop), attr("factor_axis", ParamType::Int)}, OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) { output_blocks(c, {rfactor(sch.state(), sch.loop_sid(c.inputs[0]), c.attrs[0].as_int())}); },
      "rfactor(loop, factor_axis) -> BlockRV: factorize the reduction along loop into a new buffer X_rf.",
      "the loop drives only reduction iterators of one reduction block with a recognised combiner (+, *, min, max)",
      "B[vi] += A[vi, vk] over k = k_0 * 4 + k_1; rfactor(k_1, 0)  ->  B_rf[vk_1, vi] partial sums, then B sums B_rf"));
}

}  // namespace tsch::schedule
