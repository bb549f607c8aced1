// rfactor: factorize a reduction along one of its loops (TVM's RFactor). The loop becomes a
// spatial dimension of a new buffer X_rf computed by block "B_rf"; block "B" then reduces
// X_rf along that dimension into X.
//
//   for i, k_0, k_1 in T.grid(128, 32, 4):        sch.rfactor(k_1, 0)
//     B: X[vi] += A[vi, k_0 * 4 + k_1]      ─▶    B_rf: X_rf[vk_1, vi] += A[vi, vk_0 * 4 + vk_1]
//                                                  B:    X[vi] += X_rf[vk_1, vi]
// Supported combiners: +, *, max, min with their identities as the init value.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/block_scope.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitive/reducer.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

bool same_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && !expr_deep_equal(a[i], b[i])) return false;
  }
  return true;
}

TSCH_SCHEDULE_ERROR_KIND(kNotSerialLoopKindError, "NotSerialLoopKindError",
                         "The input loop of rfactor is required to be `kSerial`",
                         "ScheduleError: The input loop {0} of rfactor is required to be `Serial`.");
TSCH_SCHEDULE_ERROR_KIND(kNonSingleChildBlockError, "NonSingleChildBlockError",
                         "The loop is required to have only one child block",
                         "The loop {0} is required to have only one child block");
TSCH_SCHEDULE_ERROR_KIND(
    kRFactorNotApplicableError, "RFactorNotApplicableError",
    "RFactor cannot be applied to the block since the block does not meet the requirements",
    "RFactor cannot be applied to block {0}, because the block is not of the form `X[...] = X[...] op value` "
    "with a T.init() storing op's identity to X[...]");
TSCH_SCHEDULE_ERROR_KIND(kNoMatchedReducerError, "NoMatchedReducerError",
                         "No matched reducer for the identity and the combiner of this reduction block. So rfactor and "
                         "cross-thread reduction cannot be applied.",
                         "No matched reducer for the identity and the combiner of block {0}");
TSCH_SCHEDULE_ERROR_KIND(
    kDataParIterTouchRFactorLoopError, "LoopPropertyError.data_par_touches_rfactor_loop",
    "The loop to be applied rfactor is required not to be touched by any data parallel block iter of the block",
    "The loop to be applied rfactor is {0}, which is required not to be touched by any data parallel block "
    "iter of the block below. However, some of the block's data parallel block iters touch this loop");
TSCH_SCHEDULE_ERROR_KIND(kNotFirstChildBlockError, "LoopPropertyError.not_first_child_block_of_outermost_loop",
                         "The reduction block should be the first child block of the outermost loop outside of it",
                         "The first child block of the outermost loop {0} is not the reduction block.");
TSCH_SCHEDULE_ERROR_KIND(
    kUnboundLoopUnderReductionLoopError, "LoopPropertyError.unbound_loop_under_reduction_loop",
    "A loop who has extent greater than one and is not bound to any block iter should not appear under a "
    "reduction loop",
    "The loop {0} has extent greater than one, and is not bound to any block iter. Therefore it shouldn't "
    "appear under a reduction loop");
TSCH_SCHEDULE_ERROR_KIND(
    kFactorAxisOutOfRangeError, "FactorAxisOutOfRangeError",
    "The input `factor_axis` is out of range. It is required to be in range [-(ndim + 1), ndim] where `ndim` is "
    "the number of dimensions of the write buffer",
    "The input `factor_axis` is out of range");

// What rfactor (and a cross-thread reduction) accepts as a reduction over several buffers;
// a refusal names the condition the block breaks (TVM's numbering).
const char* kReductionBlockDefinition =
    "A block rfactor can apply to:\n"
    "1) has an init that is one BufferStore or a SeqStmt of BufferStores\n"
    "2) initialises each buffer once\n"
    "3) has as many nested LetStmts at the top of its body as the init has BufferStores\n"
    "4) binds a different variable in each of those LetStmts\n"
    "5) has, inside the innermost LetStmt, one BufferStore or a SeqStmt of BufferStores\n"
    "6) has as many of those BufferStores as the init has\n"
    "7) stores exactly the LetStmts' variables, nothing else\n"
    "8) stores each of those variables once\n"
    "9) stores into each buffer once\n"
    "10) stores into the buffers its init initialises\n"
    "11) writes buffers of one shape\n"
    "12) accesses every buffer at the same indices";

// The reduction a block performs, in either of TVM's forms: one store `X[idx] = X[idx] op v`
// with the init `X[idx] = identity`; or, for several buffers (argmax), lets binding each
// buffer's combined value, then a store of each let into its buffer, with an init store per
// buffer. Buffers are in the order of the lets.
struct ReductionForm {
  std::vector<Buffer> buffers;
  std::vector<PrimExpr> indices;  // the same for every buffer
  std::vector<Var> let_vars;      // several buffers: the lets' variables, one per buffer
  ReducerMatch match;             // the reducer, and the new values it combines
};

[[noreturn]] void fail_not_applicable(const ScheduleState& s, BlockSid block_sid) {
  fail(s, kRFactorNotApplicableError, {block_sid});
}

