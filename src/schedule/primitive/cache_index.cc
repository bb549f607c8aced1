// cache_index: precompute the index arithmetic of a block into buffers (TVM's CacheIndex).
// The pure integer or float computations of the block's stores that only its iterators feed
// (found as TVM's common-subexpression analysis finds them: the largest eligible ones, those
// seen fewer than cse_thresh times replaced by their direct subexpressions) are each computed
// by a block "index_<k>" over the iterators' ranges into a buffer index_var_<k>, placed before
// the block at the top level of its scope; the block loads them instead.
//
//   for i, j in T.grid(80, 80):                  for ax0, ax1 in T.grid(80, 80):
//     with T.block("A"):                           with T.block("index_0"): index_var_0[v0, v1] = v0 // 4 + v1 // 4
//       B[vi, vj] = A[vi // 4 + vj // 4]  ->     for i, j in T.grid(80, 80):
//                                                  with T.block("A"): B[vi, vj] = A[index_var_0[vi, vj]]
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// TVM's CalculateExprComplexity: the number of expression nodes.
size_t complexity(const PrimExpr& e) {
  struct Counter : IRVisitor {
    size_t n = 0;
    // Whole-node on purpose: every node counts, whatever its kind.
    void visit(const PrimExpr& x) override {
      ++n;
      visit_children(x);
    }
  } c;
  c.visit(e);
  return c.n;
}

// Whether the node itself (not its operands) has no side effect: every kind is decided here,
// so a new kind fails to compile rather than passing as pure.
bool node_is_pure(const PrimExpr& x, const std::unordered_set<std::string>& pure_calls) {
  switch (x->kind) {
    case ExprKind::BufferLoad:
    case ExprKind::Let:
      return false;
    case ExprKind::Call:
      return pure_calls.count(as<CallNode>(x)->op) > 0;
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
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
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
      return true;
  }
  return true;
}

// TVM's SideEffect(e) <= kPure: no loads, only pure intrinsics.
bool is_pure(const PrimExpr& e) {
  static const std::unordered_set<std::string> pure_calls = {
      "exp",         "exp2",       "exp10",       "log",         "log2",       "log10",      "log1p",
      "sqrt",        "rsqrt",      "tanh",        "sigmoid",     "fabs",       "floor",      "ceil",
      "round",       "trunc",      "nearbyint",   "sin",         "cos",        "tan",        "asin",
      "acos",        "atan",       "sinh",        "cosh",        "erf",        "isnan",      "isinf",
      "isfinite",    "popcount",   "likely",      "pow",         "atan2",      "fmod",       "if_then_else",
      "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right"};
  struct Check : IRVisitor {
    bool pure = true;
    // Whole-node on purpose: the walk stops at the first impure node, whatever its kind.
    void visit(const PrimExpr& x) override {
      if (!pure || !x) return;
      pure = node_is_pure(x, pure_calls);
      if (pure) visit_children(x);
    }
  } c;
  c.visit(e);
  return c.pure;
}

bool is_atom(const PrimExpr& e) {
  return e->kind == ExprKind::IntImm || e->kind == ExprKind::FloatImm || e->kind == ExprKind::StringImm ||
         e->kind == ExprKind::Var;
}

// The cache's eligibility predicate (TVM's IsEligibleComputation in cache_index.cc).
bool eligible(const PrimExpr& e) {
  return e->kind != ExprKind::Ramp && e->kind != ExprKind::Broadcast && complexity(e) > 1 && is_pure(e);
}

// The direct children of an expression, in TVM's visiting order.
std::vector<PrimExpr> children(const PrimExpr& e) {
  struct Collect : IRVisitor {
    std::vector<PrimExpr> out;
    // Whole-node on purpose: every child is collected, whatever its kind.
    void visit(const PrimExpr& x) override { out.push_back(x); }
    void run(const PrimExpr& x) { visit_children(x); }
  } c;
  c.run(e);
  return c.out;
}

