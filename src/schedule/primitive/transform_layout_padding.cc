// transform_layout's padding plans (TVM's TransformLayoutPlanner). A map such as
// `lambda i: (i // 4, i % 4)` on 14 elements gives a 4 x 4 buffer whose last two elements
// are padding; the pad value gets there in one of three ways:
//   - the producer visits every index in order (`for i in range(14): B[i] = ...`): its loops
//     become loops over the new shape and it stores `T.if_then_else(padding, pad, value)`;
//   - otherwise a block "buffer_<B>_padding" after the producer writes the padded elements;
//   - a buffer nothing writes (an input): a block "buffer_<B>_assumptions" before everything
//     states `T.assume(not padding or B[...] == pad)`, which the caller must make true.
#include "schedule/primitive/transform_layout_padding.h"

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/transform.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

std::optional<arith::LoopExtents> padded_extents(const std::vector<Var>& params, const std::vector<PrimExpr>& outputs,
                                                 const arith::LoopExtents& extents,
                                                 const std::vector<PrimExpr>& shape) {
  // Without growing the new shape where possible (i // 4, i % 4 on 14 elements: 16, shape
  // 4 x 4), else the smallest (i // 8, i % 8 on 7 elements: 8, shape 1 x 8). Handles maps
  // whose outputs each use one index.
  arith::LoopExtents padded = extents;
  for (const Var& p : params) {
    std::vector<PrimExpr> mine;
    std::vector<int64_t> limits;
    for (size_t k = 0; k < outputs.size(); ++k) {
      int uses = 0;
      bool uses_p = false;
      for (const Var& q : params) {
        if (uses_var(outputs[k], [&](const VarNode* v) { return v == q.get(); })) {
          ++uses;
          uses_p |= q == p;
        }
      }
      if (uses > 1) return std::nullopt;
      if (!uses_p) continue;
      mine.push_back(outputs[k]);
      int64_t n;
      as_const_int(shape[k], &n);
      limits.push_back(n);
    }
    int64_t n = extents.at(p.get());
    bool found = false;
    int64_t smallest_bijective = 0;
    for (int64_t e = n; e <= 2 * n && !found; ++e) {
      arith::LoopExtents trial{{p.get(), e}};
      if (!arith::detect_iter_map(mine, trial, true).ok) continue;
      if (!smallest_bijective) smallest_bijective = e;
      arith::VarDomain dom{{p.get(), arith::Interval{make_int(0, p->dtype), make_int(e - 1, p->dtype)}}};
      bool fits = true;
      for (size_t k = 0; k < mine.size(); ++k) {
        int64_t hi;
        arith::Interval range = arith::eval_interval(mine[k], dom);
        fits &= range.max && as_const_int(range.max, &hi) && hi < limits[k];
      }
      if (fits) {
        padded[p.get()] = e;
        found = true;
      }
    }
    if (!found && !smallest_bijective) return std::nullopt;
    if (!found) padded[p.get()] = smallest_bijective;
  }
  return padded;
}

IndexOffsets index_offsets(const std::vector<Var>& params, const std::vector<PrimExpr>& outputs) {
  // Each index's shift is the constant of the sums `p + c` it appears in; where they
  // disagree (or are not positive) there is none.
  std::unordered_map<const VarNode*, std::vector<int64_t>> seen;
  for (const auto& o : outputs) {
    for_each_expr(o, [&](const PrimExpr& e) {
      if (e->kind != ExprKind::Add) return;
      for (int side = 0; side < 2; ++side) {
        auto* v = as<VarNode>(side == 0 ? binary_a(e) : binary_b(e));
        int64_t c;
        if (v && as_const_int(side == 0 ? binary_b(e) : binary_a(e), &c)) seen[v].push_back(c);
      }
    });
  }
  IndexOffsets out;
  for (const Var& p : params) {
    auto it = seen.find(p.get());
    if (it == seen.end()) continue;
    bool same = true;
    for (int64_t c : it->second) same &= c == it->second[0];
    if (same && it->second[0] > 0) out[p.get()] = it->second[0];
  }
  return out;
}