[[noreturn]] void fail_no_matched_reducer(const ScheduleState& s, BlockSid block_sid,
                                          const std::vector<PrimExpr>& inits, const std::vector<PrimExpr>& values) {
  std::string ids, vals;
  for (size_t i = 0; i < inits.size(); ++i) {
    ids += (i ? ", " : "") + ir::script(inits[i]);
    vals += (i ? ", " : "") + ir::script(values[i]);
  }
  fail(s, kNoMatchedReducerError, {block_sid},
       fmt::format("No matched reducer for identity {} and combiner {} of block {{0}}. In this case rfactor cannot "
                   "be applied.",
                   inits.size() == 1 ? ids : "[" + ids + "]", values.size() == 1 ? vals : "[" + vals + "]"));
}

// A several-buffer block breaking condition #`condition` of kReductionBlockDefinition.
[[noreturn]] void fail_violates(const ScheduleState& s, BlockSid block_sid, int condition) {
  fail(s, kRFactorNotApplicableError, {block_sid},
       fmt::format("RFactor cannot be applied to block {{0}}, because the block violates condition #{}.\n{}", condition,
                   kReductionBlockDefinition));
}

// One buffer: `X[idx] = X[idx] op v` with the init `X[idx] = identity`.
ReductionForm single_buffer_form(const ScheduleState& s, BlockSid block_sid, const BlockNode& block,
                                 const BufferStoreNode& update) {
  auto* init = as<BufferStoreNode>(block.init);
  if (!init || update.buffer != init->buffer || !same_indices(update.indices, init->indices))
    fail_not_applicable(s, block_sid);
  ReductionForm form;
  form.buffers = {update.buffer};
  form.indices = update.indices;
  PrimExpr current = buffer_load(update.buffer, update.indices);
  std::optional<ReducerMatch> m = match_reducer({init->value}, {update.value}, {current});
  // The commutative reducers match with the operands either way round (`A[vi, vk] + X[vi]`).
  if (!m && is_binary(update.value->kind)) {
    m = match_reducer({init->value}, {make_binary(update.value->kind, binary_b(update.value), binary_a(update.value))},
                      {current});
  }
  if (!m) {
    // TVM's distinction: a store not of the form `X = X op v` is not a reduction rfactor knows.
    bool reads_self = false;
    for_each_expr(update.value, [&](const PrimExpr& e) {
      if (auto* l = as<BufferLoadNode>(e))
        reads_self |= l->buffer == update.buffer && same_indices(l->indices, update.indices);
    });
    if (!reads_self) fail_not_applicable(s, block_sid);
    fail_no_matched_reducer(s, block_sid, {init->value}, {update.value});
  }
  form.match = *m;
  return form;
}

// Several buffers, conditions 1-2: the init stores, one per buffer.
std::vector<const BufferStoreNode*> init_stores(const ScheduleState& s, BlockSid block_sid, const BlockNode& block) {
  std::vector<Stmt> init_stmts;
  if (auto* init_seq = as<SeqStmtNode>(block.init))
    init_stmts = init_seq->seq;
  else if (as<BufferStoreNode>(block.init))
    init_stmts = {block.init};
  else
    fail_violates(s, block_sid, 1);
  std::vector<const BufferStoreNode*> inits;
  for (const auto& st : init_stmts) {
    auto* store = as<BufferStoreNode>(st);
    if (!store) fail_violates(s, block_sid, 1);
    for (const auto* other : inits) {
      if (other->buffer == store->buffer) fail_violates(s, block_sid, 2);
    }
    inits.push_back(store);
  }
  return inits;
}

// Conditions 3-4: the `n` lets at the top of the body, one variable each; `body` is left at
// what the innermost holds.
std::vector<const LetStmtNode*> update_lets(const ScheduleState& s, BlockSid block_sid, size_t n, Stmt& body) {
  std::vector<const LetStmtNode*> lets;
  while (auto* let = as<LetStmtNode>(body)) {
    if (lets.size() == n) fail_violates(s, block_sid, 3);
    for (const auto* other : lets) {
      if (other->var.get() == let->var.get()) fail_violates(s, block_sid, 4);
    }
    lets.push_back(let);
    body = let->body;
  }
  if (lets.size() != n) fail_violates(s, block_sid, 3);
  return lets;
}

// Conditions 5-9: the stores under the lets, each of one let's variable; ordered by let.
std::vector<const BufferStoreNode*> stores_by_let(const ScheduleState& s, BlockSid block_sid, const Stmt& body,
                                                  const std::vector<const LetStmtNode*>& lets) {
  size_t n = lets.size();
  std::vector<Stmt> seq;
  if (auto* stores_seq = as<SeqStmtNode>(body))
    seq = stores_seq->seq;
  else if (as<BufferStoreNode>(body))
    seq = {body};
  else
    fail_violates(s, block_sid, 5);
  if (seq.size() != n) fail_violates(s, block_sid, 6);
  std::vector<const BufferStoreNode*> stores(n, nullptr);
  for (const auto& st : seq) {
    auto* store = as<BufferStoreNode>(st);
    if (!store) fail_violates(s, block_sid, 5);
    auto* value = as<VarNode>(store->value);
    if (!value) fail_violates(s, block_sid, 7);
    size_t j = n;
    for (size_t i = 0; i < n; ++i) {
      if (lets[i]->var.get() == value) j = i;
    }
    if (j == n) fail_violates(s, block_sid, 7);
    if (stores[j]) fail_violates(s, block_sid, 8);
    for (const auto* other : stores) {
      if (other && other->buffer == store->buffer) fail_violates(s, block_sid, 9);
    }
    stores[j] = store;
  }
  return stores;
}

