// split: replace a loop by nested loops whose extents are the factors (TVM's Split).
//
//   for i in range(128):            sch.split(i, factors=[None, 4])      for i_0, i_1 in T.grid(32, 4):
//     ... vi = i ...                ─────────────────────────────────▶     ... vi = i_0 * 4 + i_1 ...
//
// At most one factor may be None (inferred by ceil-division); when the product exceeds the
// extent, blocks under the loop get the predicate `i_0 * 4 + i_1 < extent` (T.where).
// Factors may be expressions of T.vscale() (split_scalable), proved to cover the extent only
// under a scalable-vector target.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "arith/int_set.h"
#include "arith/scalable_expression.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"
#include "target/target.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNoFactorError, "NoFactorError", "At least one factor is required",
                         "At least one factor is required to split loop {0}");
TSCH_SCHEDULE_ERROR_KIND(kNotSingleInferFactorError, "NotSingleInferFactorError",
                         "only one factor can be specified as -1 or none",
                         "Only one factor can be specified as -1 or none");
TSCH_SCHEDULE_ERROR_KIND(
    kNonPositiveFactorError, "NonPositiveFactorError",
    "All the constant factors are required to be positive. However, some constant input factor is zero or negative.",
    "All the constant factors are required to be positive.");
TSCH_SCHEDULE_ERROR_KIND(kFactorOverflowError, "FactorOverflowError", "The factors do not fit the dtype of the loop",
                         "The factors do not fit the dtype of loop {0}");
TSCH_SCHEDULE_ERROR_KIND(kWrongFactorProductError, "WrongFactorProductError",
                         "The product of factors is not larger than or equal to the extent of loop",
                         "The product of factors is not larger than or equal to the extent of loop {0}");
TSCH_SCHEDULE_ERROR_KIND(
    kSymbolicShapeError, "SymbolicShapeError",
    "The min and extent values of the loop are required to be known at compile time. However, dynamic shape has "
    "been detected.",
    "Detected dynamic shape in either min or extent of a loop {0}");

// At most one factor to infer (its position, or -1) and the others positive.
int check_factors(const ScheduleState& s, LoopSid loop_sid, const std::vector<std::optional<int64_t>>& factors) {
  int inferred = -1;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) {
      if (inferred >= 0) fail(s, kNotSingleInferFactorError, {loop_sid});
      inferred = static_cast<int>(i);
    } else if (*factors[i] <= 0) {
      fail(s, kNonPositiveFactorError, {loop_sid},
           fmt::format("All the constant factors are required to be positive. However, the factor at position {} is {}",
                       i, *factors[i]));
    }
  }
  return inferred;
}

// The loop `loop_sid` replaced by the nest over `vars` (from 0 to `extents`), its variable by
// `value` in the body, guarded by `predicate` where one is given.
std::vector<LoopSid> replace_by_split_nest(ScheduleState& s, LoopSid loop_sid, const std::vector<Var>& vars,
                                           const std::vector<PrimExpr>& extents, const PrimExpr& value,
                                           const arith::VarDomain& dom, const PrimExpr& predicate) {
  const ForNode& loop = s.loop_at(loop_sid);
  Stmt body = substitute_bindings(loop.body, {{loop.loop_var.get(), value}}, dom, predicate);
  std::vector<LoopSpec> loops;
  for (size_t i = 0; i < vars.size(); ++i) loops.push_back({vars[i], make_int(0, extents[i]->dtype), extents[i]});
  std::vector<LoopSid> sids;
  s.replace(loop_sid, make_loop_nest(s, loops, body, &sids));
  return sids;
}