std::vector<PrimExpr> shifted_by(const std::vector<Var>& params, const std::vector<PrimExpr>& outputs,
                                 const IndexOffsets& offsets) {
  if (offsets.empty()) return outputs;
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (const Var& p : params) {
    if (auto it = offsets.find(p.get()); it != offsets.end()) vmap[p.get()] = sub(p, make_int(it->second, p->dtype));
  }
  std::vector<PrimExpr> out;
  for (const auto& o : outputs) out.push_back(arith::simplify(substitute(o, vmap)));
  return out;
}

namespace {

// `i * c + j >= n` over i in [0, a), j in [0, c), when the padding lies in the last row
// ((a - 1) * c < n < a * c), as TVM's simplifier writes it: `i == a - 1 and n - (a - 1) * c <= j`.
// Null for any other form.
PrimExpr last_row_form(const PrimExpr& index, int64_t n, const std::vector<Var>& vars,
                       const std::vector<PrimExpr>& shape) {
  LinearForm lin;
  if (!linear_form(arith::simplify(index), 1, lin) || lin.constant != 0 || lin.terms.size() != 2) return nullptr;
  auto extent_of = [&](const VarNode* v) -> int64_t {
    for (size_t k = 0; k < vars.size(); ++k) {
      int64_t e;
      if (vars[k].get() == v && as_const_int(shape[k], &e)) return e;
    }
    return -1;
  };
  auto [row, c] = lin.terms[0];
  auto [col, one] = lin.terms[1];
  if (one != 1) {
    std::swap(row, col);
    std::swap(c, one);
  }
  int64_t rows = extent_of(row), cols = extent_of(col);
  if (one != 1 || rows <= 0 || cols != c || !((rows - 1) * c < n && n < rows * c)) return nullptr;
  DataType t = row->dtype;
  Var row_var, col_var;
  for (const Var& v : vars) {
    if (v.get() == row) row_var = v;
    if (v.get() == col) col_var = v;
  }
  return make_binary(ExprKind::And, make_binary(ExprKind::EQ, row_var, make_int(rows - 1, t)),
                     make_binary(ExprKind::LE, make_int(n - (rows - 1) * c, t), col_var));
}

// The new buffer's indices as TVM names them: loops axis0, axis1, ... (the inverse map's
// inputs), block iterators v_axis0, ...
std::vector<Var> new_indices(const Buffer& changed, const std::string& prefix) {
  std::vector<Var> out;
  for (size_t k = 0; k < changed->shape.size(); ++k)
    out.push_back(make_var(prefix + "axis" + std::to_string(k), changed->shape[k]->dtype));
  return out;
}

std::vector<PrimExpr> as_exprs(const std::vector<Var>& vars) { return std::vector<PrimExpr>(vars.begin(), vars.end()); }

// The original index of each map parameter at the new indices `at` (an index of extent 1
// that the map drops is 0).
// The map's inverse at `at`: each index that has one (a shifted index less its shift).
std::unordered_map<const VarNode*, PrimExpr> inverse_at(const PaddingContext& c, const std::vector<Var>& at) {
  std::unordered_map<const VarNode*, PrimExpr> inverse = arith::inverse_iter_map(c.map, as_exprs(at));
  for (auto& [p, e] : inverse) {
    if (auto it = c.offsets.find(p); it != c.offsets.end()) e = arith::simplify(sub(e, make_int(it->second, e->dtype)));
  }
  return inverse;
}

std::unordered_map<const VarNode*, PrimExpr> originals(const PaddingContext& c, const std::vector<Var>& at) {
  std::unordered_map<const VarNode*, PrimExpr> inverse = inverse_at(c, at);
  for (const Var& p : c.params) {
    if (!inverse.count(p.get())) inverse[p.get()] = make_int(0, p->dtype);
  }
  return inverse;
}

// Whether the new indices `at` lie in the padding: an original index past its extent.
PrimExpr padding_predicate(const PaddingContext& c, const std::vector<Var>& at) {
  std::unordered_map<const VarNode*, PrimExpr> inverse = inverse_at(c, at);
  arith::VarDomain dom;
  for (size_t k = 0; k < at.size(); ++k) {
    int64_t n;
    if (as_const_int(c.changed->shape[k], &n))
      dom[at[k].get()] = arith::Interval{make_int(0, at[k]->dtype), make_int(n - 1, at[k]->dtype)};
  }
  PrimExpr predicate;
  for (const Var& p : c.params) {
    auto original = inverse.find(p.get());
    if (original == inverse.end()) continue;  // an index of extent 1: always 0, never outside
    // An index the new shape keeps within its extent (y in x // 32, y, x % 32) adds nothing.
    int64_t lo, hi;
    arith::Interval range = arith::eval_interval(original->second, dom);
    bool below_ok = !c.offsets.count(p.get()) || (range.min && as_const_int(range.min, &lo) && lo >= 0);
    bool above_ok = range.max && as_const_int(range.max, &hi) && hi < c.extents.at(p.get());
    if (below_ok && above_ok) continue;
    PrimExpr outside;
    if (!above_ok) {
      outside = last_row_form(original->second, c.extents.at(p.get()), at, c.changed->shape);
      // TVM's simplifier writes `x >= n` as `n <= x`.
      if (!outside) outside = make_binary(ExprKind::LE, make_int(c.extents.at(p.get()), p->dtype), original->second);
    }
    // A shifted index is padding below 0 too.
    if (!below_ok) {
      PrimExpr below = make_binary(ExprKind::LT, original->second, make_int(0, p->dtype));
      outside = outside ? make_binary(ExprKind::Or, below, outside) : below;
    }
    predicate = predicate ? make_binary(ExprKind::Or, predicate, outside) : outside;
  }
  if (!predicate) return make_bool(false);
  return predicate->kind == ExprKind::And ? predicate : arith::simplify(predicate);
}

PrimExpr pad_value_at(const PaddingContext& c, const std::vector<Var>& at) {
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (size_t k = 0; k < at.size(); ++k) vmap[c.padding.indices[k].get()] = at[k];
  return substitute(c.padding.value, vmap);
}

// A block over the new shape (data-parallel iterators v_axis<k> bound to loops axis<k>)
// holding `body(iterators)`, with its regions inferred, in its loop nest.
Stmt nest_over_new_shape(ScheduleState& s, const PaddingContext& c, const std::string& name, bool predicated,
                         const std::function<Stmt(const std::vector<Var>&)>& body) {
  std::vector<Var> loops = new_indices(c.changed, ""), iters = new_indices(c.changed, "v_");
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  block->sid = s.fresh_sid();
  for (size_t k = 0; k < iters.size(); ++k) {
    block->iter_vars.push_back(
        IterVar{iters[k], Range{make_int(0, iters[k]->dtype), c.changed->shape[k]}, IterType::DataPar});
  }
  block->body = body(iters);
  arith::AccessRegions regions = arith::infer_access_regions(block->body, nullptr);
  block->reads = regions.reads;
  block->writes = regions.writes;
  std::vector<LoopSpec> specs;
  for (size_t k = 0; k < loops.size(); ++k) specs.push_back({loops[k], nullptr, c.changed->shape[k]});
  PrimExpr predicate = predicated ? padding_predicate(c, loops) : make_bool(true);
  return make_loop_nest(s, specs, std::make_shared<BlockRealizeNode>(as_exprs(loops), predicate, block));
}

}  // namespace

