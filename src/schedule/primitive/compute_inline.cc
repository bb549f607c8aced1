// compute_inline: substitute a block's value into its consumers and delete it (TVM's
// ComputeInline). The block must be a plain `X[v0, v1, ...] = expr` over distinct iterators,
// write one buffer allocated in its scope, and have no init.
//
//   B[vi, vj] = A[vi, vj] * 2          sch.compute_inline(B)        C[vi, vj] = A[vi, vj] * 2 + 1
//   C[vi, vj] = B[vi, vj] + 1       ─────────────────────────▶
#include <fmt/format.h>

#include <functional>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitive/inline_checks.h"
#include "schedule/primitive/reverse_inline_map.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

TSCH_SCHEDULE_ERROR_KIND(
    kIncompleteBlockError, "IncompleteBlockError", "Incomplete block",
    "The block {0} is not a complete block - it violates condition #2.\n" TSCH_COMPLETE_BLOCK_DEFINITION);
TSCH_SCHEDULE_ERROR_KIND(
    kReverseBodyAnalysisError, "BodyAnalysisError.reverse",
    "The block cannot be inlined because its body pattern does not meet the condition for inlining",
    "The body of the inlined block should be in form of\n"
    "    `B[...] = g(i, j, k, A[f(i, j, k, ...)] ...)`,\n"
    "where A is the only buffer the block consumes, whose indices are distinct atomic variables,\n"
    "and there should be no variables other than the index variables), and f is a bijective affine\n"
    "mapping and there should not be predicates in the inlined block. The iter domains of the inlined\n"
    "block should be covered by the producer block.");

void fail_incomplete_block(const ScheduleState& s, BlockSid block, int condition) {
  fail(s, kIncompleteBlockError, {block},
       "The block {0} is not a complete block - it violates condition #" + std::to_string(condition) +
           ".\n" TSCH_COMPLETE_BLOCK_DEFINITION);
}

bool removable_subtree(const ScheduleState& s, BlockSid block_sid) {
  bool top_level = false;
  const StmtNode* subtree = block_subtree(s, block_sid, top_level);
  if (top_level) return true;
  StmtSid top = block_sid;
  while (s.info(top)->node != subtree && s.info(top)->realize != subtree) top = s.info(top)->parent;
  const ForNode* holder = s.loop(s.info(top)->parent);
  return holder && as<SeqStmtNode>(holder->body) != nullptr;
}

namespace {

// The buffers whose data pointers a block of `func` may use (TVM's buffer_var_map): its
// parameters' and those its blocks allocate. A consumer's regions are re-inferred with them,
// so a `T.tvm_access_ptr` of one stays in its signature.
std::vector<Buffer> data_owners_of(const ScheduleState& s, const std::string& func) {
  std::vector<Buffer> out;
  for (const auto& [param, buffer] : s.mod()->prim_func(func)->buffer_map) out.push_back(buffer);
  BlockSid root = s.root_of(func);
  for (BlockSid b : s.blocks_in(func)) {
    for (const auto& a : s.block_at(b).alloc_buffers) out.push_back(a);
  }
  for (const auto& a : s.block_at(root).alloc_buffers) out.push_back(a);
  return out;
}

// Replaces loads of `buffer` by the producer's value at the loaded indices.
class Inliner : public IRMutator {
 public:
  Inliner(const Buffer& buffer, const std::vector<Var>& vars, const PrimExpr& value, const std::vector<Buffer>& owners)
      : buffer_(buffer), vars_(vars), value_(value), owners_(owners) {}

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(out);
    if (load->buffer != buffer_) return out;
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < vars_.size(); ++i) vmap[vars_[i].get()] = load->indices[i];
    return substitute(value_, vmap);
  }
  // A block nested in the consumer (the consumer was blockized) reads what its new body
  // reads: the inlined buffer is gone from its signature (TVM re-derives it too).
  Stmt mutate_Block(const BlockNode& b, const Stmt& self) override {
    Stmt mutated = IRMutator::mutate_Block(b, self);
    auto* block = as<BlockNode>(mutated);
    auto copy = std::make_shared<BlockNode>(*block);
    copy->reads.clear();
    for (const auto& r : arith::infer_access_regions(copy->body, copy->init, {}, copy->match_buffers, owners_).reads) {
      bool own = false;
      for (const auto& a : copy->alloc_buffers) own |= a == r.buffer;
      if (!own) copy->reads.push_back(r);
    }
    return copy;
  }

 private:
  const Buffer& buffer_;
  const std::vector<Var>& vars_;
  const PrimExpr& value_;
  const std::vector<Buffer>& owners_;
};