// TVM's conditions on the loop a split rewrites: no annotations or thread binding, a start at
// 0, and at least one factor.
const ForNode& check_splittable(const ScheduleState& s, LoopSid loop_sid, bool no_factors) {
  const ForNode& loop = s.loop_at(loop_sid);
  if (!loop.annotations.empty() || loop.for_kind == ForKind::ThreadBinding) {
    fail(s, kHasAnnotationOrThreadBindingError, {loop_sid});
  }
  if (!is_zero(loop.min)) fail(s, kLoopNotStartWithZeroError, {loop_sid});
  if (no_factors) fail(s, kNoFactorError, {loop_sid});
  return loop;
}

}  // namespace

std::vector<LoopSid> split(ScheduleState& s, LoopSid loop_sid, const std::vector<std::optional<int64_t>>& factors,
                           bool preserve_unit_iters, bool disable_predication) {
  // Step 1. Check the loop and the factors.
  const ForNode* loop = &check_splittable(s, loop_sid, factors.empty());
  int inferred = check_factors(s, loop_sid, factors);
  int64_t product = 1;
  DataType t = loop->loop_var->dtype;
  // The new loops' extents, and the index they rebuild (i_0 * f_1 + i_1 ...), are values of
  // the loop's dtype: a product past its range would wrap (2**62 on an int32 loop printed
  // T.grid(1, 4611686018427387904) and ran wrong).
  const int64_t dtype_max = t.bits >= 64 ? INT64_MAX : (int64_t{1} << (t.bits - 1)) - 1;
  auto too_large = [&](const std::string& what, int64_t value) {
    fail(s, kFactorOverflowError, {loop_sid},
         fmt::format("{} (= {}) does not fit the dtype {} of loop {{0}}", what, value, t.to_string()));
  };
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) continue;
    if (*factors[i] > dtype_max) too_large(fmt::format("the factor at position {}", i), *factors[i]);
    if (__builtin_mul_overflow(product, *factors[i], &product) || product > dtype_max)
      too_large("the product of the factors", product);
  }
  int64_t extent = 0;
  bool const_extent = as_const_int(loop->extent, &extent);
  if (inferred >= 0 && const_extent) {
    int64_t covered = 0;  // the inferred factor times the others: at least the extent
    if (__builtin_mul_overflow((extent + product - 1) / product, product, &covered) || covered > dtype_max)
      too_large("the extent covered by the factors", (extent + product - 1) / product * product);
  }
  std::vector<PrimExpr> extents;
  for (const auto& f : factors) extents.push_back(f ? make_int(*f, t) : PrimExpr());
  if (inferred >= 0) {
    extents[static_cast<size_t>(inferred)] =
        arith::simplify(floordiv(add(loop->extent, make_int(product - 1, t)), make_int(product, t)));
  } else if (const_extent && product < extent) {
    fail(s, kWrongFactorProductError, {loop_sid});
  } else if (!const_extent) {
    fail(s, kSymbolicShapeError, {loop_sid}, "The extent of loop {0} is symbolic: one factor must be None");
  }

  // Step 2. New loops i_0, i_1, ... and the value they give the old loop variable.
  std::vector<Var> vars;
  PrimExpr value = make_int(0, t);
  for (size_t i = 0; i < factors.size(); ++i) {
    Var v = new_loop_var(loop->loop_var->name + "_" + std::to_string(i), t);
    vars.push_back(v);
    bool unit = is_one(extents[i]);
    PrimExpr contribution = (unit && !preserve_unit_iters) ? make_int(0, t) : PrimExpr(v);
    value = add(mul(value, extents[i]), contribution);
  }
  arith::VarDomain dom = loop_domain(s, loop_sid);
  dom.erase(loop->loop_var.get());
  for (size_t i = 0; i < vars.size(); ++i) dom[vars[i].get()] = arith::interval_of(Range{make_int(0, t), extents[i]});
  // Imperfect splits are guarded by a predicate on every block below.
  PrimExpr predicate;
  bool exact = const_extent && inferred < 0 ? product == extent : false;
  if (const_extent && inferred >= 0) {
    int64_t outer;
    exact = as_const_int(extents[static_cast<size_t>(inferred)], &outer) && outer * product == extent;
  }
  // A symbolic extent the factors divide (`n * 32` split by [None, 32]) needs no guard either.
  if (!const_extent && inferred >= 0) {
    PrimExpr covered = mul(extents[static_cast<size_t>(inferred)], make_int(product, t));
    exact = is_zero(arith::simplify(sub(covered, loop->extent)));
  }
  // TVM writes the guard in the nested form it builds the value in: `(i_0 * 2 + i_1) * 3 + i_2 < 128`.
  if (!exact && !disable_predication) predicate = make_binary(ExprKind::LT, value, loop->extent);

  // Step 3. Rewrite.
  return replace_by_split_nest(s, loop_sid, vars, extents, value, dom, predicate);
}