Stmt padding_nest(ScheduleState& s, const PaddingContext& c) {
  return nest_over_new_shape(s, c, "buffer_" + c.buffer->name + "_padding", true,
                             [&](const std::vector<Var>& at) -> Stmt {
                               return std::make_shared<BufferStoreNode>(c.changed, pad_value_at(c, at), as_exprs(at));
                             });
}

Stmt assumption_nest(ScheduleState& s, const PaddingContext& c) {
  return nest_over_new_shape(
      s, c, "buffer_" + c.buffer->name + "_assumptions", false, [&](const std::vector<Var>& at) -> Stmt {
        PrimExpr holds = make_binary(ExprKind::EQ, buffer_load(c.changed, as_exprs(at)), pad_value_at(c, at));
        PrimExpr cond = make_binary(ExprKind::Or, logical_not(padding_predicate(c, at)), holds);
        return std::make_shared<EvaluateNode>(call(DataType::bool_(), "assume", {cond}));
      });
}

namespace {

// A store into the buffer (TVM's WriteInfo): the loops its indices depend on, outermost
// first (TVM's dependent loop nest), the innermost block around it, and whether those loops
// visit every index of the buffer in order, one loop per dimension.
struct Write {
  const BufferStoreNode* store = nullptr;
  std::vector<const ForNode*> nest;
  const BlockRealizeNode* realize = nullptr;
  bool row_major = false;
};

class WriteCollector : public IRVisitor {
 public:
  explicit WriteCollector(const Buffer& buffer) : buffer_(buffer) {}
  std::vector<Write> writes;

