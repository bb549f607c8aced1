#include "schedule/analysis.h"

#include <fmt/format.h>

#include <functional>
#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/thread_storage_scope.h"
#include "schedule/error.h"
#include "schedule/primitive/inline_checks.h"
#include "schedule/transform.h"

namespace tsch::schedule {

using namespace ir;

// An undeclared container (TVM's loop_partition blocks) is seen through: the buffers the
// blocks inside it access are its accesses here, so no reader or writer hides in one.
bool reads_buffer(const BlockNode* b, const Buffer& buf) {
  for (const auto& r : arith::effective_access_regions(*b).reads) {
    if (r.buffer == buf) return true;
  }
  return false;
}

bool writes_buffer(const BlockNode* b, const Buffer& buf) {
  for (const auto& w : arith::effective_access_regions(*b).writes) {
    if (w.buffer == buf) return true;
  }
  return false;
}

namespace {

bool touches(const BlockNode* reader, const BlockNode* writer) {
  for (const auto& r : arith::effective_access_regions(*reader).reads) {
    if (writes_buffer(writer, r.buffer)) return true;
  }
  return false;
}

}  // namespace

std::vector<BlockSid> get_producers(const ScheduleState& s, BlockSid block) {
  std::vector<BlockSid> out;
  for (BlockSid b : s.child_blocks(s.scope_block(block))) {
    if (b != block && touches(&s.block_at(block), &s.block_at(b))) out.push_back(b);
  }
  return out;
}

std::vector<BlockSid> get_consumers(const ScheduleState& s, BlockSid block) {
  std::vector<BlockSid> out;
  for (BlockSid b : s.child_blocks(s.scope_block(block))) {
    if (b != block && touches(&s.block_at(b), &s.block_at(block))) out.push_back(b);
  }
  return out;
}

BlockSid other_writer(const ScheduleState& s, BlockSid block, const Buffer& buffer) {
  for (BlockSid other : s.child_blocks(s.scope_block(block))) {
    if (other == block) continue;
    if (writes_buffer(&s.block_at(other), buffer)) return other;
  }
  return BlockSid();
}

bool allocated_in_scope(const ScheduleState& s, BlockSid scope, const Buffer& buffer) {
  for (const auto& b : s.block_at(scope).alloc_buffers) {
    if (b == buffer) return true;
  }
  return false;
}

bool allocated_in_function(const ScheduleState& s, const std::string& func, const Buffer& buffer) {
  if (allocated_in_scope(s, s.root_of(func), buffer)) return true;
  for (BlockSid b : s.blocks_in(func)) {
    if (allocated_in_scope(s, b, buffer)) return true;
  }
  return false;
}

bool is_output_block(const ScheduleState& s, BlockSid block) {
  BlockSid scope = s.scope_block(block);
  for (const auto& w : arith::effective_access_regions(s.block_at(block)).writes) {
    if (!allocated_in_scope(s, scope, w.buffer)) return true;
  }
  return false;
}

namespace {
TSCH_SCHEDULE_ERROR_KIND(kNotCompleteOrReductionBlockError, "NotCompleteOrReductionBlockError",
                         "Not a complete or reduction block",
                         "The block {0} is neither a complete block nor a reduction block");
}  // namespace

void check_complete_or_reduction(const ScheduleState& s, BlockSid block_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  auto refuse = [&](const std::string& why, std::vector<StmtSid> locations) {
    locations.insert(locations.begin(), block_sid);
    fail(s, kNotCompleteOrReductionBlockError, locations,
         "The block {0} is neither a complete block nor a reduction block: " + why);
  };
  for (const auto& w : block->writes) {
    if (BlockSid other = other_writer(s, block_sid, w.buffer))
      refuse(fmt::format("it is not the only writer of {} (block {{1}} writes it too)", w.buffer->name), {other});
  }
  if (block->init) return;
  for (const auto& iv : block->iter_vars) {
    if (iv.type != IterType::DataPar)
      refuse(fmt::format("iterator {} is not data parallel and the block has no T.init", iv.var->name), {});
  }
  for (const auto& w : block->writes)
    for (const auto& r : block->reads)
      if (r.buffer == w.buffer)
        refuse(fmt::format("it reads {}, which it writes, and has no T.init", w.buffer->name), {});
}

// TVM's CheckReductionBlock, its conditions in order.
void check_reduction_block(const ScheduleState& s, BlockSid sid) {
  const BlockNode* block = &s.block_at(sid);
  if (!block->init) fail_not_reduction_block(s, sid, 1);
  const BlockRealizeNode* realize = s.info(sid)->realize;
  std::unordered_set<const VarNode*> loop_vars;
  for (LoopSid l : s.enclosing_loops(sid)) loop_vars.insert(s.loop_at(l).loop_var.get());
  for (const PrimExpr& value : realize->iter_values) {
    if (!is_quasi_affine(value, [&](const VarNode* v) { return loop_vars.count(v) > 0; }))
      fail_not_reduction_block(s, sid, 2);
  }
  for (const IterVar& iv : block->iter_vars) {
    if (iv.type != IterType::DataPar && iv.type != IterType::CommReduce) fail_not_reduction_block(s, sid, 3);
  }
  for (const BufferRegion& w : block->writes) {
    if (other_writer(s, sid, w.buffer)) fail_not_reduction_block(s, sid, 4);
  }
  for_each_stmt(block->body, [&](const Stmt& st) {
    if (auto* store = as<BufferStoreNode>(st); store && reduction_var_in(*block, store->indices))
      fail_not_reduction_block(s, sid, 5);
  });
}

// TVM's CheckCompleteBlock, its conditions in order (the error kind lives with compute_inline,
// which TVM's shares it with).
void check_complete_block(const ScheduleState& s, BlockSid block_sid) {
  const BlockNode& block = s.block_at(block_sid);
  for (const auto& iv : block.iter_vars) {
    if (iv.type != IterType::DataPar) fail_incomplete_block(s, block_sid, 1);
  }
  for (const auto& w : block.writes) {
    if (other_writer(s, block_sid, w.buffer)) fail_incomplete_block(s, block_sid, 2);
  }
  for (const auto& w : block.writes)
    for (const auto& r : block.reads)
      if (r.buffer == w.buffer) fail_incomplete_block(s, block_sid, 3);
}

const StmtNode* block_subtree(const ScheduleState& s, BlockSid block, bool& top_level) {
  StmtSid top = block;
  const StmtNode* top_node = s.info(block)->realize;
  while (true) {
    StmtSid parent = s.info(top)->parent;
    const ForNode* f = s.loop(parent);
    if (!f || f->body.get() != top_node) break;
    top = parent;
    top_node = f;
  }
  BlockSid scope = s.scope_block(block);
  top_level = s.info(top)->parent == scope && as<SeqStmtNode>(peel_decls(s.block_at(scope).body).inner) != nullptr;
  return top_node;
}

arith::Interval relax_bounds(const PrimExpr& e, const arith::VarDomain& dom) {
  auto uses_dom = [&](const PrimExpr& x) {
    return x && uses_var(x, [&](const VarNode* v) { return dom.count(v) > 0; });
  };
  arith::Interval r = arith::eval_interval(e, dom);
  for (size_t round = 0; round <= dom.size() && r.min && (uses_dom(r.min) || uses_dom(r.max)); ++round) {
    r = arith::Interval{arith::eval_interval(r.min, dom).min, arith::eval_interval(r.max, dom).max};
  }
  if (!r.min || !r.max || uses_dom(r.min) || uses_dom(r.max)) return {};
  return r;
}

namespace {

// The loops relaxed: those below `loop_sid` (every loop around the block when 0), and the
// thread-bound loops whose threads share the buffer's storage scope.
arith::VarDomain relaxed_loops(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, const Buffer& buffer,
                               bool relax_threads_by_scope) {
  arith::VarDomain dom;
  bool inside = !loop_sid;
  for (LoopSid l : s.enclosing_loops(block_sid)) {
    if (l == loop_sid) inside = true;
    const ForNode* f = &s.loop_at(l);
    bool thread_shared = relax_threads_by_scope && f->for_kind == ForKind::ThreadBinding &&
                         ir::storage_shared_by_thread(buffer->scope, f->thread_tag);
    if ((inside && l != loop_sid) || thread_shared)
      dom[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
  }
  return dom;
}

// The block's T.where over the relaxed loops: `p < c` (or `c <= p`, `p <= c`, `c < p`)
// bounds an index `outer + p` to `outer + c - 1` (a split by a factor that does not divide):
// the region the block really touches, not the loops' hull.
struct Cut {
  PrimExpr part;   // p
  PrimExpr limit;  // the bound on p, inclusive
  bool upper;
  bool used = false;
};

struct PredicateCuts {
  std::vector<Cut> cuts;
  std::vector<PrimExpr> other_terms;  // terms that bound no single part of an index
};

PredicateCuts predicate_cuts(const PrimExpr& predicate, const std::function<bool(const PrimExpr&)>& uses_dom) {
  PredicateCuts out;
  std::function<void(const PrimExpr&)> collect = [&](const PrimExpr& t) {
    if (!t || is_one(t)) return;
    if (t->kind == ExprKind::And) {
      collect(binary_a(t));
      collect(binary_b(t));
      return;
    }
    if (!uses_dom(t)) return;
    bool lt = t->kind == ExprKind::LT, le = t->kind == ExprKind::LE;
    bool gt = t->kind == ExprKind::GT, ge = t->kind == ExprKind::GE;
    if (!(lt || le || gt || ge)) {
      out.other_terms.push_back(t);
      return;
    }
    PrimExpr x = binary_a(t), y = binary_b(t);
    PrimExpr one = make_int(1, x->dtype);
    if (uses_dom(x) && !uses_dom(y)) {
      out.cuts.push_back({x, lt ? sub(y, one) : gt ? add(y, one) : y, lt || le});
    } else if (uses_dom(y) && !uses_dom(x)) {
      out.cuts.push_back({y, gt ? sub(x, one) : lt ? add(x, one) : x, gt || ge});
    } else {
      out.other_terms.push_back(t);
    }
  };
  collect(predicate);
  return out;
}

// Narrows the hull [a.min, b.max] of dimension `d`'s index (`lo`..`hi`) by the cuts that
// bound a part of it, marking those used.
void apply_cuts(std::vector<Cut>& cuts, const PrimExpr& lo, const PrimExpr& hi, const Buffer& buffer, size_t d,
                const std::function<bool(const PrimExpr&)>& uses_dom, arith::Interval& a, arith::Interval& b) {
  for (Cut& cut : cuts) {
    if (!a.min || !b.min) break;
    const PrimExpr& index = cut.upper ? hi : lo;
    if (cut.part->dtype != index->dtype) continue;
    PrimExpr outer = arith::simplify(sub(index, cut.part));
    if (uses_dom(outer)) continue;
    PrimExpr bound = arith::simplify(add(outer, cut.limit));
    // A term that only stops the block at the buffer's end (`j_0 * 24 + j_1 < 64` for 64
    // elements) excludes nothing the buffer has: the region stays the hull.
    PrimExpr size = ir::cast(bound->dtype, buffer->shape[d]);
    if (cut.upper ? arith::can_prove(make_binary(ExprKind::GE, bound, sub(size, make_int(1, size->dtype))), {})
                  : arith::can_prove(make_binary(ExprKind::LE, bound, make_int(0, bound->dtype)), {})) {
      cut.used = true;
      continue;
    }
    // Kept only where it is provably tighter than the hull.
    if (cut.upper && arith::can_prove(make_binary(ExprKind::LE, bound, b.max), {})) {
      b.max = bound;
      cut.used = true;
    } else if (!cut.upper && arith::can_prove(make_binary(ExprKind::GE, bound, a.min), {})) {
      a.min = bound;
      cut.used = true;
    }
  }
}

// Whether [a.min, b.max] is provably wider than the points the index `lo` (extent
// `extent` per instance) takes: at most (product of the relaxed loops it uses) x extent.
bool hull_gapped(const PrimExpr& lo, const PrimExpr& extent, const arith::VarDomain& dom, const arith::Interval& a,
                 const arith::Interval& b) {
  int64_t points = 1, per_instance, hull, n;
  bool known = as_const_int(arith::simplify(extent), &per_instance) &&
               as_const_int(arith::simplify(add(sub(b.max, a.min), make_int(1, extent->dtype))), &hull);
  for (const auto& [var, range] : dom) {
    if (!uses_var(lo, [&](const VarNode* x) { return x == var; })) continue;
    known = known && as_const_int(arith::simplify(add(sub(range.max, range.min), make_int(1, range.min->dtype))), &n);
    if (known) points *= n;
  }
  return known && hull > points * per_instance;
}

// Whether a term over the relaxed loops the indices use narrowed nothing (a reduction's
// `k_0 * 16 + k_1 < 40`, over loops no index uses, narrows none and does not count).
bool predicate_narrowed_nothing(const PredicateCuts& p, const std::unordered_set<const VarNode*>& index_vars) {
  auto relevant = [&](const PrimExpr& e) {
    return uses_var(e, [&](const VarNode* v) { return index_vars.count(v) > 0; });
  };
  bool unused = false;
  for (const PrimExpr& t : p.other_terms) unused = unused || relevant(t);
  for (const Cut& cut : p.cuts) unused = unused || (!cut.used && relevant(cut.part));
  return unused;
}

}  // namespace

std::vector<arith::Interval> relaxed_region(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid,
                                            const BufferRegion& region, bool* gapped, bool relax_threads_by_scope,
                                            bool* predicate_unused) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  const BlockNode* block = &s.block_at(block_sid);
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) bind[block->iter_vars[i].var.get()] = realize->iter_values[i];
  arith::VarDomain dom = relaxed_loops(s, block_sid, loop_sid, region.buffer, relax_threads_by_scope);
  std::function<bool(const PrimExpr&)> uses_dom = [&](const PrimExpr& e) {
    return uses_var(e, [&](const VarNode* v) { return dom.count(v) > 0; });
  };
  PredicateCuts cuts = predicate_cuts(realize->predicate, uses_dom);
  std::vector<arith::Interval> out;
  std::unordered_set<const VarNode*> index_vars;  // the relaxed loops the indices use
  for (const Range& r : region.region) {
    PrimExpr lo = substitute(r.min, bind);
    for (const PrimExpr& e : {lo, substitute(r.extent, bind)}) {
      for_each_expr(e, [&](const PrimExpr& x) {
        if (auto* v = as<VarNode>(x); v && dom.count(v)) index_vars.insert(v);
      });
    }
    PrimExpr hi = substitute(arith::simplify(sub(add(r.min, r.extent), make_int(1, r.extent->dtype))), bind);
    arith::Interval a = relax_bounds(lo, dom), b = relax_bounds(hi, dom);
    apply_cuts(cuts.cuts, lo, hi, region.buffer, out.size(), uses_dom, a, b);
    out.push_back((!a.min || !b.min) ? arith::Interval{}
                                     : arith::Interval{arith::simplify(a.min), arith::simplify(b.max)});
    if (gapped && a.min && hull_gapped(lo, r.extent, dom, a, b)) *gapped = true;
  }
  if (predicate_unused) *predicate_unused = predicate_narrowed_nothing(cuts, index_vars);
  return out;
}

namespace {

// The degree of `e` in the iterators: 0 free of them, 1 affine, 2 anything else.
int iter_degree(const PrimExpr& e, const std::function<bool(const VarNode*)>& is_iter) {
  if (!uses_var(e, is_iter)) return 0;
  switch (e->kind) {
    case ExprKind::Var:
      return 1;
    case ExprKind::Add:
    case ExprKind::Sub:
      return std::max(iter_degree(binary_a(e), is_iter), iter_degree(binary_b(e), is_iter));
    case ExprKind::Mul:
      return std::min(2, iter_degree(binary_a(e), is_iter) + iter_degree(binary_b(e), is_iter));
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
      int64_t k;
      if (!as_const_int(binary_b(e), &k) || k <= 0) return 2;
      return iter_degree(binary_a(e), is_iter);
    }
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Cast:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  return 2;
}

}  // namespace

bool is_quasi_affine(const PrimExpr& e, const std::function<bool(const VarNode*)>& is_iter) {
  return iter_degree(e, is_iter) <= 1;
}

}  // namespace tsch::schedule