// TVM's Split over PrimExpr factors, for factors such as `T.vscale() * 4`. The product check
// is TVM's CanProve(product >= extent): a scalable product is proved by trying each value
// vscale can take, which needs a scalable-vector target (TVM warns and refuses otherwise).
// The guard is TVM's too: added unless disabled, or the inferred factor covers the extent
// exactly (TVM cannot prove `i_0 * (T.vscale() * 4) + i_1 < 128` either).
std::vector<LoopSid> split_scalable(ScheduleState& s, LoopSid loop_sid, const std::vector<PrimExpr>& factors,
                                    bool preserve_unit_iters, bool disable_predication) {
  // Step 1. Check the loop and the factors.
  const ForNode* loop = &check_splittable(s, loop_sid, factors.empty());
  DataType t = loop->loop_var->dtype;
  int inferred = -1;
  std::vector<PrimExpr> extents;
  PrimExpr product = make_int(1, t);
  // vscale is at least 1 and at most 16 (SVE's 2048-bit vectors): a factor must be positive
  // for each, or some vscale would give an empty or negative loop.
  std::vector<int64_t> any_vscale;
  for (int64_t v = 1; v <= 16; ++v) any_vscale.push_back(v);
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) {
      if (inferred >= 0) fail(s, kNotSingleInferFactorError, {loop_sid});
      inferred = static_cast<int>(i);
      extents.emplace_back();
      continue;
    }
    PrimExpr f = factors[i]->dtype == t ? factors[i] : arith::simplify(cast(t, factors[i]));
    int64_t c = 0;
    if (as_const_int(f, &c) && c <= 0) {
      fail(s, kNonPositiveFactorError, {loop_sid},
           fmt::format("All the constant factors are required to be positive. However, the factor at position {} is {}",
                       i, c));
    }
    if (!arith::can_prove_for_vscale_values(make_binary(ExprKind::GT, f, make_int(0, t)), any_vscale)) {
      fail(s, kNonPositiveFactorError, {loop_sid},
           fmt::format("The factors are required to be positive. However, the factor at position {} ({}) is not "
                       "positive for every "
                       "value of vscale",
                       i, script(f)));
    }
    extents.push_back(f);
    product = mul(product, f);
  }
  const target::Target current = target::current_target();
  if (inferred >= 0) {
    extents[static_cast<size_t>(inferred)] =
        arith::simplify(floordiv(sub(add(loop->extent, product), make_int(1, t)), product));
  } else {
    PrimExpr covers = make_binary(ExprKind::GE, product, loop->extent);
    int64_t c = 0;
    bool proved = as_const_int(arith::simplify(covers), &c) && c != 0;
    if (!proved && arith::contains_vscale(covers)) {
      if (!target::target_has_vla(current)) {
        fail(s, kWrongFactorProductError, {loop_sid},
             fmt::format(
                 "The product of factors is not larger than or equal to the extent of loop {{0}}: the factors contain "
                 "T.vscale(), and a proof by vscale's values needs a target with scalable vectors (such as `llvm "
                 "-mtriple=aarch64-linux-gnu -mattr=+sve`), but the target was {}",
                 current ? current->str() : "None"));
      }
      proved = arith::can_prove_for_vscale_values(covers, target::vscale_values(current));
    }
    if (!proved) fail(s, kWrongFactorProductError, {loop_sid});
  }

  // Step 2. New loops i_0, i_1, ... and the value they give the old loop variable.
  std::vector<Var> vars;
  PrimExpr value = make_int(0, t);
  for (size_t i = 0; i < extents.size(); ++i) {
    Var v = new_loop_var(loop->loop_var->name + "_" + std::to_string(i), t);
    vars.push_back(v);
    PrimExpr contribution = (is_one(extents[i]) && !preserve_unit_iters) ? make_int(0, t) : PrimExpr(v);
    value = add(mul(value, extents[i]), contribution);
  }
  arith::VarDomain dom = loop_domain(s, loop_sid);
  dom.erase(loop->loop_var.get());
  for (size_t i = 0; i < vars.size(); ++i) dom[vars[i].get()] = arith::interval_of(Range{make_int(0, t), extents[i]});
  bool exact = inferred >= 0 &&
               is_zero(arith::simplify(sub(mul(extents[static_cast<size_t>(inferred)], product), loop->extent)));
  PrimExpr predicate;
  if (!exact && !disable_predication) predicate = make_binary(ExprKind::LT, value, loop->extent);

  // Step 3. Rewrite.
  return replace_by_split_nest(s, loop_sid, vars, extents, value, dom, predicate);
}