// A block in `scope` whose T.where reads `buffer` (0 if none): inlining rewrites block bodies
// only, so such a predicate would go on reading a buffer that no longer exists.
BlockSid block_guarded_by(const ScheduleState& s, BlockSid scope, const Buffer& buffer) {
  BlockSid found;
  for_each_stmt(s.block_at(scope).body, [&](const Stmt& st) {
    auto* realize = as<BlockRealizeNode>(st);
    if (!realize || found) return;
    for_each_expr(realize->predicate, [&](const PrimExpr& e) {
      if (auto* load = as<BufferLoadNode>(e); load && load->buffer == buffer) found = sid_of(*realize->block);
    });
  });
  return found;
}

void fail_if_guarded_by(const ScheduleState& s, BlockSid scope, const Buffer& buffer) {
  if (BlockSid guarded = block_guarded_by(s, scope, buffer)) {
    fail_not_supported(s, {guarded}, fmt::format("block {{0}} is guarded by a T.where that reads {}", buffer->name));
  }
}

TSCH_SCHEDULE_ERROR_KIND(
    kOpaqueAccessError, "OpaqueAccessError",
    "ScheduleError: The buffer to be inlined has opaque access (e.g. `B.data`), or its subregion is matched "
    "into other blocks",
    "The buffer to be inlined has opaque access (e.g. `B.data`), or its subregion is matched into other blocks: {0}");

// TVM's opaque-access check: inlining rewrites loads and stores only, so a buffer some block
// matches a part of (match_buffer) or uses by its data pointer cannot go away.
void fail_if_opaque(const ScheduleState& s, BlockSid scope, const Buffer& buffer) {
  bool opaque = false;
  for_each_stmt(s.block_at(scope).body, [&](const Stmt& st) {
    if (auto* block = as<BlockNode>(st)) {
      for (const auto& m : block->match_buffers) opaque |= m.source.buffer == buffer;
    }
  });
  for_each_expr(s.block_at(scope).body, [&](const PrimExpr& e) { opaque |= e.get() == buffer->data.get(); });
  if (opaque) fail(s, kOpaqueAccessError, {scope});
}

TSCH_SCHEDULE_ERROR_KIND(kHasInitBlock, "HasInitBlock", "The block has init statement",
                         "ScheduleError: The block has init statement: {0}");
TSCH_SCHEDULE_ERROR_KIND(
    kBodyAnalysisError, "BodyAnalysisError",
    "The block cannot be inlined because its body pattern does not meet the condition for inlining",
    "The body of the inlined block should be in form of\n"
    "    'A[f(i, j, k, ...)] = g(i, j, k, ...)',\n"
    "where the store indices mapping f on the left are bijective affine.");
TSCH_SCHEDULE_ERROR_KIND(
    kOnlyLeafError, "OnlyLeafError", "Cannot remove the only leaf in the scope",
    "Block {0} is the only leaf in the scope {1}, which cannot be removed; Otherwise the scope will be empty.");
TSCH_SCHEDULE_ERROR_KIND(kSelfReadError, "SelfReadError", "The inlined block reads the buffer it writes",
                         "The inlined block {0} reads the buffer it writes");