// TVM's EquivalentTerms with identify_equiv_terms: equal once simplified.
struct Normalized {
  std::vector<std::pair<PrimExpr, PrimExpr>> memo;  // (term, simplified), by identity
  PrimExpr of(const PrimExpr& e) {
    for (const auto& [k, v] : memo) {
      if (k.get() == e.get()) return v;
    }
    PrimExpr n = arith::simplify(e);
    memo.emplace_back(e, n);
    return n;
  }
  bool equivalent(const PrimExpr& a, const PrimExpr& b) { return expr_deep_equal(of(a), of(b)); }
};

// TVM's ComputationsDoneBy: the largest eligible computations of `e` (atoms have none), with
// how many times each is seen (syntactically equal terms counted together).
void computations_done_by(const PrimExpr& e, std::vector<std::pair<PrimExpr, size_t>>& table) {
  if (!e || is_atom(e)) return;
  if (eligible(e)) {
    for (auto& [k, n] : table) {
      if (expr_deep_equal(k, e)) {
        ++n;
        return;
      }
    }
    table.emplace_back(e, 1);
    return;
  }
  for (const PrimExpr& c : children(e)) computations_done_by(c, table);
}

// TVM's DirectSubexpr: the eligible subexpressions nearest below `e`.
void direct_subexprs(const PrimExpr& e, std::vector<PrimExpr>& out) {
  for (const PrimExpr& c : children(e)) {
    if (eligible(c)) {
      out.push_back(c);
    } else {
      direct_subexprs(c, out);
    }
  }
}

// The computations of one store to cache, appended to `exprs` in the order TVM's
// IndexInfoCollector finds them.
void collect_store(const BufferStoreNode* store, size_t thresh, Normalized& norm, std::vector<PrimExpr>& exprs) {
  std::vector<std::pair<PrimExpr, size_t>> syntactic;
  computations_done_by(store->value, syntactic);
  for (const PrimExpr& i : store->indices) computations_done_by(i, syntactic);
  // Equivalent terms merged (the first seen represents its class). TVM then walks them in its
  // hash table's order; here largest first, so that a term's count has every larger term's
  // share when it is looked at.
  std::vector<std::pair<PrimExpr, size_t>> semantic;
  for (const auto& [e, n] : syntactic) {
    auto it =
        std::find_if(semantic.begin(), semantic.end(), [&](const auto& p) { return norm.equivalent(p.first, e); });
    if (it != semantic.end()) {
      it->second += n;
    } else {
      semantic.emplace_back(e, n);
    }
  }
  std::stable_sort(semantic.begin(), semantic.end(),
                   [](const auto& a, const auto& b) { return complexity(a.first) > complexity(b.first); });
  for (size_t i = 0; i < semantic.size(); ++i) {
    if (semantic[i].second >= thresh) continue;
    std::vector<PrimExpr> subs;
    direct_subexprs(semantic[i].first, subs);
    size_t count = semantic[i].second;
    for (const PrimExpr& sub_expr : subs) {
      auto it = std::find_if(semantic.begin(), semantic.end(),
                             [&](const auto& p) { return norm.equivalent(p.first, sub_expr); });
      if (it != semantic.end()) {
        it->second += count;
        continue;
      }
      size_t c = complexity(sub_expr);
      auto at = std::lower_bound(semantic.begin(), semantic.end(), c,
                                 [](const auto& p, size_t v) { return complexity(p.first) >= v; });
      semantic.insert(at, {sub_expr, count});
    }
  }
  // In post order of the stored value, each term equivalent to a kept computation.
  struct PostOrder : IRVisitor {
    std::vector<PrimExpr> nodes;
    // Whole-node on purpose: every node is listed, whatever its kind.
    void visit(const PrimExpr& x) override {
      if (!x) return;
      visit_children(x);
      nodes.push_back(x);
    }
  } walk;
  walk.visit(store->value);
  for (const PrimExpr& node : walk.nodes) {
    for (const auto& [e, n] : semantic) {
      if (n < thresh || !norm.equivalent(node, e)) continue;
      if (std::none_of(exprs.begin(), exprs.end(), [&](const PrimExpr& x) { return x.get() == e.get(); }))
        exprs.push_back(e);
    }
  }
  std::stable_sort(exprs.begin(), exprs.end(),
                   [](const PrimExpr& a, const PrimExpr& b) { return complexity(a) > complexity(b); });
}