namespace {

TSCH_SCHEDULE_ERROR_KIND(kWrongFactorSumError, "WrongFactorError",
                         "The sum of factors is larger than or equal to the extent of loop",
                         "The sum of factors is larger than or equal to the extent of loop {0}");

// One partition of loop_partition: a copy of the loop's body over [min, end) with its own
// variables and identities (TVM's BlockMutator). Every block in it is renamed after the
// partition's loop variable; a block bound directly to that variable iterates over the
// partition's range, and a region dimension its body indexes by one of its iterators covers
// that iterator's domain.
class PartitionCopier : public IRMutator {
 public:
  PartitionCopier(ScheduleState& s, const Var& from, const Var& to, PrimExpr min, PrimExpr end)
      : s_(s), to_(to), min_(std::move(min)), end_(std::move(end)) {
    vars_[from.get()] = to;
  }

  using IRMutator::mutate;

 protected:
  PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
    auto it = vars_.find(&v);
    return it == vars_.end() ? self : it->second;
  }

  Stmt mutate_For(const ForNode& f, const Stmt&) override {
    Var v = fresh(f.loop_var);
    auto loop = std::make_shared<ForNode>(f);
    loop->loop_var = v;
    loop->min = mutate(f.min);
    loop->extent = mutate(f.extent);
    loop->body = mutate(f.body);
    loop->sid = s_.fresh_sid();
    return loop;
  }
  Stmt mutate_BlockRealize(const BlockRealizeNode& n, const Stmt&) override {
    const BlockRealizeNode* r = &n;
    int bound = -1;  // the iterator bound to the partitioned loop itself
    for (size_t i = 0; i < r->iter_values.size() && bound < 0; ++i) {
      auto it = vars_.find(as<VarNode>(r->iter_values[i]));
      if (as<VarNode>(r->iter_values[i]) && it != vars_.end() && it->second == PrimExpr(to_))
        bound = static_cast<int>(i);
    }
    std::vector<PrimExpr> values;
    for (const auto& v : r->iter_values) values.push_back(mutate(v));
    return std::make_shared<BlockRealizeNode>(values, mutate(r->predicate), block(*r->block, bound));
  }
  Stmt mutate_LetStmt(const LetStmtNode& l, const Stmt&) override {
    PrimExpr value = mutate(l.value);
    Var v = fresh(l.var);
    return std::make_shared<LetStmtNode>(v, value, mutate(l.body));
  }