 protected:
  void visit_For(const ForNode& loop) override {
    const ForNode* f = &loop;
    depth_[f->loop_var.get()] = {loops_.size(), loops_.size()};
    loops_.push_back(f);
    IRVisitor::visit_For(loop);
    loops_.pop_back();
    depth_.erase(f->loop_var.get());
  }
  void visit_BlockRealize(const BlockRealizeNode& realize) override {
    const BlockRealizeNode* r = &realize;
    const BlockRealizeNode* outer = realize_;
    realize_ = r;
    for (size_t i = 0; i < r->iter_values.size() && i < r->block->iter_vars.size(); ++i)
      bind(r->block->iter_vars[i].var, r->iter_values[i]);
    IRVisitor::visit_BlockRealize(realize);
    for (const auto& iv : r->block->iter_vars) unbind(iv.var);
    realize_ = outer;
  }
  void visit_LetStmt(const LetStmtNode& let) override {
    bind(let.var, let.value);
    IRVisitor::visit_LetStmt(let);
    unbind(let.var);
  }
  void visit_BufferStore(const BufferStoreNode& node) override {
    const BufferStoreNode* store = &node;
    if (store->buffer != buffer_) return IRVisitor::visit_BufferStore(node);
    Write w;
    w.store = store;
    w.realize = realize_;
    std::optional<std::pair<size_t, size_t>> range;
    for (const auto& index : store->indices) merge(range, dependency(index));
    if (range)
      w.nest.assign(loops_.begin() + static_cast<long>(range->first),
                    loops_.begin() + static_cast<long>(range->second) + 1);
    w.row_major = !w.nest.empty() && w.nest.size() == buffer_->shape.size() && store->indices.size() == w.nest.size();
    for (size_t k = 0; w.row_major && k < w.nest.size(); ++k) {
      const ForNode* loop = w.nest[k];
      PrimExpr index = substitute(store->indices[k], bindings_);
      int64_t extent, dim;
      w.row_major = index.get() == loop->loop_var.get() && is_zero(loop->min) && loop->for_kind == ForKind::Serial &&
                    as_const_int(loop->extent, &extent) && as_const_int(buffer_->shape[k], &dim) && extent == dim;
    }
    writes.push_back(w);
  }