// The stores of a block (its init's first), not descending into nested blocks.
void stores_of(const Stmt& st, std::vector<const BufferStoreNode*>& out) {
  struct Walk : IRVisitor {
    std::vector<const BufferStoreNode*>* out;
    using IRVisitor::visit;
    // Whole-node on purpose: no expression, whatever its kind, holds a store.
    void visit(const PrimExpr&) override {}
    void visit_BufferStore(const BufferStoreNode& store) override {
      out->push_back(&store);
      IRVisitor::visit_BufferStore(store);
    }
  } w;
  w.out = &out;
  w.visit(st);
}

// Replaces the terms equivalent to `term` (outermost first) by `load`.
class TermReplacer : public IRMutator {
 public:
  TermReplacer(const PrimExpr& term, const PrimExpr& load, Normalized& norm) : term_(term), load_(load), norm_(norm) {}
  using IRMutator::mutate;
  // Whole-node on purpose: a term of any kind may be equivalent to `term`.
  PrimExpr mutate(const PrimExpr& e) override {
    if (e && norm_.equivalent(e, term_)) return load_;
    return mutate_children(e);
  }

 private:
  PrimExpr term_, load_;
  Normalized& norm_;
};

// Rewrites each store of a block to load the caches instead of the computations they hold
// (largest computation first).
class StoreRewriter : public IRMutator {
 public:
  StoreRewriter(const std::vector<PrimExpr>& exprs, const std::vector<PrimExpr>& loads, Normalized& norm)
      : exprs_(exprs), loads_(loads), norm_(norm) {}
  using IRMutator::mutate;

 protected:
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(n, self);
    for (size_t i = 0; i < exprs_.size(); ++i) {
      TermReplacer r(exprs_[i], loads_[i], norm_);
      out = r.mutate(out);
    }
    return out;
  }

 private:
  const std::vector<PrimExpr>& exprs_;
  const std::vector<PrimExpr>& loads_;
  Normalized& norm_;
};

// The variables a computation uses (post order, first use), and whether it divides by
// something other than a nonzero constant.
struct VarUses {
  std::vector<const VarNode*> vars;
  bool bad_division = false;
};

class VarUseCollector : public IRVisitor {
 public:
  VarUses u;

 protected:
  void visit_Var(const VarNode& v) override {
    if (std::find(u.vars.begin(), u.vars.end(), &v) == u.vars.end()) u.vars.push_back(&v);
  }
#define TSCH_X(K)                             \
  void visit_##K(const K##Node& n) override { \
    IRVisitor::visit_##K(n);                  \
    division_by(n.b);                         \
  }
  TSCH_X(Div)
  TSCH_X(Mod)
  TSCH_X(FloorDiv)
  TSCH_X(FloorMod)
#undef TSCH_X

 private:
  void division_by(const PrimExpr& divisor) {
    int64_t d = 0;
    if (!as_const_int(divisor, &d) || d == 0) u.bad_division = true;
  }
};

VarUses var_uses(const PrimExpr& e) {
  VarUseCollector w;
  w.visit(e);
  return w.u;
}

// Step 1. Check the arguments, and that the block holds no other block (whose stores TVM
// would treat by where they fall).
void check_cache_index_block(const ScheduleState& s, BlockSid block_sid, const std::string& scope_name,
                             int64_t cse_thresh) {
  TSCH_USER_ASSERT(cse_thresh >= 0, ValueError) << "cse_thresh should not be negative number";
  check_storage_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (!s.info(block_sid)->realize || !s.scope_block(block_sid)) fail(s, kRootBlockError, {block_sid});
  if (!realizes_under(block->body).empty() || (block->init && !realizes_under(block->init).empty())) {
    fail_not_supported(s, {block_sid}, "cache_index of block {0}, which holds other blocks");
  }
}

// Step 2. The computations to cache (TVM's IndexInfoCollector), from every store of the block.
std::vector<PrimExpr> computations_to_cache(const BlockNode& block, size_t thresh, Normalized& norm) {
  std::vector<const BufferStoreNode*> stores;
  if (block.init) stores_of(block.init, stores);
  stores_of(block.body, stores);
  std::vector<PrimExpr> exprs;
  for (const BufferStoreNode* store : stores) collect_store(store, thresh, norm, exprs);
  return exprs;
}