 private:
  Var fresh(const Var& v) {
    Var n = make_var(v->name, v->dtype);
    vars_[v.get()] = n;
    return n;
  }

  Block block(const BlockNode& b, int bound) {
    auto out = std::make_shared<BlockNode>(b);
    std::unordered_map<const VarNode*, Range> dom;
    for (size_t i = 0; i < out->iter_vars.size(); ++i) {
      IterVar& iv = out->iter_vars[i];
      iv.dom = Range{mutate(iv.dom.min), mutate(iv.dom.extent)};
      if (static_cast<int>(i) == bound) {
        DataType t = iv.var->dtype;
        iv.dom = Range{arith::simplify(cast(t, min_)), arith::simplify(cast(t, sub(end_, min_)))};
      }
      iv.var = fresh(iv.var);
      dom[iv.var.get()] = iv.dom;
    }
    if (out->init) out->init = mutate(out->init);
    out->body = mutate(out->body);
    // The first access of each buffer in the body whose indices are all variables.
    std::unordered_map<const BufferNode*, std::vector<const VarNode*>> indexed;
    auto note = [&](const Buffer& buf, const std::vector<PrimExpr>& indices) {
      if (indexed.count(buf.get())) return;
      std::vector<const VarNode*> vars;
      for (const auto& i : indices) {
        if (!as<VarNode>(i)) return;
        vars.push_back(as<VarNode>(i));
      }
      indexed[buf.get()] = vars;
    };
    for_each_stmt(out->body, [&](const Stmt& x) {
      if (auto* st = as<BufferStoreNode>(x)) note(st->buffer, st->indices);
      for_each_expr(x, [&](const PrimExpr& e) {
        if (auto* ld = as<BufferLoadNode>(e)) note(ld->buffer, ld->indices);
      });
    });
    for (auto* regions : {&out->reads, &out->writes}) {
      for (auto& region : *regions) {
        for (auto& r : region.region) r = Range{mutate(r.min), mutate(r.extent)};
        auto it = indexed.find(region.buffer.get());
        if (it == indexed.end() || it->second.size() != region.region.size()) continue;
        for (size_t d = 0; d < region.region.size(); ++d) {
          auto iv = dom.find(it->second[d]);
          if (iv != dom.end()) region.region[d] = iv->second;
        }
      }
    }
    out->name = b.name + "_" + to_->name;
    out->sid = s_.fresh_sid();
    return out;
  }

  ScheduleState& s_;
  Var to_;
  PrimExpr min_, end_;
  std::unordered_map<const VarNode*, PrimExpr> vars_;
};

std::string first_block_name(const Stmt& s) {
  std::string name;
  for_each_stmt(s, [&](const Stmt& x) {
    if (auto* b = as<BlockNode>(x); b && name.empty()) name = b->name;
  });
  return name;
}

}  // namespace