// Conditions 10-12: each init stores into a buffer the update stores into, all of one shape,
// at the same indices. The init values, ordered by let.
std::vector<PrimExpr> init_values_by_let(const ScheduleState& s, BlockSid block_sid,
                                         const std::vector<const BufferStoreNode*>& inits,
                                         const std::vector<const BufferStoreNode*>& stores) {
  size_t n = stores.size();
  const BufferStoreNode* first = stores[0];
  std::vector<PrimExpr> init_values(n);
  for (const BufferStoreNode* init : inits) {
    size_t j = n;
    for (size_t i = 0; i < n; ++i) {
      if (stores[i]->buffer == init->buffer) j = i;
    }
    if (stores[j == n ? 0 : j]->buffer->shape.size() != first->indices.size()) fail_violates(s, block_sid, 11);
    if (init->indices.size() != first->indices.size()) fail_violates(s, block_sid, 12);
    if (j == n) fail_violates(s, block_sid, 10);
    const BufferStoreNode* store = stores[j];
    for (size_t d = 0; d < first->indices.size(); ++d) {
      if (!expr_deep_equal(store->buffer->shape[d], first->buffer->shape[d])) fail_violates(s, block_sid, 11);
    }
    if (!same_indices(init->indices, first->indices) || !same_indices(store->indices, first->indices))
      fail_violates(s, block_sid, 12);
    init_values[j] = init->value;
  }
  return init_values;
}

// Several buffers: the init is one store per buffer, the body lets then stores of the lets.
// The checks in TVM's order, each refusal naming the condition it breaks.
ReductionForm multi_buffer_form(const ScheduleState& s, BlockSid block_sid, const BlockNode& block) {
  std::vector<const BufferStoreNode*> inits = init_stores(s, block_sid, block);
  Stmt body = block.body;
  std::vector<const LetStmtNode*> lets = update_lets(s, block_sid, inits.size(), body);
  std::vector<const BufferStoreNode*> stores = stores_by_let(s, block_sid, body, lets);
  std::vector<PrimExpr> init_values = init_values_by_let(s, block_sid, inits, stores);
  ReductionForm form;
  std::vector<PrimExpr> values, current;
  for (size_t j = 0; j < stores.size(); ++j) {
    form.buffers.push_back(stores[j]->buffer);
    form.let_vars.push_back(lets[j]->var);
    values.push_back(lets[j]->value);
    current.push_back(buffer_load(stores[j]->buffer, stores[j]->indices));
  }
  form.indices = stores[0]->indices;
  std::optional<ReducerMatch> m = match_reducer(init_values, values, current);
  if (!m) fail_no_matched_reducer(s, block_sid, init_values, values);
  form.match = *m;
  return form;
}

ReductionForm reduction_form(const ScheduleState& s, BlockSid block_sid, const BlockNode& block) {
  if (!block.init) fail_not_applicable(s, block_sid);
  if (auto* update = as<BufferStoreNode>(block.body)) return single_buffer_form(s, block_sid, block, *update);
  return multi_buffer_form(s, block_sid, block);
}

// `regions` stably sorted by where their buffers come in `order` (others last).
std::vector<BufferRegion> ordered_like(std::vector<BufferRegion> regions, const std::vector<Buffer>& order) {
  auto rank = [&](const BufferRegion& r) {
    return static_cast<size_t>(std::find(order.begin(), order.end(), r.buffer) - order.begin());
  };
  std::stable_sort(regions.begin(), regions.end(),
                   [&](const BufferRegion& a, const BufferRegion& b) { return rank(a) < rank(b); });
  return regions;
}

// The update storing `values` (one per buffer of `form`) into `buffers` at `indices`: a store,
// or for several buffers TVM's lets (named after the block's, plus `suffix`) then stores. One
// buffer updated through a let (`v = X + a; X = v`) gets the plain store, as in TVM.
Stmt update_stmt(const ReductionForm& form, const std::vector<Buffer>& buffers, const std::vector<PrimExpr>& indices,
                 const std::vector<PrimExpr>& values, const std::string& suffix) {
  if (buffers.size() == 1) return std::make_shared<BufferStoreNode>(buffers[0], values[0], indices);
  std::vector<Var> vars;
  std::vector<Stmt> stores;
  for (size_t j = 0; j < buffers.size(); ++j) {
    vars.push_back(make_var(form.let_vars[j]->name + suffix, form.let_vars[j]->dtype));
    stores.push_back(std::make_shared<BufferStoreNode>(buffers[j], vars[j], indices));
  }
  Stmt body = make_seq(stores);
  for (size_t j = buffers.size(); j-- > 0;) body = std::make_shared<LetStmtNode>(vars[j], values[j], body);
  return body;
}