TSCH_SCHEDULE_ERROR_KIND(
    kNonSingleProducerError, "NonSingleProducerError",
    "The consumer block to be inlined is required to have only a single producer block, and the producer "
    "block should be a complete block who has only a single consumer",
    "The consumer block {0} to be inlined is required to have only a single producer block, and the "
    "producer block should be a complete block who has only a single consumer");

}  // namespace

void compute_inline(ScheduleState& s, BlockSid block_sid) {
  // Step 1. Check the block's shape.
  const BlockNode* block = &s.block_at(block_sid);
  if (!s.info(block_sid)->parent) fail(s, kRootBlockError, {block_sid});
  if (block->init) fail(s, kHasInitBlock, {block_sid});
  auto* store = as<BufferStoreNode>(block->body);
  if (!store) fail(s, kBodyAnalysisError, {block_sid});
  std::vector<Var> index_vars;
  for (const auto& idx : store->indices) {
    auto* v = as<VarNode>(idx);
    bool is_iter = false;
    for (const auto& iv : block->iter_vars) is_iter |= iv.var.get() == v;
    bool repeated = false;
    for (const auto& seen : index_vars) repeated |= seen.get() == v;
    if (!v || !is_iter || repeated) fail(s, kBodyAnalysisError, {block_sid});
    index_vars.push_back(std::static_pointer_cast<const VarNode>(idx));
  }
  BlockSid scope = s.scope_block(block_sid);
  if (!allocated_in_scope(s, scope, store->buffer)) fail(s, kNotOutputBlockError, {block_sid});
  if (s.child_blocks(scope).size() == 1) fail(s, kOnlyLeafError, {block_sid, scope});
  for (const auto& r : block->reads) {
    if (r.buffer == store->buffer) fail(s, kSelfReadError, {block_sid});
  }
  if (other_writer(s, block_sid, store->buffer)) fail(s, kIncompleteBlockError, {block_sid});

  // The block with the loops that hold nothing else must be a top-level statement of its scope.
  // The block leaves with the loops that hold nothing else; a loop it shares with other
  // blocks stays for them (TVM's LeafBlockRemovalPlan).
  if (!removable_subtree(s, block_sid))
    fail_not_supported(s, {block_sid}, "inlining block {0}, the whole body of its scope");
  fail_if_opaque(s, scope, store->buffer);

  // Step 2. Rewrite every consumer in the scope — its body, and its T.where where that reads
  // the buffer (TVM inlines there too) —, drop the block and its buffer.
  std::vector<Buffer> owners = data_owners_of(s, s.info(block_sid)->func);
  Inliner inliner(store->buffer, index_vars, store->value, owners);
  // A consumer that is an undeclared container (loop_partition's blocks) stays as it is, its
  // signature empty; the blocks inside it that read the buffer are rewritten instead (TVM's
  // inliner rewrites the whole scope). Innermost first: a block's regions are re-derived from
  // those of the blocks in it.
  std::vector<BlockSid> direct = get_consumers(s, block_sid);
  std::vector<BlockSid> consumers;
  std::vector<BlockSid> order = s.blocks_in(s.info(block_sid)->func);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    BlockSid b = *it;
    const BlockRealizeNode* r = s.info(b)->realize;
    if (!r || !is_under(s, b, scope) || b == block_sid) continue;
    bool direct_consumer = std::find(direct.begin(), direct.end(), b) != direct.end();
    bool container = arith::is_undeclared_container(s.block_at(b));
    bool in_container = false;
    for (BlockSid c : direct)
      in_container = in_container || (is_under(s, b, c) && arith::is_undeclared_container(s.block_at(c)));
    bool guarded = false;
    for_each_expr(r->predicate, [&](const PrimExpr& e) {
      if (auto* load = as<BufferLoadNode>(e); load && load->buffer == store->buffer) guarded = true;
    });
    if ((!container && (direct_consumer || (in_container && reads_buffer(&s.block_at(b), store->buffer)))) || guarded)
      consumers.push_back(b);
  }
  for (BlockSid c : consumers) {
    const BlockNode* cb = &s.block_at(c);
    auto copy = std::make_shared<BlockNode>(*cb);
    copy->body = inliner.mutate(cb->body);
    if (cb->init) copy->init = inliner.mutate(cb->init);
    arith::AccessRegions regions =
        arith::infer_access_regions(copy->body, copy->init, copy->alloc_buffers, copy->match_buffers, owners);
    // TVM re-derives the whole signature of a block that read the inlined buffer.
    copy->reads = regions.reads;
    copy->writes = regions.writes;
    const BlockRealizeNode* r = s.info(c)->realize;
    s.replace(c, std::make_shared<BlockRealizeNode>(r->iter_values, inliner.mutate(r->predicate), copy));
  }
  remove_from_scope(s, block_sid, store->buffer);
}