 private:
  using Range2 = std::optional<std::pair<size_t, size_t>>;
  static void merge(Range2& into, const Range2& r) {
    if (!r) return;
    into = into ? std::make_pair(std::min(into->first, r->first), std::max(into->second, r->second)) : *r;
  }
  // The loops (depths) an expression depends on, through block and let bindings.
  Range2 dependency(const PrimExpr& e) const {
    Range2 out;
    uses_var(e, [&](const VarNode* v) {
      if (auto it = depth_.find(v); it != depth_.end()) merge(out, it->second);
      return false;
    });
    return out;
  }
  void bind(const Var& v, const PrimExpr& value) {
    if (Range2 r = dependency(value)) {
      depth_[v.get()] = *r;
      bindings_[v.get()] = substitute(value, bindings_);
    }
  }
  void unbind(const Var& v) {
    depth_.erase(v.get());
    bindings_.erase(v.get());
  }

  const Buffer& buffer_;
  std::vector<const ForNode*> loops_;
  std::unordered_map<const VarNode*, std::pair<size_t, size_t>> depth_;
  std::unordered_map<const VarNode*, PrimExpr> bindings_;
  const BlockRealizeNode* realize_ = nullptr;
};

bool same_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!expr_deep_equal(a[i], b[i])) return false;
  }
  return true;
}

bool reads_memory(const PrimExpr& e) {
  bool found = false;
  for_each_expr(e, [&](const PrimExpr& x) { found |= x->kind == ExprKind::BufferLoad; });
  return found;
}

// Whether running the body of the write's innermost loop over the padding too is safe once
// each store is guarded by if_then_else: tsch's check, stricter than TVM's (which asks only
// that every store be the buffer's at the write's indices). Loops, sequences, blocks and
// such stores only; memory read only inside stored values (which the guard skips in the
// padding), the buffer itself only at the write's own element, so the iterations stay
// independent whatever order the new loops take; no block iterator but the rewritten ones
// bound to the nest's loops (its domain would not hold in the padding); no T.where.
class GuardableBody {
 public:
  GuardableBody(const Write& w, const Buffer& buffer, const BlockRealizeNode* rewritten)
      : w_(w), buffer_(buffer), rewritten_(rewritten) {}

  bool check(const Stmt& s) const {
    if (auto* f = as<ForNode>(s))
      return f->for_kind != ForKind::ThreadBinding && !reads_memory(f->min) && !reads_memory(f->extent) &&
             check(f->body);
    if (auto* seq = as<SeqStmtNode>(s)) {
      for (const Stmt& item : seq->seq) {
        if (!check(item)) return false;
      }
      return true;
    }
    if (auto* r = as<BlockRealizeNode>(s)) {
      const BlockNode& b = *r->block;
      // A T.where could skip the guarded store in the padding, which would then not hold the pad value.
      if (!is_one(r->predicate) || !b.match_buffers.empty() || !b.alloc_buffers.empty()) return false;
      if (rewritten_ && r != rewritten_) return false;  // the rewritten block's iterators are the only ones in scope
      for (size_t i = 0; i < r->iter_values.size(); ++i) {
        if (reads_memory(r->iter_values[i])) return false;
        bool replaced = r == rewritten_ && is_store_index(b.iter_vars[i].var);
        if (!replaced && uses_nest(r->iter_values[i])) return false;
      }
      return (!b.init || check(b.init)) && check(b.body);
    }
    if (auto* store = as<BufferStoreNode>(s)) {
      if (store->buffer != buffer_ || !same_indices(store->indices, w_.store->indices)) return false;
      bool ok = true;
      for_each_expr(store->value, [&](const PrimExpr& e) {
        if (auto* load = as<BufferLoadNode>(e); load && load->buffer == buffer_)
          ok &= same_indices(load->indices, w_.store->indices);
      });
      return ok;
    }
    return false;
  }