// `nest` into the body of `scope`, before (or after) its statement holding `top`, and the rf
// buffers into its allocations.
void insert_into_scope(ScheduleState& s, BlockSid scope, StmtSid top, const Stmt& nest, bool after,
                       const std::vector<Buffer>& rf_buffers) {
  auto copy = std::make_shared<BlockNode>(s.block_at(scope));
  std::vector<Stmt> items = body_items(copy->body);  // under leading AllocateConst / DeclBuffer
  const StmtNode* top_now = s.info(top)->node->kind == StmtKind::Block ? s.info(top)->realize : s.info(top)->node;
  size_t pos = items.size();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].get() == top_now) pos = after ? i + 1 : i;
  }
  items.insert(items.begin() + static_cast<long>(pos), nest);
  copy->body = rewrap(peel_decls(copy->body).wrappers, make_seq(items));
  for (const auto& b : rf_buffers) copy->alloc_buffers.push_back(b);
  const BlockRealizeNode* sr = s.info(scope)->realize;
  s.replace(scope, std::make_shared<BlockRealizeNode>(sr->iter_values, sr->predicate, copy));
}

// TVM's rewrite when the outermost loop also holds other blocks: the rf block goes under fresh
// copies of all the block's loops, before the outermost loop; in the block's own nest, from
// the outermost reduction loop (or the loop of rfactor) down, only the write-back's loops
// stay, keeping their handles, around the write-back.
void replace_in_shared_loops(ScheduleState& s, const std::vector<LoopSid>& loops, LoopSid loop_sid,
                             const std::vector<const ForNode*>& wb_loops, const Stmt& wb_realize,
                             const BlockRealizeNode& rf_realize, const std::vector<Buffer>& rf_buffers,
                             const std::function<bool(const ForNode*)>& feeds_reduction) {
  BlockSid scope = s.scope_block(loops.front());
  std::unordered_map<const VarNode*, PrimExpr> fresh;
  std::vector<std::shared_ptr<ForNode>> copies;
  for (LoopSid l : loops) {
    const ForNode& f = s.loop_at(l);
    auto c = std::make_shared<ForNode>(f);
    c->loop_var = make_var(f.loop_var->name, f.loop_var->dtype);
    c->min = substitute(f.min, fresh);
    c->extent = substitute(f.extent, fresh);
    c->sid = s.fresh_sid();
    fresh[f.loop_var.get()] = c->loop_var;
    copies.push_back(c);
  }
  std::vector<PrimExpr> values;
  for (const auto& v : rf_realize.iter_values) values.push_back(substitute(v, fresh));
  Stmt rf_nest = std::make_shared<BlockRealizeNode>(values, substitute(rf_realize.predicate, fresh), rf_realize.block);
  for (size_t k = copies.size(); k-- > 0;) {
    copies[k]->body = rf_nest;
    rf_nest = copies[k];
  }
  size_t first = 0;
  while (first < loops.size() && loops[first] != loop_sid && !feeds_reduction(&s.loop_at(loops[first]))) ++first;
  std::unordered_set<const ForNode*> below;
  for (size_t i = first; i < loops.size(); ++i) below.insert(&s.loop_at(loops[i]));
  std::vector<const ForNode*> kept;
  for (const ForNode* f : wb_loops) {
    if (below.count(f)) kept.push_back(f);
  }
  s.replace(loops[first], wrap_in_loops(wb_realize, kept));
  insert_into_scope(s, scope, loops.front(), rf_nest, /*after=*/false, rf_buffers);
}

// What Step 1 found: the reduction block under the loop, its reduction, where it sits, and
// which of its loops feed which kind of iterator.
struct RFactorTarget {
  LoopSid loop_sid;
  BlockSid block_sid;
  const ForNode* loop = nullptr;
  const BlockNode* block = nullptr;
  const BlockRealizeNode* realize = nullptr;
  ReductionForm form;
  std::vector<LoopSid> loops;    // the block's, outermost first
  BlockSid scope;                // the scope block
  StmtSid top;                   // the outermost loop (or the block)
  std::vector<BlockSid> others;  // other blocks under the outermost loop
  bool init_needs_decompose = false;
  int64_t factor_axis = 0;  // in [0, ndim]

  const VarNode* rf_var() const { return loop->loop_var.get(); }
  bool uses_rf(const PrimExpr& e) const {
    return uses_var(e, [&](const VarNode* v) { return v == rf_var(); });
  }
  // Whether loop f feeds a block iterator of the given kind.
  bool binds(const ForNode* f, IterType kind) const {
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].type == kind &&
          uses_var(realize->iter_values[i], [&](const VarNode* v) { return v == f->loop_var.get(); }))
        return true;
    }
    return false;
  }
  bool binds_spatial(const ForNode* f) const { return binds(f, IterType::DataPar); }
  bool feeds_reduction(const ForNode* f) const { return binds(f, IterType::CommReduce); }
};

void check_serial_loop(const ScheduleState& s, LoopSid loop_sid, const ForNode& loop) {
  if (loop.for_kind == ForKind::Serial) return;
  static const char* kinds[] = {"serial", "parallel", "vectorized", "unroll", "thread_binding"};
  fail(s, kNotSerialLoopKindError, {loop_sid},
       fmt::format("ScheduleError: The input loop {{0}} of rfactor is required to be `Serial`. However, the kind of "
                   "{{0}} is `{}`",
                   kinds[static_cast<int>(loop.for_kind)]));
}