namespace {

// Step 1's findings: the consumer `D[...] = f(X[...])`, its single producer of X, and the
// element of X it loads.
struct ReverseInlineTarget {
  BlockSid block_sid, p_sid;
  const BlockNode* c = nullptr;              // the consumer
  const BlockNode* p = nullptr;              // the producer
  const BufferStoreNode* store = nullptr;    // the consumer's store into D
  const BufferStoreNode* p_store = nullptr;  // the producer's store into X
  const BufferStoreNode* p_init = nullptr;   // the producer's init store, if a reduction
  Buffer x;
  std::vector<PrimExpr> load_indices;  // where the consumer loads X
};

// A producer with an init (a reduction) takes over a consumer that only copies its result
// (TVM's RecursionResolver): its init and update then accumulate in the copy's place.
// Anything else done to the result would be applied at every step of the reduction.
void check_reduction_producer(const ScheduleState& s, ReverseInlineTarget& t) {
  auto* copied = as<BufferLoadNode>(t.store->value);
  t.p_init = t.p->init ? as<BufferStoreNode>(t.p->init) : nullptr;
  if (t.p->init && (!copied || copied->buffer != t.x || !t.p_init || t.p_init->buffer != t.x))
    fail(s, kNonSingleProducerError, {t.block_sid, t.p_sid});
  if (!t.p->init) return;
  bool same_element = true;  // the update reads X only at the element it writes
  for_each_expr(t.p_store->value, [&](const PrimExpr& e) {
    auto* l = as<BufferLoadNode>(e);
    if (!l || l->buffer != t.x) return;
    for (size_t d = 0; d < l->indices.size(); ++d)
      same_element = same_element && expr_deep_equal(l->indices[d], t.p_store->indices[d]);
  });
  if (!same_element) fail(s, kNonSingleProducerError, {t.block_sid, t.p_sid});
}

// Every load of X in the consumer reads the same element (C[v] = B[f(v)] + B[f(v)] is fine).
std::vector<PrimExpr> single_load_indices(const ScheduleState& s, const ReverseInlineTarget& t) {
  std::vector<const BufferLoadNode*> loads;
  for_each_expr(t.store->value, [&](const PrimExpr& e) {
    if (auto* l = as<BufferLoadNode>(e); l && l->buffer == t.x) loads.push_back(l);
  });
  if (loads.empty()) fail(s, kReverseBodyAnalysisError, {t.block_sid});
  for (const BufferLoadNode* l : loads) {
    bool same = l->indices.size() == loads[0]->indices.size();
    for (size_t d = 0; same && d < l->indices.size(); ++d) same = expr_deep_equal(l->indices[d], loads[0]->indices[d]);
    if (!same) fail(s, kReverseBodyAnalysisError, {t.block_sid});
  }
  return loads[0]->indices;
}

// The consumer, a plain store, with a single producer that stores X, which only it reads.
ReverseInlineTarget check_consumer_and_producer(const ScheduleState& s, BlockSid block_sid) {
  ReverseInlineTarget t;
  t.block_sid = block_sid;
  t.c = &s.block_at(block_sid);
  if (!s.info(block_sid)->parent) fail(s, kRootBlockError, {block_sid});
  if (t.c->init) fail(s, kHasInitBlock, {block_sid});
  t.store = as<BufferStoreNode>(t.c->body);
  if (!t.store) fail(s, kReverseBodyAnalysisError, {block_sid});
  std::vector<BlockSid> producers = get_producers(s, block_sid);
  if (producers.size() != 1) fail(s, kNonSingleProducerError, {block_sid});
  t.p_sid = producers[0];
  t.p = &s.block_at(t.p_sid);
  t.p_store = as<BufferStoreNode>(t.p->body);
  if (!t.p_store) fail(s, kNonSingleProducerError, {block_sid, t.p_sid});
  t.x = t.p_store->buffer;
  // The producer's only consumer (TVM's condition): its result stops being written.
  for (BlockSid b : s.blocks_in(s.info(block_sid)->func)) {
    if (b == block_sid || b == t.p_sid || is_under(s, block_sid, b)) continue;
    for (const auto& r : s.block_at(b).reads) {
      if (r.buffer == t.x && !is_under(s, t.p_sid, b)) fail(s, kNonSingleProducerError, {block_sid, t.p_sid});
    }
  }
  check_reduction_producer(s, t);
  t.load_indices = single_load_indices(s, t);
  return t;
}

// The consumer's iterators from a load that is no plain list of them: the inverse of a
// bijective affine load that reads exactly the elements the producer writes; else digits of
// them (`B[v // 16, v % 16]` over 127 values of v), inverted digit by digit where that is
// proved exact.
std::unordered_map<const VarNode*, PrimExpr> affine_load_inverse(const ScheduleState& s, const ReverseInlineTarget& t) {
  const std::vector<PrimExpr>& load_indices = t.load_indices;
  const BlockNode* c = t.c;
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  arith::LoopExtents extents;
  for (const auto& iv : c->iter_vars) {
    int64_t extent;
    if (!is_zero(iv.dom.min) || !as_const_int(iv.dom.extent, &extent))
      fail(s, kReverseBodyAnalysisError, {t.block_sid});
    extents[iv.var.get()] = extent;
  }
  arith::VarDomain pdom, cdom;
  for (const auto& iv : t.p->iter_vars) pdom[iv.var.get()] = arith::interval_of(iv.dom);
  for (const auto& iv : c->iter_vars) cdom[iv.var.get()] = arith::interval_of(iv.dom);
  auto refuse_or_digits = [&](const std::function<void()>& refuse) {
    vmap = digits_inverse(load_indices, c->iter_vars, t.p_store->indices);
    if (vmap.empty() || !digits_invert_load(vmap, load_indices, t.p_store->indices, c->iter_vars, pdom, cdom)) refuse();
  };
  arith::IterMapResult map = arith::detect_iter_map(load_indices, extents, /*require_bijective=*/true);
  bool exact = map.ok;
  // The elements read must be exactly those written: a producer writing more would wrap
  // into other consumer iterations through the inverse's divisions.
  for (size_t d = 0; exact && d < load_indices.size(); ++d) {
    arith::Interval w = arith::eval_interval(t.p_store->indices[d], pdom);
    int64_t lo, hi;
    exact = w.min && w.max && as_const_int(arith::simplify(w.min), &lo) && as_const_int(arith::simplify(w.max), &hi) &&
            lo == map.sums[d].base && hi == map.sums[d].base + map.sums[d].extent - 1;
  }
  if (!map.ok) {
    refuse_or_digits([&] { fail(s, kReverseBodyAnalysisError, {t.block_sid}); });
  } else if (!exact) {
    refuse_or_digits([&] {
      fail_not_supported(
          s, {t.block_sid, t.p_sid},
          "block {1} writes other elements of " + t.x->name + " than block {0} reads through its affine load");
    });
  } else {
    std::vector<std::pair<const VarNode*, int64_t>> loops;
    for (const auto& iv : c->iter_vars) loops.emplace_back(iv.var.get(), extents.at(iv.var.get()));
    vmap = arith::inverse_iter_map_fused(map, t.p_store->indices, loops);
    if (vmap.empty()) vmap = arith::inverse_iter_map(map, t.p_store->indices);
    for (const auto& iv : c->iter_vars) {
      if (!vmap.count(iv.var.get())) vmap[iv.var.get()] = iv.dom.min;  // an iterator of extent 1
    }
  }
  return vmap;
}

// vmap: each consumer iterator as an expression of the producer's iterators (through the
// producer's store indices). Loads at the iterators themselves map directly; otherwise the
// load must be a bijective affine map of the iterators (TVM's affine load), inverted.
std::unordered_map<const VarNode*, PrimExpr> consumer_iter_map(const ScheduleState& s, const ReverseInlineTarget& t) {
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  bool direct = t.load_indices.size() == t.c->iter_vars.size();
  for (size_t d = 0; direct && d < t.load_indices.size(); ++d) {
    auto* v = as<VarNode>(t.load_indices[d]);
    bool is_iter = false;
    for (const auto& iv : t.c->iter_vars) is_iter |= iv.var.get() == v;
    direct = v && is_iter && !vmap.count(v);
    if (direct) vmap[v] = t.p_store->indices[d];
  }
  if (!direct) vmap = affine_load_inverse(s, t);
  for (const auto& iv : t.c->iter_vars) {
    if (!vmap.count(iv.var.get())) fail(s, kReverseBodyAnalysisError, {t.block_sid});
  }
  return vmap;
}

// A T.where that only restates an iterator's domain (`i_0 * 4 + i_1 < 10` after an
// imperfect split of vi's loop) drops out with the consumer's loops; any other guard
// would have to move to the producer, which is not supported.
bool restates_domain(const PrimExpr& e, const BlockNode& c, const BlockRealizeNode& cr) {
  if (is_one(e)) return true;
  if (auto* both = as<AndNode>(e)) return restates_domain(both->a, c, cr) && restates_domain(both->b, c, cr);
  auto* lt = as<LTNode>(e);
  int64_t bound;
  if (!lt || !as_const_int(lt->b, &bound)) return false;
  for (size_t k = 0; k < c.iter_vars.size(); ++k)
    if (expr_deep_equal(lt->a, cr.iter_values[k]) && is_zero(c.iter_vars[k].dom.min) &&
        is_const_int(c.iter_vars[k].dom.extent, bound))
      return true;
  return false;
}

// The producer iterations the consumer has: each consumer iterator's domain must lie inside
// the range of the producer index it reads; where it is smaller, a guard on the producer.
std::vector<PrimExpr> coverage_guards(const ScheduleState& s, const ReverseInlineTarget& t,
                                      const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  arith::VarDomain producer_dom;
  for (const auto& iv : t.p->iter_vars) producer_dom[iv.var.get()] = arith::interval_of(iv.dom);
  const BlockRealizeNode* pr = s.info(t.p_sid)->realize;
  std::unordered_map<const VarNode*, PrimExpr> producer_binding;
  for (size_t k = 0; k < t.p->iter_vars.size(); ++k) producer_binding[t.p->iter_vars[k].var.get()] = pr->iter_values[k];
  std::vector<PrimExpr> guards;
  for (const auto& iv : t.c->iter_vars) {
    arith::Interval reach = arith::eval_interval(vmap.at(iv.var.get()), producer_dom);
    PrimExpr dmin = iv.dom.min,
             dmax = arith::simplify(sub(add(iv.dom.min, iv.dom.extent), make_int(1, iv.dom.extent->dtype)));
    auto prove = [](const PrimExpr& cond) { return arith::can_prove(cond, {}); };
    bool covers = reach.min && reach.max && prove(make_binary(ExprKind::LE, reach.min, dmin)) &&
                  prove(make_binary(ExprKind::GE, reach.max, dmax));
    if (!covers)
      fail_not_supported(
          s, {t.block_sid, t.p_sid},
          fmt::format("iterator {} of block {{0}} ranges over {} values, which block {{1}} does not all write",
                      iv.var->name, ir::script(iv.dom.extent)));
    // TVM simplifies the bound over the producer's iterators first, then over its loops.
    PrimExpr at = tvm_sum_order(substitute(tvm_sum_order(vmap.at(iv.var.get())), producer_binding));
    if (!prove(make_binary(ExprKind::GE, reach.min, dmin)))
      guards.push_back(arith::simplify(make_binary(ExprKind::GE, at, cast(at->dtype, dmin))));
    if (!prove(make_binary(ExprKind::LE, reach.max, dmax)))
      guards.push_back(
          arith::simplify(make_binary(ExprKind::LT, at, cast(at->dtype, arith::simplify(add(dmin, iv.dom.extent))))));
  }
  return tvm_fold_guards(std::move(guards));
}

// The producer will run the consumer's store once per element it writes, so the consumer
// must run exactly once per such element: unguarded, and each iterator's domain inside the
// range of the producer index it reads (a consumer over 10 of the 12 elements written
// stores only for the producer's iterations that write those 10: a T.where on the producer,
// TVM's form for an overcomputing producer). The producer's predicate: its own guard first;
// a new condition it already states is not repeated.
PrimExpr producer_predicate(const ScheduleState& s, const ReverseInlineTarget& t,
                            const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  if (!restates_domain(s.info(t.block_sid)->realize->predicate, *t.c, *s.info(t.block_sid)->realize))
    fail_not_supported(s, {t.block_sid}, "block {0} is guarded by T.where, which the producer would have to take over");
  std::vector<PrimExpr> guards = coverage_guards(s, t, vmap);
  const BlockRealizeNode* pr = s.info(t.p_sid)->realize;
  std::vector<PrimExpr> stated;
  for (const PrimExpr& e : conjuncts(pr->predicate)) {
    if (!is_one(e)) stated.push_back(e);
  }
  PrimExpr predicate = pr->predicate;
  for (const PrimExpr& g : guards) {
    bool known = false;
    for (const PrimExpr& e : stated) known |= expr_deep_equal(e, g);
    if (known) continue;
    predicate = is_one(predicate) ? g : make_binary(ExprKind::And, predicate, g);
  }
  return predicate;
}

// The consumer and X can go: nothing else writes D, X is allocated in the scope, and nothing
// else holds on to X (a T.where reading it, a match_buffer or its data pointer).
void check_consumer_removable(const ScheduleState& s, const ReverseInlineTarget& t) {
  if (other_writer(s, t.block_sid, t.store->buffer)) fail(s, kIncompleteBlockError, {t.block_sid});
  if (!allocated_in_scope(s, s.scope_block(t.block_sid), t.x)) fail(s, kNotOutputBlockError, {t.p_sid});
  // The block leaves with the loops that hold nothing else; a loop it shares with other
  // blocks stays for them (TVM's LeafBlockRemovalPlan).
  if (!removable_subtree(s, t.block_sid))
    fail_not_supported(s, {t.block_sid}, "inlining block {0}, the whole body of its scope");
  fail_if_guarded_by(s, s.scope_block(t.block_sid), t.x);
  fail_if_opaque(s, s.scope_block(t.block_sid), t.x);
}

// Replaces loads of `buffer` by `value`.
class LoadToValue : public IRMutator {
 public:
  LoadToValue(const Buffer& b, const PrimExpr& v) : buffer_(b), value_(v) {}

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& l, const PrimExpr& self) override {
    return l.buffer == buffer_ ? value_ : IRMutator::mutate_BufferLoad(l, self);
  }