 private:
  bool is_store_index(const Var& v) const {
    for (const auto& index : w_.store->indices) {
      if (index.get() == v.get()) return true;
    }
    return false;
  }
  bool uses_nest(const PrimExpr& e) const {
    return uses_var(e, [&](const VarNode* v) {
      for (const ForNode* loop : w_.nest) {
        if (loop->loop_var.get() == v) return true;
      }
      return false;
    });
  }
  const Write& w_;
  const Buffer& buffer_;
  const BlockRealizeNode* rewritten_;
};

// The block whose data-parallel iterators are the store's indices, in order (TVM's
// DefineBlockUpdates): they give way to iterators over the new shape. The position of the
// first, or -1.
long rewritten_iterators(const Write& w) {
  if (!w.realize || w.store->indices.empty()) return -1;
  const auto& ivs = w.realize->block->iter_vars;
  for (size_t start = 0; start + w.store->indices.size() <= ivs.size(); ++start) {
    bool all = true;
    for (size_t k = 0; all && k < w.store->indices.size(); ++k) {
      all = w.store->indices[k].get() == ivs[start + k].var.get() && ivs[start + k].type == IterType::DataPar;
    }
    if (all) return static_cast<long>(start);
  }
  return -1;
}

// The body rewritten over the new indices: old loop variables and rewritten iterators
// become the original index at the new ones, the buffer's stores and loads the new buffer's
// element, stores guarded by if_then_else, the buffer's regions that element.
class GuardedRewrite : public IRMutator {
 public:
  GuardedRewrite(const PaddingContext& c, std::unordered_map<const VarNode*, PrimExpr> vmap, std::vector<PrimExpr> at,
                 PrimExpr padding, PrimExpr pad)
      : c_(c), vmap_(std::move(vmap)), at_(std::move(at)), padding_(std::move(padding)), pad_(std::move(pad)) {}

  const BlockRealizeNode* rewritten = nullptr;
  long start = -1;      // the first rewritten iterator
  size_t replaced = 0;  // how many (one per dimension of the old buffer)
  std::vector<Var> new_iters;
  std::vector<PrimExpr> new_values;

 protected:
  PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
    auto it = vmap_.find(&v);
    return it == vmap_.end() ? self : it->second;
  }
  PrimExpr mutate_BufferLoad(const BufferLoadNode& load, const PrimExpr& self) override {
    if (load.buffer == c_.buffer) return buffer_load(c_.changed, at_);
    return IRMutator::mutate_BufferLoad(load, self);
  }

  Stmt mutate_BufferStore(const BufferStoreNode& store, const Stmt& self) override {
    if (store.buffer != c_.buffer) return IRMutator::mutate_BufferStore(store, self);
    PrimExpr value = mutate(store.value);
    return std::make_shared<BufferStoreNode>(c_.changed, call(value->dtype, "if_then_else", {padding_, pad_, value}),
                                             at_);
  }
  Stmt mutate_BlockRealize(const BlockRealizeNode& realize, const Stmt&) override {
    const BlockRealizeNode* r = &realize;
    auto block = std::make_shared<BlockNode>(*r->block);
    std::vector<PrimExpr> values = r->iter_values;
    if (r == rewritten) {
      size_t n = new_iters.size(), first = static_cast<size_t>(start);
      long old_n = static_cast<long>(replaced);
      block->iter_vars.erase(block->iter_vars.begin() + start, block->iter_vars.begin() + start + old_n);
      values.erase(values.begin() + start, values.begin() + start + old_n);
      for (size_t k = 0; k < n; ++k) {
        block->iter_vars.insert(
            block->iter_vars.begin() + static_cast<long>(first + k),
            IterVar{new_iters[k], Range{make_int(0, new_iters[k]->dtype), c_.changed->shape[k]}, IterType::DataPar});
        values.insert(values.begin() + static_cast<long>(first + k), new_values[k]);
      }
    }
    bool changed = false;
    for (auto& v : values) v = mutate(v);
    for (auto* regions : {&block->reads, &block->writes}) {
      for (auto& region : *regions) {
        if (region.buffer == c_.buffer) {
          std::vector<Range> point;
          for (const auto& i : at_) point.push_back(Range{i, make_int(1, i->dtype)});
          region = BufferRegion{c_.changed, point};
        } else {
          region = mutate_region(region, changed);
        }
      }
    }
    if (block->init) block->init = mutate(block->init);
    block->body = mutate(block->body);
    return std::make_shared<BlockRealizeNode>(values, mutate(r->predicate), block);
  }

 private:
  const PaddingContext& c_;
  std::unordered_map<const VarNode*, PrimExpr> vmap_;
  std::vector<PrimExpr> at_;
  PrimExpr padding_, pad_;
};