// One reduction block (TVM's CheckReductionBlock) under a serial loop that only feeds
// reduction iterators, in TVM's order: the block's checks, then the loop's kind.
RFactorTarget check_rfactor_target(const ScheduleState& s, LoopSid loop_sid) {
  RFactorTarget t;
  t.loop_sid = loop_sid;
  t.loop = &s.loop_at(loop_sid);
  std::vector<BlockSid> blocks = s.child_blocks(loop_sid);
  if (blocks.size() != 1) fail(s, kNonSingleChildBlockError, {loop_sid});
  t.block_sid = blocks[0];
  t.block = &s.block_at(t.block_sid);
  t.realize = s.info(t.block_sid)->realize;
  check_stage_pipeline(s, s.scope_block(t.block_sid));
  check_reduction_block(s, t.block_sid);
  check_serial_loop(s, loop_sid, *t.loop);
  t.form = reduction_form(s, t.block_sid, *t.block);
  if (reduction_var_in(*t.block, t.form.indices)) fail_not_reduction_block(s, t.block_sid, 5);
  for (size_t i = 0; i < t.block->iter_vars.size(); ++i) {
    if (t.block->iter_vars[i].type == IterType::DataPar && t.uses_rf(t.realize->iter_values[i])) {
      fail(s, kDataParIterTouchRFactorLoopError, {loop_sid, t.block_sid});
    }
  }
  // TVM's rule: no loop of the block may feed both a spatial and a reduction iterator (after
  // fuse(i, k0) the rf block made the fused loop a reduction iterator, and its init ran once
  // instead of once per row).
  for (LoopSid l : s.enclosing_loops(t.block_sid)) {
    const VarNode* lv = s.loop_at(l).loop_var.get();
    if (binds_spatial_and_reduction(*t.realize, lv)) fail(s, kLoopTouchedByBothKindsError, {l, t.block_sid});
  }
  t.loops = s.enclosing_loops(t.block_sid);
  t.scope = s.scope_block(t.block_sid);
  t.top = t.loops.empty() ? StmtSid(t.block_sid) : StmtSid(t.loops.front());
  if (s.info(t.top)->parent != t.scope)
    fail_not_supported(s, {loop_sid}, "rfactor of a block nested in another block's loops");
  return t;
}

// Other blocks under the outermost loop (a consumer moved there by reverse_compute_at): as
// in TVM, the block must come first, the rf nest goes before the outermost loop and the
// write-back takes the block's place. Moving the rf block's reads before the other blocks
// is sound only when none of them writes what it reads (such a write after the read also
// makes the scope no stage pipeline, refused above; checked here in the primitive's terms).
std::vector<BlockSid> check_blocks_sharing_outer_loop(const ScheduleState& s, const RFactorTarget& t) {
  std::vector<BlockSid> others;
  for (BlockSid other : s.blocks_in(s.info(t.block_sid)->func)) {
    if (other != t.block_sid && s.scope_block(other) == t.scope && is_under(s, other, t.top)) others.push_back(other);
  }
  if (others.empty()) return others;
  if (s.child_blocks(t.top).front() != t.block_sid) fail(s, kNotFirstChildBlockError, {t.top, t.block_sid});
  for (BlockSid other : others) {
    for (const BufferRegion& w : arith::effective_access_regions(s.block_at(other)).writes) {  // containers too
      for (const BufferRegion& r : t.block->reads) {
        bool output = std::find(t.form.buffers.begin(), t.form.buffers.end(), r.buffer) != t.form.buffers.end();
        if (w.buffer != r.buffer || output) continue;
        fail_not_supported(
            s, {t.block_sid, other, t.top},
            fmt::format("rfactor of block {{0}}: block {{1}}, also under loop {{2}}, writes {}, which {{0}} "
                        "reads; the rf block, moved before loop {{2}}, would read it before it is written",
                        w.buffer->name));
      }
    }
  }
  return others;
}

// TVM's other loop properties. The outermost reduction loop holds only the block (the loops
// above it may hold more: see Step 4); under it, a loop no iterator uses would repeat each
// update, and the write-back, keeping that loop, would repeat the partial results too.
void check_reduction_loop_properties(const ScheduleState& s, const RFactorTarget& t) {
  bool met_reduction = false;
  for (LoopSid l : t.loops) {
    const ForNode* f = &s.loop_at(l);
    if (t.feeds_reduction(f)) {
      if (!met_reduction && s.child_blocks(l).size() != 1) fail(s, kNonSingleChildBlockError, {l});
      met_reduction = true;
    } else if (met_reduction && !t.binds_spatial(f) && !is_const_int(f->extent, 1)) {
      fail(s, kUnboundLoopUnderReductionLoopError, {l, t.block_sid});
    }
  }
}