std::vector<LoopSid> loop_partition(ScheduleState& s, LoopSid loop_sid,
                                    const std::vector<std::optional<int64_t>>& factors) {
  // Step 1. Check the loop and the factors; the partitions' ends.
  const ForNode* loop = &s.loop_at(loop_sid);
  if (!loop->annotations.empty() || loop->for_kind == ForKind::ThreadBinding)
    fail(s, kHasAnnotationOrThreadBindingError, {loop_sid});
  int64_t min, extent;
  if (!as_const_int(loop->min, &min) || !as_const_int(loop->extent, &extent)) fail(s, kSymbolicShapeError, {loop_sid});
  if (factors.empty()) fail(s, kNoFactorError, {loop_sid});
  int inferred = check_factors(s, loop_sid, factors);
  int64_t total = 0;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) continue;
    if (__builtin_add_overflow(total, *factors[i], &total)) total = INT64_MAX;
  }
  if (total >= extent) fail(s, kWrongFactorSumError, {loop_sid});
  std::vector<int64_t> sizes;
  for (const auto& f : factors) sizes.push_back(f ? *f : extent - total);
  if (inferred < 0) sizes.push_back(extent - total);  // the rest
  const BlockNode* inside = nullptr;
  for_each_stmt(loop->body, [&](const Stmt& x) {
    auto* b = as<BlockNode>(x);
    if (b && (!b->alloc_buffers.empty() || !b->match_buffers.empty()) && !inside) inside = b;
  });
  // A partition narrows the domain of the iterator bound to the loop; a reduction iterator's
  // init would then run again at the start of each partition (TVM re-initializes there).
  for_each_stmt(loop->body, [&](const Stmt& x) {
    auto* r = as<BlockRealizeNode>(x);
    if (!r || !r->block->init || inside) return;
    for (size_t i = 0; i < r->iter_values.size(); ++i) {
      if (r->block->iter_vars[i].type == IterType::CommReduce && r->iter_values[i].get() == loop->loop_var.get()) {
        fail_not_supported(
            s, {loop_sid, sid_of(*r->block)},
            "loop_partition of loop {0}, the reduction loop of block {1}: each partition would run its init again "
            "(decompose_reduction first)");
      }
    }
  });
  if (inside) {
    fail_not_supported(s, {loop_sid, sid_of(*inside)},
                       "loop_partition of loop {0}, under which block {1} allocates or matches buffers (each partition "
                       "would need its own)");
  }

  // Step 2. One block per partition around a copy of the loop over its range, all in one
  // "<block>_<loop>_common" block in the loop's place. As TVM, these blocks declare no
  // T.reads/T.writes: the scope's analyses look into such blocks (arith::is_undeclared_container).
  DataType t = loop->loop_var->dtype;
  std::string base = first_block_name(loop->body) + "_" + loop->loop_var->name;
  std::vector<Stmt> partitions;
  std::vector<LoopSid> out;
  int64_t begin = min;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Var v = make_var(loop->loop_var->name + std::to_string(i), t);
    PrimExpr lo = make_int(begin, t), hi = make_int(begin + sizes[i], t);
    PartitionCopier copier(s, loop->loop_var, v, lo, hi);
    auto copy = std::make_shared<ForNode>(v, lo, make_int(sizes[i], t), ForKind::Serial, copier.mutate(loop->body));
    copy->sid = s.fresh_sid();
    out.push_back(sid_of(*copy));
    auto block = std::make_shared<BlockNode>();
    block->name = base + std::to_string(i) + "_partition";
    block->sid = s.fresh_sid();
    block->body = copy;
    partitions.push_back(std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), block));
    begin += sizes[i];
  }
  auto common = std::make_shared<BlockNode>();
  common->name = base + "_common";
  common->sid = s.fresh_sid();
  common->body = make_seq(partitions);
  s.replace(loop_sid, std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), common));
  return out;
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

namespace {

bool is_inferred(const TraceArg& f) {
  return f.is_none() || (f.kind == TraceArg::Kind::Int && f.i == -1) || (f.kind == TraceArg::Kind::Ref && !f.ref);
}

// A factor that is an expression of T.vscale() (the schedule resolves ExprRVs before).
bool is_scalable(const TraceArg& f) { return f.kind == TraceArg::Kind::Expr && f.list.empty(); }

// The factors after the loop as expressions of the loop's dtype, null for "infer".
std::vector<PrimExpr> factor_exprs(const InstructionCall& c, DataType t) {
  std::vector<PrimExpr> factors;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    const TraceArg& f = c.inputs[i];
    if (is_inferred(f))
      factors.emplace_back();
    else if (f.kind == TraceArg::Kind::Int)
      factors.push_back(make_int(f.i, t));
    else if (f.kind == TraceArg::Kind::Ref && f.ref->kind == RVNode::Kind::Expr)
      factors.push_back(make_int(f.ref->value, t));
    else {
      TSCH_USER_ASSERT_ARG(is_scalable(f) && f.expr->dtype.is_int() && arith::is_vscale_constant(f.expr), TypeError,
                           "factors")
          << "expected a list of int, ExprRV, expression of T.vscale() or None";
      factors.push_back(f.expr);
    }
  }
  return factors;
}