// The block's iterators by variable, and its loops by variable.
struct BlockIterLoops {
  std::unordered_map<const VarNode*, size_t> iter_index;
  std::unordered_map<const VarNode*, const ForNode*> loop_of;
  const ForNode* loop_of_iter(const BlockRealizeNode& realize, const VarNode* v) const {
    return loop_of.at(as<VarNode>(realize.iter_values[iter_index.at(v)]));
  }
};

BlockIterLoops block_iter_loops(const ScheduleState& s, BlockSid block_sid) {
  BlockIterLoops out;
  const BlockNode* block = &s.block_at(block_sid);
  for (size_t i = 0; i < block->iter_vars.size(); ++i) out.iter_index[block->iter_vars[i].var.get()] = i;
  for (LoopSid l : s.enclosing_loops(block_sid)) out.loop_of[s.loop_at(l).loop_var.get()] = &s.loop_at(l);
  return out;
}

// Step 3. Check each computation: it names only the block's iterators, each bound to a loop
// of its own from 0 (the cache is indexed by the iterators and filled over the loops' ranges,
// as TVM builds it); a division by something other than a nonzero constant could fault
// where the block never runs. Returns the iterators each uses, in order.
std::vector<std::vector<const VarNode*>> check_computation_iters(const ScheduleState& s, BlockSid block_sid,
                                                                 const std::vector<PrimExpr>& exprs,
                                                                 const BlockIterLoops& il) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::vector<std::vector<const VarNode*>> origin_vars;
  for (const PrimExpr& e : exprs) {
    VarUses u = var_uses(e);
    if (u.bad_division) fail_not_supported(s, {block_sid}, "cache_index of a computation dividing by a non-constant");
    std::unordered_set<const ForNode*> seen;
    for (const VarNode* v : u.vars) {
      auto it = il.iter_index.find(v);
      if (it == il.iter_index.end()) {
        fail_not_supported(
            s, {block_sid},
            fmt::format("cache_index of a computation using {}, which is not an iterator of block {{0}}", v->name));
      }
      auto* loop_var = as<VarNode>(realize->iter_values[it->second]);
      auto loop = loop_var ? il.loop_of.find(loop_var) : il.loop_of.end();
      if (loop == il.loop_of.end() || !is_zero(loop->second->min) || !seen.insert(loop->second).second ||
          loop_var->dtype != DataType::int32()) {
        fail_not_supported(
            s, {block_sid},
            fmt::format("cache_index of a computation using {}, whose binding is not an int32 loop of its own from 0",
                        v->name));
      }
    }
    origin_vars.push_back(u.vars);
  }
  return origin_vars;
}

// Step 4, one cache: index_var_<k> over the loops of the iterators `vars` the computation
// uses, and the nest of block index_<k> filling it.
struct IndexStage {
  Buffer cache;
  Stmt nest;
  BlockSid sid;
};

IndexStage make_index_stage(ScheduleState& s, size_t k, const PrimExpr& expr, const std::vector<const VarNode*>& vars,
                            const BlockIterLoops& il, const BlockRealizeNode& realize, const std::string& scope_name) {
  std::vector<PrimExpr> shape, indices, values;
  std::vector<IterVar> iters;
  std::vector<LoopSpec> nest;
  std::unordered_map<const VarNode*, PrimExpr> to_iter;
  for (size_t i = 0; i < vars.size(); ++i) {
    const VarNode* v = vars[i];
    const ForNode* loop = il.loop_of_iter(realize, v);
    shape.push_back(loop->extent);
    Var ax = make_var("ax" + std::to_string(i), DataType::int32());
    Var nv = make_var("v" + std::to_string(i), v->dtype);
    nest.push_back({ax, nullptr, loop->extent});
    values.push_back(ax);
    iters.push_back(IterVar{nv, Range{make_int(0, v->dtype), loop->extent}, IterType::DataPar});
    indices.push_back(nv);
    to_iter[v] = nv;
  }
  auto node =
      std::make_shared<BufferNode>(*make_buffer("index_var_" + std::to_string(k), expr->dtype, shape, scope_name));
  node->strides = {make_int(1)};  // as TVM builds it
  IndexStage out;
  out.cache = node;
  auto b = std::make_shared<BlockNode>();
  b->name = "index_" + std::to_string(k);
  b->sid = s.fresh_sid();
  b->iter_vars = iters;
  std::vector<Range> region;
  for (const PrimExpr& idx : indices) region.push_back(Range{idx, make_int(1, idx->dtype)});
  b->writes = {BufferRegion{out.cache, region}};
  b->body = std::make_shared<BufferStoreNode>(out.cache, substitute(expr, to_iter), indices);
  out.sid = sid_of(*b);
  out.nest = make_loop_nest(s, nest, std::make_shared<BlockRealizeNode>(values, make_bool(true), b));
  return out;
}

}  // namespace