// Under a T.where over the loop (an imperfect split of the reduction) each X_rf entry is
// initialised where the other reduction loops start, and the write-back reads every entry:
// the predicate must hold there for every value of the loop. TVM does not check (with an
// extent below the factor it reads entries nothing wrote). True when it may not hold and the
// caller decomposes the rf block's init afterwards.
bool rf_init_needs_decompose(const ScheduleState& s, const RFactorTarget& t) {
  if (!t.uses_rf(t.realize->predicate)) return false;
  std::unordered_map<const VarNode*, PrimExpr> at_start;
  for (LoopSid l : s.enclosing_loops(t.block_sid)) {
    const ForNode* f = &s.loop_at(l);
    if (f->loop_var.get() == t.rf_var()) continue;
    for (size_t i = 0; i < t.block->iter_vars.size(); ++i) {
      if (t.block->iter_vars[i].type == IterType::CommReduce &&
          uses_var(t.realize->iter_values[i], [&](const VarNode* v) { return v == f->loop_var.get(); })) {
        at_start[f->loop_var.get()] = f->min;
      }
    }
  }
  arith::VarDomain dom = loop_domain(s, t.block_sid);
  bool needs = false;
  for (const PrimExpr& term : conjuncts(t.realize->predicate)) {
    bool reduction_term = t.uses_rf(term) || uses_var(term, [&](const VarNode* v) { return at_start.count(v) > 0; });
    if (!reduction_term || arith::can_prove(substitute(term, at_start), dom)) continue;
    if (!s.rfactor_init_decomposed_later) {
      fail_not_supported(
          s, {t.loop_sid, t.block_sid},
          fmt::format("rfactor of loop {{0}}: where its other reduction loops start, the T.where of block {{1}} "
                      "({}) may be false for some values of {{0}}, whose {}_rf entries would then never be "
                      "initialised (a reduction extent that can be below the split factor)",
                      ir::script(term), t.form.buffers[0]->name));
    }
    needs = true;
  }
  return needs;
}

// A reducer that is associative but not commutative gives the same result only when the
// partial results combine in the original order: when the factored loop is the outermost
// of the reduction's loops (each lane a contiguous run of the original fold).
void check_reducer_order(const ScheduleState& s, const RFactorTarget& t) {
  if (t.form.match.reducer.commutative) return;
  for (LoopSid l : s.enclosing_loops(t.block_sid)) {
    if (l == t.loop_sid) break;
    if (t.feeds_reduction(&s.loop_at(l))) {
      fail_not_supported(
          s, {t.loop_sid, t.block_sid, l},
          "rfactor of loop {0}, inside reduction loop {2}: the reducer of block {1} keeps the earlier value on "
          "ties (`>=` / `<=`), so combining the partial results in another order can find another index of "
          "the same best value. Factor the outermost reduction loop, or use the reducer that breaks ties "
          "by index (`x1 > y1 or x1 == y1 and x0 < y0`)");
    }
  }
}

// `factor_axis` in [-(ndim + 1), ndim], as a position in [0, ndim].
int64_t normalized_factor_axis(const ScheduleState& s, const RFactorTarget& t, int64_t factor_axis) {
  const Buffer& x = t.form.buffers[0];
  int64_t ndim = static_cast<int64_t>(x->shape.size());
  if (factor_axis < -(ndim + 1) || factor_axis > ndim) {
    fail(s, kFactorAxisOutOfRangeError, {t.block_sid},
         fmt::format("The write buffer {} has {} dimension(s), so `factor_axis` is required to be in [{}, {}] for "
                     "rfactor. However, "
                     "the input `factor_axis` is {}, which is out of the expected range",
                     x->name, ndim, -(ndim + 1), ndim, factor_axis));
  }
  return factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis;
}

// The rf block's iterators and their bindings: a spatial iterator for the loop, then the
// block's iterators in order, each kept with its binding unless it is a reduction iterator
// over the loop; such a one gives way to a reduction iterator per other loop in its binding
// (one per loop, however many iterators use it), and `iter_subst` maps it to its expression
// over them.
struct RFactorIters {
  Var v_rf;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> values;
  std::unordered_map<const VarNode*, PrimExpr> iter_subst;
};

RFactorIters rf_iters(const ScheduleState& s, const RFactorTarget& t) {
  const ForNode* loop = t.loop;
  RFactorIters out;
  out.v_rf = make_var("v" + t.rf_var()->name, loop->loop_var->dtype);
  out.iters = {IterVar{out.v_rf, Range{loop->min, loop->extent}, IterType::DataPar}};
  out.values = {loop->loop_var};
  std::unordered_map<const VarNode*, PrimExpr> loop_to_iter{{t.rf_var(), out.v_rf}};
  std::unordered_map<const VarNode*, const ForNode*> loop_of_var;
  for (LoopSid l : t.loops) loop_of_var[s.loop_at(l).loop_var.get()] = &s.loop_at(l);
  for (size_t i = 0; i < t.block->iter_vars.size(); ++i) {
    const IterVar& iv = t.block->iter_vars[i];
    const PrimExpr& binding = t.realize->iter_values[i];
    if (iv.type == IterType::DataPar || !t.uses_rf(binding)) {
      out.iters.push_back(iv);
      out.values.push_back(binding);
      continue;
    }
    for_each_expr(binding, [&](const PrimExpr& e) {  // pre-order: TVM's order of the loops
      auto* v = as<VarNode>(e);
      auto it = v ? loop_of_var.find(v) : loop_of_var.end();
      if (it == loop_of_var.end() || loop_to_iter.count(v)) return;
      const ForNode* f = it->second;
      Var nv = make_var("v" + f->loop_var->name, f->loop_var->dtype);
      loop_to_iter[v] = nv;
      out.iters.push_back(IterVar{nv, Range{f->min, f->extent}, IterType::CommReduce});
      out.values.push_back(f->loop_var);
    });
    out.iter_subst[iv.var.get()] = substitute(binding, loop_to_iter);
  }
  return out;
}