 private:
  const Buffer& buffer_;
  const PrimExpr& value_;
};

// Redirects loads of `from` to `to` at the indices `at`.
class Redirect : public IRMutator {
 public:
  Redirect(const Buffer& f, const Buffer& t, const std::vector<PrimExpr>& a) : from_(f), to_(t), at_(a) {}

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& l, const PrimExpr& self) override {
    if (l.buffer != from_) return IRMutator::mutate_BufferLoad(l, self);
    return std::make_shared<BufferLoadNode>(l.dtype, to_, at_);
  }

 private:
  const Buffer& from_;
  const Buffer& to_;
  const std::vector<PrimExpr>& at_;
};

// Step 2's block: the producer storing f(value) into the consumer's buffer.
std::shared_ptr<BlockNode> inlined_producer(const ReverseInlineTarget& t,
                                            const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  const BufferStoreNode* store = t.store;
  std::vector<PrimExpr> new_indices;
  for (const auto& idx : store->indices) new_indices.push_back(substitute(idx, vmap));
  auto new_p = std::make_shared<BlockNode>(*t.p);
  if (t.p->init) {
    // The reduction accumulates in the copy's element: its loads of X there read it too.
    Redirect redirect(t.x, store->buffer, new_indices);
    new_p->body = std::make_shared<BufferStoreNode>(store->buffer, redirect.mutate(t.p_store->value), new_indices);
    new_p->init = std::make_shared<BufferStoreNode>(store->buffer, redirect.mutate(t.p_init->value), new_indices);
  } else {
    LoadToValue to_value(t.x, t.p_store->value);
    PrimExpr new_value = substitute(to_value.mutate(store->value), vmap);
    new_p->body = std::make_shared<BufferStoreNode>(store->buffer, new_value, new_indices);
  }
  arith::AccessRegions regions =
      arith::infer_access_regions(new_p->body, new_p->init, new_p->alloc_buffers, new_p->match_buffers);
  new_p->reads = regions.reads;
  new_p->writes = regions.writes;
  return new_p;
}

}  // namespace