std::vector<BlockSid> cache_index(ScheduleState& s, BlockSid block_sid, const std::string& scope_name,
                                  int64_t cse_thresh) {
  check_cache_index_block(s, block_sid, scope_name, cse_thresh);
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  BlockSid scope = s.scope_block(block_sid);
  Normalized norm;
  std::vector<PrimExpr> exprs = computations_to_cache(*block, static_cast<size_t>(cse_thresh), norm);
  if (exprs.empty()) return {};
  BlockIterLoops il = block_iter_loops(s, block_sid);
  std::vector<std::vector<const VarNode*>> origin_vars = check_computation_iters(s, block_sid, exprs, il);
  // Step 4. The caches and the blocks filling them.
  std::vector<Buffer> caches;
  std::vector<Stmt> stages;
  std::vector<BlockSid> sids;
  for (size_t k = 0; k < exprs.size(); ++k) {
    IndexStage stage = make_index_stage(s, k, exprs[k], origin_vars[k], il, *realize, scope_name);
    caches.push_back(stage.cache);
    stages.push_back(stage.nest);
    sids.push_back(stage.sid);
  }
  // Step 5. Rewrite: the block loads the caches (largest computation first), the stages go
  // before the block's statement at the top level of the scope, which allocates the caches.
  std::vector<PrimExpr> loads;
  for (size_t k = 0; k < exprs.size(); ++k) {
    std::vector<PrimExpr> idx;
    for (const VarNode* v : origin_vars[k]) idx.push_back(block->iter_vars[il.iter_index.at(v)].var);
    loads.push_back(buffer_load(caches[k], idx));
  }
  StoreRewriter rewrite(exprs, loads, norm);
  auto new_block = std::make_shared<BlockNode>(*block);
  new_block->body = rewrite.mutate(block->body);
  if (block->init) new_block->init = rewrite.mutate(block->init);
  size_t pos = top_level_index(s, block_sid, scope);
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate, new_block));
  rebuild_scope(s, scope, [&](BlockNode& b) {
    std::vector<Stmt> items = body_items(b.body);
    items.insert(items.begin() + static_cast<long>(std::min(pos, items.size())), stages.begin(), stages.end());
    b.body = rewrap(peel_decls(b.body).wrappers, make_seq(items));
    for (const Buffer& c : caches) b.alloc_buffers.push_back(c);
  });
  return sids;
}

// ---- instruction kinds

void register_cache_index_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "CacheIndex", "cache_index",
      {input("block", ParamType::Block), attr("storage_scope", ParamType::Str),
       attr("cse_thresh", ParamType::Int, "0")},
      OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(c, cache_index(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].s, c.attrs[1].as_int()));
      },
      "cache_index(block, storage_scope, cse_thresh=0) -> [BlockRV]: precompute the block's index computations into "
      "buffers filled by blocks before it.",
      "the computations are pure and use only the block's iterators, each bound to a loop of its own from 0; the block "
      "holds no other block; cse_thresh is not negative",
      "B[vi, vj] = A[vi // 4 + vj // 4]  ->  block index_0 fills index_var_0[v0, v1] = v0 // 4 + v1 // 4; B[vi, vj] = "
      "A[index_var_0[vi, vj]]"));
}

}  // namespace tsch::schedule