// Step 2's result: the rf block with its binding, and the X_rf buffers it writes.
struct RFactorBlock {
  std::shared_ptr<BlockNode> block;
  std::vector<PrimExpr> values;
  PrimExpr predicate;
  std::vector<Buffer> buffers;
};

// TVM's RFactorBlockCreator: the rf block reducing into X_rf, the loop's dimension at
// `factor_axis`.
RFactorBlock make_rf_block(ScheduleState& s, const RFactorTarget& t) {
  RFactorIters it = rf_iters(s, t);
  bool rf_reduces = false;
  for (const IterVar& iv : it.iters) rf_reduces |= iv.type == IterType::CommReduce;
  std::vector<PrimExpr> rf_indices = t.form.indices;
  rf_indices.insert(rf_indices.begin() + t.factor_axis, it.v_rf);
  RFactorBlock rf;
  std::vector<PrimExpr> rf_current, rf_new;
  std::vector<Stmt> rf_inits;
  for (size_t j = 0; j < t.form.buffers.size(); ++j) {
    const Buffer& b = t.form.buffers[j];
    std::vector<PrimExpr> rf_shape = b->shape;
    rf_shape.insert(rf_shape.begin() + t.factor_axis, t.loop->extent);
    rf.buffers.push_back(buffer_with(b, b->name + "_rf", rf_shape, b->scope));
    rf_current.push_back(buffer_load(rf.buffers[j], rf_indices));
    rf_new.push_back(substitute(t.form.match.rhs[j], it.iter_subst));
    rf_inits.push_back(
        std::make_shared<BufferStoreNode>(rf.buffers[j], t.form.match.reducer.identities[j], rf_indices));
  }
  auto rf_block = std::make_shared<BlockNode>();
  rf_block->name = t.block->name + "_rf";
  rf_block->sid = s.fresh_sid();
  rf_block->iter_vars = it.iters;
  rf_block->annotations = t.block->annotations;  // as TVM's: the rf block keeps them
  if (!rf_reduces && t.form.buffers.size() == 1) {
    // Nothing left to reduce in the rf block (TVM's spatial-only form): each instance stores
    // its value, identity (+) value being the value. (Tuple reducers keep their combine: an
    // argmax tie-break against the identity's index can pick the identity.)
    rf_block->body = update_stmt(t.form, rf.buffers, rf_indices, rf_new, "_rf");
  } else {
    rf_block->init = make_seq(rf_inits);
    rf_block->body =
        update_stmt(t.form, rf.buffers, rf_indices, t.form.match.reducer.combine(rf_current, rf_new), "_rf");
  }
  arith::AccessRegions rf_regions = arith::infer_access_regions(rf_block->body, rf_block->init);
  std::vector<Buffer> read_order;  // TVM's rf block reads what the block read, in its order
  for (const auto& r : t.block->reads) read_order.push_back(r.buffer);
  rf_block->reads = ordered_like(rf_regions.reads, read_order);
  rf_block->writes = ordered_like(rf_regions.writes, rf.buffers);
  rf.block = rf_block;
  rf.values = it.values;
  rf.predicate = t.realize->predicate;
  return rf;
}

// The write-back's loops: the loop of rfactor and every loop no reduction iterator uses (those
// of the spatial iterators and any unbound ones: a unit loop, or one above the reduction), as
// TVM's. `loop_copy` maps each to its variable in the write-back nest: a fresh one, or under
// shared loops the loop's own (the write-back stays in the block's nest, on its loops).
struct WriteBackLoops {
  std::vector<const ForNode*> loops;
  std::unordered_map<const VarNode*, PrimExpr> loop_copy;
  std::unordered_set<const VarNode*> dropped;  // loops the write-back nest leaves out
};

WriteBackLoops write_back_loops(const ScheduleState& s, const RFactorTarget& t) {
  WriteBackLoops out;
  for (LoopSid l : t.loops) {
    const ForNode* f = &s.loop_at(l);
    bool needed = f->loop_var.get() == t.rf_var() || !t.feeds_reduction(f);
    if (!needed) {
      out.dropped.insert(f->loop_var.get());
      continue;
    }
    out.loops.push_back(f);
    out.loop_copy[f->loop_var.get()] =
        t.others.empty() ? make_var(f->loop_var->name, f->loop_var->dtype) : PrimExpr(f->loop_var);
  }
  return out;
}