// reverse_compute_inline: fold a consumer `D[...] = f(X[v0, v1, ...])` into the single block
// producing X, which then stores f of its value straight into D (TVM's ReverseComputeInline).
void reverse_compute_inline(ScheduleState& s, BlockSid block_sid) {
  // Step 1. Check the consumer, its single producer and the load connecting them.
  ReverseInlineTarget t = check_consumer_and_producer(s, block_sid);
  std::unordered_map<const VarNode*, PrimExpr> vmap = consumer_iter_map(s, t);
  PrimExpr predicate = producer_predicate(s, t, vmap);
  check_consumer_removable(s, t);
  // Step 2. The producer stores f(value) into the consumer's buffer; the consumer goes.
  const BlockRealizeNode* pr = s.info(t.p_sid)->realize;
  s.replace(t.p_sid, std::make_shared<BlockRealizeNode>(pr->iter_values, predicate, inlined_producer(t, vmap)));
  remove_from_scope(s, block_sid, t.x);
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

void register_compute_inline_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "ComputeInline", "compute_inline", {input("block", ParamType::Block)}, OutputForm::None,
      [](Schedule& sch, InstructionCall& c) { compute_inline(sch.state(), sch.block_sid(c.inputs[0])); },
      "compute_inline(block): substitute the block's value into its consumers and remove it.",
      "the block writes one buffer with a single BufferStore whose indices are its iterators; it is not an "
      "output of the function; it is not a reduction",
      "B[vi] = A[vi] * 2; C[vi] = B[vi] + 1  ->  C[vi] = A[vi] * 2 + 1 (block B and buffer B removed)"));
  kinds.push_back(define_kind(
      "ReverseComputeInline", "reverse_compute_inline", {input("block", ParamType::Block)}, OutputForm::None,
      [](Schedule& sch, InstructionCall& c) { reverse_compute_inline(sch.state(), sch.block_sid(c.inputs[0])); },
      "reverse_compute_inline(block): fold a consumer into its single producer.",
      "the block reads exactly one intermediate buffer, with indices that invert its producer's; the producer "
      "is not a reduction",
      "B[vi] = A[vi] * 2; C[vi] = B[vi] + 1  ->  B's block writes C[vi] = A[vi] * 2 + 1"));
}

}  // namespace tsch::schedule