// The write's loop nest over the new shape with guarded stores, or null where it does not
// qualify.
Stmt guarded_nest(ScheduleState& s, const Write& w, const PaddingContext& c) {
  // Step 1. Check: a perfect nest of the write's loops, a body that may run in the padding.
  for (size_t k = 0; k + 1 < w.nest.size(); ++k) {
    if (w.nest[k]->body.get() != w.nest[k + 1]) return nullptr;
  }
  const Stmt& body = w.nest.back()->body;
  long start = rewritten_iterators(w);
  bool inside = false;
  for_each_stmt(body, [&](const Stmt& st) { inside |= st.get() == w.realize; });
  if (!inside) start = -1;
  const BlockRealizeNode* rewritten = start >= 0 ? w.realize : nullptr;
  if (!GuardableBody(w, c.buffer, rewritten).check(body)) return nullptr;

  // Step 2. Rewrite: loops axis<k> over the new shape; the indices the store uses are the
  // block's new iterators v_axis<k> where it has them, else the loops themselves.
  std::vector<Var> loops = new_indices(c.changed, ""), iters = new_indices(c.changed, "v_");
  const std::vector<Var>& at = rewritten ? iters : loops;
  std::unordered_map<const VarNode*, PrimExpr> loop_orig = originals(c, loops), at_orig = originals(c, at);
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (size_t k = 0; k < w.nest.size(); ++k) {
    vmap[w.nest[k]->loop_var.get()] = loop_orig.at(c.params[k].get());
    if (rewritten) vmap[as<VarNode>(w.store->indices[k])] = at_orig.at(c.params[k].get());
  }
  GuardedRewrite rewrite(c, vmap, as_exprs(at), padding_predicate(c, at), pad_value_at(c, at));
  rewrite.rewritten = rewritten;
  rewrite.start = start;
  rewrite.replaced = w.store->indices.size();
  rewrite.new_iters = iters;
  rewrite.new_values = as_exprs(loops);
  std::vector<LoopSpec> specs;
  for (size_t k = 0; k < loops.size(); ++k) specs.push_back({loops[k], nullptr, c.changed->shape[k]});
  return make_loop_nest(s, specs, rewrite.mutate(body));
}

}  // namespace

std::unordered_map<const StmtNode*, Stmt> if_then_else_producers(ScheduleState& s, const Stmt& scope,
                                                                 const PaddingContext& c) {
  std::unordered_map<const StmtNode*, Stmt> out;
  // A pad value reading the buffer (another of its elements) could read one the rewritten
  // producer has not written yet: the padding block, after the producer, is the safe place.
  if (reads_memory(c.padding.value)) return out;
  WriteCollector collector(c.buffer);
  collector.visit(scope);
  for (const Write& w : collector.writes) {
    if (!w.row_major || out.count(w.nest.front())) continue;
    if (Stmt nest = guarded_nest(s, w, c)) out[w.nest.front()] = nest;
  }
  return out;
}

bool writes_buffer(const Stmt& scope, const Buffer& buffer) {
  bool found = false;
  for_each_stmt(scope, [&](const Stmt& st) {
    if (auto* store = as<BufferStoreNode>(st)) found |= store->buffer == buffer;
  });
  return found;
}

}  // namespace tsch::schedule