// The factors after the loop: None, -1 (or sample_perfect_tile's None) mean "infer".
std::vector<std::optional<int64_t>> factor_args(const InstructionCall& c) {
  std::vector<std::optional<int64_t>> factors;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    const TraceArg& f = c.inputs[i];
    TSCH_USER_ASSERT_ARG(!is_scalable(f), NotImplementedError, "factors")
        << "not supported yet: a factor that is an expression of T.vscale() (" << ir::script(f.expr) << ")";
    if (f.is_none() || (f.kind == TraceArg::Kind::Int && f.i == -1) || (f.kind == TraceArg::Kind::Ref && !f.ref)) {
      factors.push_back(std::nullopt);
    } else if (f.kind == TraceArg::Kind::Int) {
      factors.push_back(f.i);
    } else {
      TSCH_USER_ASSERT_ARG(f.kind == TraceArg::Kind::Ref && f.ref->kind == RVNode::Kind::Expr, TypeError, "factors")
          << "expected a list of int or None";
      factors.push_back(f.ref->value);
    }
  }
  return factors;
}

}  // namespace

void register_split_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "LoopPartition", "loop_partition",
      {input("loop", ParamType::Loop), input("factors", ParamType::Factors),
       attr("preserve_unit_iters", ParamType::Bool, "True")},
      OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        output_loops(c, loop_partition(sch.state(), sch.loop_sid(c.inputs[0]), factor_args(c)));
      },
      "loop_partition(loop, factors, preserve_unit_iters=True) -> list of LoopRV\n"
      "Cut the loop into consecutive loops of the given lengths (one None: the rest; without one, a last loop takes "
      "the rest), "
      "each in a block of its own.",
      "the loop has constant bounds, no annotation or thread binding; the factors are positive and sum to less than "
      "the extent",
      "for i in range(128):  ->  with T.block(\"B_i_common\"): (B_i0_partition: for i0 in range(2)), "
      "(B_i1_partition: for i1 in range(2, 128))"));
  kinds.push_back(define_kind(
      "Split", "split",
      {input("loop", ParamType::Loop), input("factors", ParamType::Factors),
       attr("preserve_unit_iters", ParamType::Bool, "True"), attr("disable_predication", ParamType::Bool, "False")},
      OutputForm::List,
      [](Schedule& sch, InstructionCall& c) {
        LoopSid loop = sch.loop_sid(c.inputs[0]);
        bool preserve = c.attrs[0].as_bool(), disable_predication = c.attrs[1].as_bool();
        if (std::any_of(c.inputs.begin() + 1, c.inputs.end(), is_scalable)) {
          DataType t = sch.state().loop_at(loop).loop_var->dtype;
          output_loops(c, split_scalable(sch.state(), loop, factor_exprs(c, t), preserve, disable_predication));
        } else {
          output_loops(c, split(sch.state(), loop, factor_args(c), preserve, disable_predication));
        }
      },
      "split(loop, factors, preserve_unit_iters=True, disable_predication=False) -> list of LoopRV\n"
      "Replace the loop by nested loops with the given extents; at most one factor may be None. A factor may be an "
      "expression of T.vscale() (`T.vscale() * 4`) under a scalable-vector target (`with tvm.target.Target(\"llvm "
      "-mtriple=aarch64-linux-gnu -mattr=+sve\")`).",
      "the loop still exists; at most one factor is None (or -1); the factors' product covers the extent "
      "(a larger product adds a T.where guard)",
      "for i in range(128):              ->  for i_0, i_1 in T.grid(32, 4):\n"
      "    vi = T.axis.spatial(128, i)           vi = T.axis.spatial(128, i_0 * 4 + i_1)"));
}

}  // namespace tsch::schedule