// Step 3. The write-back block: reduce X_rf along the factored dimension (iterator `v_wb`)
// into X, under copies of the loops feeding its spatial iterators and of the factored loop.
// It keeps the block's handle.
std::shared_ptr<BlockRealizeNode> make_write_back(const RFactorTarget& t, const RFactorBlock& rf, const Var& v_wb,
                                                  const WriteBackLoops& wl) {
  auto wb = std::make_shared<BlockNode>(*t.block);
  wb->sid = t.block->sid;
  std::vector<IterVar> wb_iters{IterVar{v_wb, Range{t.loop->min, t.loop->extent}, IterType::CommReduce}};
  // The rf block keeps the block's spatial iterators; the write-back block gets its own
  // (one Var is defined once in a well-formed function, as in TVM).
  std::vector<PrimExpr> wb_values{wl.loop_copy.at(t.rf_var())};
  std::unordered_map<const VarNode*, PrimExpr> wb_own;
  for (size_t i = 0; i < t.block->iter_vars.size(); ++i) {
    const IterVar& iv = t.block->iter_vars[i];
    if (iv.type != IterType::DataPar) continue;
    Var own = make_var(iv.var->name, iv.var->dtype);
    wb_own[iv.var.get()] = own;
    wb_iters.push_back(IterVar{own, iv.dom, iv.type});
    wb_values.push_back(substitute(t.realize->iter_values[i], wl.loop_copy));
  }
  std::vector<PrimExpr> wb_indices;
  for (const auto& index : t.form.indices) wb_indices.push_back(substitute(index, wb_own));
  std::vector<PrimExpr> read_indices = wb_indices;
  read_indices.insert(read_indices.begin() + t.factor_axis, v_wb);
  wb->iter_vars = wb_iters;
  // The init as TVM re-creates it: a store per buffer, in the order of the lets.
  const ReductionForm& form = t.form;
  std::vector<Stmt> wb_inits;
  for (size_t j = 0; j < form.buffers.size(); ++j) {
    wb_inits.push_back(
        std::make_shared<BufferStoreNode>(form.buffers[j], form.match.reducer.identities[j], wb_indices));
  }
  wb->init = make_seq(wb_inits);
  std::vector<PrimExpr> wb_current, wb_new;
  for (size_t j = 0; j < form.buffers.size(); ++j) {
    wb_current.push_back(buffer_load(form.buffers[j], wb_indices));
    wb_new.push_back(buffer_load(rf.buffers[j], read_indices));
  }
  wb->body = update_stmt(form, form.buffers, wb_indices, form.match.reducer.combine(wb_current, wb_new), "");
  arith::AccessRegions wb_regions =
      arith::infer_access_regions(wb->body, wb->init, wb->alloc_buffers, wb->match_buffers);
  wb->reads = ordered_like(wb_regions.reads, rf.buffers);
  wb->writes = ordered_like(wb_regions.writes, form.buffers);
  // TVM gives the write-back block no predicate; then a spatial loop split imperfectly writes
  // past the output's end. It keeps the terms over its own loops instead.
  PrimExpr wb_pred = substitute(predicate_without(t.realize->predicate, wl.dropped), wl.loop_copy);
  return std::make_shared<BlockRealizeNode>(wb_values, wb_pred, wb);
}

}  // namespace

BlockSid rfactor(ScheduleState& s, LoopSid loop_sid, int64_t factor_axis) {
  // Step 1. Check.
  RFactorTarget t = check_rfactor_target(s, loop_sid);
  t.others = check_blocks_sharing_outer_loop(s, t);
  check_reduction_loop_properties(s, t);
  t.init_needs_decompose = rf_init_needs_decompose(s, t);
  check_reducer_order(s, t);
  t.factor_axis = normalized_factor_axis(s, t, factor_axis);
  // Step 2. The rf block.
  RFactorBlock rf = make_rf_block(s, t);
  // Step 3. The write-back block.
  Var v_wb = make_var("v" + t.rf_var()->name, t.loop->loop_var->dtype);
  WriteBackLoops wl = write_back_loops(s, t);
  std::shared_ptr<BlockRealizeNode> wb_realize = make_write_back(t, rf, v_wb, wl);
  // Step 4. Rewrite: the rf block replaces the block; the write-back nest follows the nest.
  BlockSid rf_sid = sid_of(*rf.block);
  if (!t.others.empty()) {
    replace_in_shared_loops(s, t.loops, loop_sid, wl.loops, wb_realize,
                            BlockRealizeNode(rf.values, rf.predicate, rf.block), rf.buffers,
                            [&](const ForNode* f) { return t.feeds_reduction(f); });
    if (t.init_needs_decompose) s.rfactor_blocks_to_decompose.push_back(rf_sid);
    return rf_sid;
  }
  std::vector<LoopSpec> wb_specs;
  for (const ForNode* l : wl.loops) {
    wb_specs.push_back(
        {std::static_pointer_cast<const VarNode>(wl.loop_copy.at(l->loop_var.get())), l->min, l->extent});
  }
  Stmt wb_nest = make_loop_nest(s, wb_specs, wb_realize);
  s.replace(t.block_sid, std::make_shared<BlockRealizeNode>(rf.values, rf.predicate, rf.block));
  if (t.init_needs_decompose) s.rfactor_blocks_to_decompose.push_back(rf_sid);
  insert_into_scope(s, t.scope, t.top, wb_nest, /*after=*/true, rf.buffers);
  return rf_sid;
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_rfactor_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "RFactor", "rfactor", {input("loop", ParamType::Loop), attr("factor_axis", ParamType::Int)}, OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(c, {rfactor(sch.state(), sch.loop_sid(c.inputs[0]), c.attrs[0].as_int())});
      },
      "rfactor(loop, factor_axis) -> BlockRV: factorize the reduction along loop into a new buffer X_rf.",
      "the loop drives only reduction iterators of one reduction block with a recognised combiner (+, *, min, max)",
      "B[vi] += A[vi, vk] over k = k_0 * 4 + k_1; rfactor(k_1, 0)  ->  B_rf[vk_1, vi] partial sums, then B sums B_rf"));
}

}  // namespace tsch::schedule
