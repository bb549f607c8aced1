// TVM's CalculateBlockVarDomain for compute_at / reverse_compute_at, and the forms of the
// bounds it guards: see compute_at_region.h.
#include "schedule/primitive/compute_at_region.h"

#include <fmt/format.h>

#include <numeric>
#include <tuple>

#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/analysis.h"
#include "schedule/error.h"

namespace tsch::schedule::compute_at_detail {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kUnboundedRegionError, "UnboundedRegionError",
                         "The region the block must cover cannot be bounded",
                         "The region that block {0} must cover cannot be bounded");
TSCH_SCHEDULE_ERROR_KIND(kConsumerRegionNotCoveredError, "ConsumerRegionNotCoveredError",
                         "The consumer reads more than one iteration of the loop produces",
                         "The block {0} reads more than one iteration of the loop produces");

// A linear form c0 + sum(k * term) of an integer expression (terms compared structurally).
struct LinearForm {
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t constant = 0;
};

void collect_linear(const PrimExpr& e, int64_t scale, LinearForm& out) {
  int64_t c;
  if (as_const_int(e, &c)) {
    out.constant += scale * c;
    return;
  }
  if (e->kind == ExprKind::Add || e->kind == ExprKind::Sub) {
    collect_linear(binary_a(e), scale, out);
    collect_linear(binary_b(e), e->kind == ExprKind::Add ? scale : -scale, out);
    return;
  }
  if (e->kind == ExprKind::Mul && as_const_int(binary_b(e), &c)) return collect_linear(binary_a(e), scale * c, out);
  if (e->kind == ExprKind::Mul && as_const_int(binary_a(e), &c)) return collect_linear(binary_b(e), scale * c, out);
  for (auto& [t, k] : out.terms) {
    if (expr_deep_equal(t, e)) {
      k += scale;
      return;
    }
  }
  out.terms.emplace_back(e, scale);
}

PrimExpr build_linear(const LinearForm& l, DataType t) {
  PrimExpr out = make_int(0, t);
  for (const auto& [term, k] : l.terms) {
    if (k != 0) out = add(out, k == 1 ? term : mul(term, make_int(k, t)));
  }
  return arith::simplify(add(out, make_int(l.constant, t)));
}

int64_t floor_div64(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

}  // namespace

// A region bound `(c_o * 360 + 359) // 16` in TVM's simplified form: the divisor's common
// factor with the coefficients cancelled (`(c_o * 45 + 44) // 2`), the coefficients' multiples
// of the divisor taken out (`c_o * 22 + 22 + c_o // 2`), and the rest folded where the loop
// ranges decide it (`c_o * 22 + 22` for c_o in [0, 1]).
PrimExpr simplify_div_bound(const PrimExpr& e, const arith::VarDomain& dom) {
  int64_t c;
  if (!e || e->kind != ExprKind::FloorDiv || !as_const_int(binary_b(e), &c) || c <= 0) return e;
  DataType t = e->dtype;
  LinearForm l;
  collect_linear(arith::simplify(binary_a(e)), 1, l);
  int64_t g = c;
  for (const auto& [term, k] : l.terms) g = std::gcd(g, k < 0 ? -k : k);
  if (g > 1) {
    for (auto& [term, k] : l.terms) k /= g;
    l.constant = floor_div64(l.constant, g);  // exact: the dropped part is below g
    c /= g;
  }
  LinearForm quotient, rest;
  for (const auto& [term, k] : l.terms) {
    int64_t q = floor_div64(k, c);
    if (q != 0) quotient.terms.emplace_back(term, q);
    if (k - q * c != 0) rest.terms.emplace_back(term, k - q * c);
  }
  quotient.constant = floor_div64(l.constant, c);
  rest.constant = l.constant - quotient.constant * c;
  PrimExpr rest_expr = build_linear(rest, t);
  arith::Interval r = arith::eval_interval(rest_expr, dom);
  int64_t lo, hi;
  // Taken apart only where the ranges decide the rest; else the reduced division as it is.
  if (!(r.min && r.max && as_const_int(arith::simplify(r.min, dom), &lo) &&
        as_const_int(arith::simplify(r.max, dom), &hi) && floor_div64(lo, c) == floor_div64(hi, c))) {
    return floordiv(build_linear(l, t), make_int(c, t));
  }
  quotient.constant += floor_div64(lo, c);
  return build_linear(quotient, t);
}

namespace {

// `x // n` and `x % n` by a symbolic n where x ranges over [0, n * c - 1] (a fused loop over
// a shape variable) replaced by variables over [0, c - 1] and [0, n - 1]: the loop running at
// all means n >= 1.
PrimExpr bound_symbolic_divisions(const PrimExpr& e, arith::VarDomain& dom) {
  std::unordered_map<const ExprNode*, PrimExpr> repl;
  for_each_expr(e, [&](const PrimExpr& x) {
    if (x->kind != ExprKind::FloorDiv && x->kind != ExprKind::FloorMod) return;
    auto* v = as<VarNode>(binary_a(x));
    const PrimExpr& n = binary_b(x);
    int64_t unused;
    if (!v || as_const_int(n, &unused) || !dom.count(v)) return;
    const arith::Interval& r = dom.at(v);
    if (!r.min || !r.max || !is_zero(arith::simplify(r.min))) return;
    LinearForm l;
    collect_linear(arith::simplify(add(r.max, make_int(1, r.max->dtype))), 1, l);
    if (l.constant != 0 || l.terms.size() != 1 || !expr_deep_equal(l.terms[0].first, n) || l.terms[0].second <= 0)
      return;
    DataType t = x->dtype;
    Var fresh = make_var("bound", t);
    dom[fresh.get()] = x->kind == ExprKind::FloorDiv
                           ? arith::Interval{make_int(0, t), make_int(l.terms[0].second - 1, t)}
                           : arith::Interval{make_int(0, t), arith::simplify(sub(n, make_int(1, t)))};
    repl[x.get()] = fresh;
  });
  if (repl.empty()) return e;
  struct Replace : IRMutator {
    std::unordered_map<const ExprNode*, PrimExpr>* repl;
    // Whole-node on purpose: the replaced nodes are picked by identity, whatever their kind.
    PrimExpr mutate(const PrimExpr& x) override {
      auto it = repl->find(x.get());
      return it == repl->end() ? IRMutator::mutate(x) : it->second;
    }
  } r;
  r.repl = &repl;
  return r.mutate(e);
}

}  // namespace

// Proves `t` (a comparison) also where one side's bound is symbolic: `k_0 * 32 + ax0 < n * 32`
// for k_0 < n, as TVM's symbolic-bound proof does.
bool prove_bound(const PrimExpr& t, const arith::VarDomain& dom_in) {
  if (is_one(t) || arith::can_prove(t, dom_in)) return true;
  bool greater = t->kind == ExprKind::GT || t->kind == ExprKind::GE;
  if (t->kind != ExprKind::LT && t->kind != ExprKind::LE && !greater) return false;
  // a >= b is b <= a.
  PrimExpr lhs = greater ? binary_b(t) : binary_a(t), rhs = greater ? binary_a(t) : binary_b(t);
  bool strict = t->kind == ExprKind::LT || t->kind == ExprKind::GT;
  arith::VarDomain dom = dom_in;
  PrimExpr diff = bound_symbolic_divisions(sub(lhs, rhs), dom);
  arith::Interval d = arith::eval_interval(arith::simplify(diff, dom), dom);
  int64_t hi;
  if (!d.max || !as_const_int(arith::simplify(d.max, dom), &hi)) return false;
  return strict ? hi < 0 : hi <= 0;
}

// `lo <= value` or `value < hi + 1` with the constants on the side without variables
// (`16 <= i`, `h_0 * 8 + ax0 < 225`), as TVM writes them.
PrimExpr bound_term(const PrimExpr& value, const PrimExpr& limit, bool lower) {
  DataType t = value->dtype;
  PrimExpr lim = arith::simplify(lower ? limit : add(limit, make_int(1, limit->dtype)));
  int64_t c;
  if (!as_const_int(lim, &c))
    return lower ? make_binary(ExprKind::LE, lim, value) : make_binary(ExprKind::LT, value, lim);
  LinearForm l;
  collect_linear(value, 1, l);
  int64_t k = l.constant;
  l.constant = 0;
  PrimExpr rest = build_linear(l, t);
  return lower ? make_binary(ExprKind::LE, make_int(c - k, t), rest)
               : make_binary(ExprKind::LT, rest, make_int(c - k, t));
}

// `i * -1 + 9` as TVM's simplifier writes it: `9 - i`.
PrimExpr reversed_form(const PrimExpr& e) {
  LinearForm l;
  collect_linear(e, 1, l);
  if (l.terms.size() != 1 || l.terms[0].second != -1 || l.constant <= 0) return e;
  return sub(make_int(l.constant, e->dtype), l.terms[0].first);
}

namespace {

// What the accesses ask of one iterator (TVM's BlockVarDomainInfo before Simplify): `dom` the
// values needed, `bound` those that stay inside the buffer; unset where nothing constrains it.
struct VarNeed {
  std::optional<arith::Interval> dom, bound;
};

void unite(std::optional<arith::Interval>& into, const arith::Interval& x) {
  into = into ? arith::interval_union(*into, x) : x;
}

arith::Interval tidy(const arith::Interval& i, const arith::VarDomain& dom) {
  return {arith::simplify(simplify_div_bound(i.min, dom), dom), arith::simplify(simplify_div_bound(i.max, dom), dom)};
}

const VarNode* iter_var_of(const BlockNode* block, const PrimExpr& e) {
  auto* v = as<VarNode>(e);
  if (!v) return nullptr;
  for (const auto& iv : block->iter_vars) {
    if (iv.var.get() == v) return v;
  }
  return nullptr;
}

// TVM's SolveBlockVarDomain: one dimension's index (`point`: one element per instance) against
// the range `want` of that dimension. `v * c` asks v for [lo // c, hi // c]; a plain iterator
// for [lo, hi]; `x // c` asks x for [lo * c, hi * c + c - 1]; `v % c` asks nothing of v.
// False where the index has none of these forms.
bool solve_dim(const BlockNode* block, const PrimExpr& index, bool point, const arith::Interval& want,
               const PrimExpr& dim_max, const arith::VarDomain& loop_dom,
               std::unordered_map<const VarNode*, VarNeed>& needs) {
  PrimExpr e = arith::simplify(index);
  DataType t = e->dtype;
  int64_t c;
  if (e->kind == ExprKind::Mul) {
    const VarNode* v = iter_var_of(block, binary_a(e));
    PrimExpr k = binary_b(e);
    if (!v) {
      v = iter_var_of(block, binary_b(e));
      k = binary_a(e);
    }
    if (v && as_const_int(k, &c) && c > 0) {
      PrimExpr kc = make_int(c, t);
      unite(needs[v].dom, tidy({floordiv(want.min, kc), floordiv(want.max, kc)}, loop_dom));
      unite(needs[v].bound, tidy({make_int(0, t), floordiv(dim_max, kc)}, loop_dom));
      return true;
    }
  }
  if (!point) return false;
  // `c - v` (a reversed iteration): v over [c - hi, c - lo].
  LinearForm l;
  collect_linear(e, 1, l);
  if (l.terms.size() == 1 && l.terms[0].second == -1) {
    if (const VarNode* v = iter_var_of(block, l.terms[0].first)) {
      PrimExpr k = make_int(l.constant, t);
      unite(needs[v].dom, tidy({sub(k, want.max), sub(k, want.min)}, loop_dom));
      unite(needs[v].bound, tidy({sub(k, dim_max), k}, loop_dom));
      return true;
    }
  }
  if (const VarNode* v = iter_var_of(block, e)) {
    unite(needs[v].dom, want);
    unite(needs[v].bound, {make_int(0, t), dim_max});
    return true;
  }
  if (e->kind == ExprKind::FloorDiv && as_const_int(binary_b(e), &c) && c > 0) {
    PrimExpr kc = make_int(c, t), k1 = make_int(c - 1, t);
    arith::Interval scaled{arith::simplify(mul(want.min, kc)), arith::simplify(add(mul(want.max, kc), k1))};
    if (const VarNode* v = iter_var_of(block, binary_a(e))) {
      unite(needs[v].dom, scaled);
      unite(needs[v].bound, {make_int(0, t), arith::simplify(add(mul(dim_max, kc), k1))});
      return true;
    }
    return solve_dim(block, binary_a(e), true, scaled, dim_max, loop_dom, needs);
  }
  if (e->kind == ExprKind::FloorMod && as_const_int(binary_b(e), &c) && c > 0 && iter_var_of(block, binary_a(e)))
    return true;
  return false;
}

bool uses_var_in(const std::vector<PrimExpr>& es, const VarNode* v) {
  for (const PrimExpr& e : es) {
    if (uses_var(e, [&](const VarNode* x) { return x == v; })) return true;
  }
  return false;
}

// TVM's affine route: an access of one element per instance whose indices are a bijective
// affine map of the iterators (`B[v // 16, v % 16]`, `Y[9 - vi, 9 - vj]`) asks each iterator
// for the values its inverse takes over `want` (and over the buffer, for the bound). Over the
// box, not only at its corners: an inverse with a `%` may wrap inside it.
bool solve_affine(const BlockNode* block, const BufferRegion& access, const std::vector<arith::Interval>& want,
                  const arith::VarDomain& loop_dom, std::unordered_map<const VarNode*, VarNeed>& needs) {
  arith::LoopExtents extents;
  std::vector<std::pair<const VarNode*, int64_t>> loops;
  for (const auto& iv : block->iter_vars) {
    int64_t n;
    if (!is_zero(iv.dom.min) || !as_const_int(iv.dom.extent, &n)) return false;
    extents[iv.var.get()] = n;
    loops.emplace_back(iv.var.get(), n);
  }
  std::vector<PrimExpr> indices, outputs;
  arith::VarDomain want_dom, buffer_dom;
  for (size_t d = 0; d < access.region.size(); ++d) {
    if (!is_one(arith::simplify(access.region[d].extent)) || !want[d].min) return false;
    indices.push_back(access.region[d].min);
    DataType t = access.region[d].min->dtype;
    Var o = make_var("o" + std::to_string(d), t);
    outputs.push_back(o);
    want_dom[o.get()] = want[d];
    const PrimExpr& size = access.buffer->shape[d];
    buffer_dom[o.get()] = {make_int(0, t), arith::simplify(sub(cast(t, size), make_int(1, t)))};
  }
  arith::IterMapResult map = arith::detect_iter_map(indices, extents, /*require_bijective=*/true);
  if (!map.ok) return false;
  auto inverse = arith::inverse_iter_map_fused(map, outputs, loops);
  if (inverse.empty()) inverse = arith::inverse_iter_map(map, outputs);
  if (inverse.empty()) return false;
  // The inverse leaves out iterators of extent 1; one an index names still asks for that index.
  for (const auto& iv : block->iter_vars) {
    const VarNode* v = iv.var.get();
    if (inverse.count(v) || !uses_var_in(indices, v)) continue;
    bool named = false;
    for (size_t d = 0; d < indices.size() && !named; ++d) {
      if (as<VarNode>(indices[d]) == v) {
        inverse[v] = outputs[d];
        named = true;
      }
    }
    if (!named) return false;
  }
  std::vector<std::tuple<const VarNode*, arith::Interval, arith::Interval>> found;
  for (const auto& [v, expr] : inverse) {
    arith::Interval d = arith::eval_interval(expr, want_dom), b = arith::eval_interval(expr, buffer_dom);
    if (!d.min || !d.max || !b.min || !b.max) return false;
    found.emplace_back(v, tidy(d, loop_dom), tidy(b, loop_dom));
  }
  for (const auto& [v, d, b] : found) {
    unite(needs[v].dom, d);
    unite(needs[v].bound, b);
  }
  return true;
}

// The values of a read index over the new instances; `x % c` exactly where x stays within one
// multiple of c (`(v1 * 8 + v4) % 16` over one half of a row).
arith::Interval read_interval(const PrimExpr& index, const arith::VarDomain& dom, const arith::VarDomain& loop_dom) {
  int64_t c;
  if (index->kind == ExprKind::FloorMod && as_const_int(binary_b(index), &c) && c > 0) {
    arith::Interval x = arith::eval_interval(binary_a(index), dom);
    if (x.min && x.max) {
      PrimExpr k = make_int(c, index->dtype);
      PrimExpr qa = arith::simplify(simplify_div_bound(floordiv(x.min, k), loop_dom), loop_dom);
      PrimExpr qb = arith::simplify(simplify_div_bound(floordiv(x.max, k), loop_dom), loop_dom);
      if (is_zero(arith::simplify(sub(qa, qb))))
        return {arith::simplify(sub(x.min, mul(qa, k))), arith::simplify(sub(x.max, mul(qa, k)))};
    }
  }
  return arith::eval_interval(index, dom);
}

}  // namespace

// The iterator ranges a block needs so that its accesses of `buffers` cover `needed` (per
// buffer, per dimension), as TVM's CalculateBlockVarDomain finds them: the affine route, else
// dimension by dimension. Iterators nothing constrains keep their whole domain.
std::vector<IterRange> iter_ranges(const ScheduleState& s, BlockSid block_sid, const BlockNode* block,
                                   const std::vector<BufferRegion>& accesses,
                                   const std::unordered_map<const BufferNode*, std::vector<arith::Interval>>& needed,
                                   const arith::VarDomain& loop_dom) {
  std::unordered_map<const VarNode*, VarNeed> needs;
  for (const auto& access : accesses) {
    auto it = needed.find(access.buffer.get());
    if (it == needed.end()) continue;
    std::vector<arith::Interval> want = it->second;
    for (size_t d = 0; d < want.size(); ++d) {
      if (!want[d].min)
        fail(s, kUnboundedRegionError, {block_sid},
             "The region of buffer " + access.buffer->name + " that block {0} must cover cannot be bounded");
      want[d] = tidy(want[d], loop_dom);
    }
    if (solve_affine(block, access, want, loop_dom, needs)) continue;
    for (size_t d = 0; d < access.region.size(); ++d) {
      const Range& r = access.region[d];
      bool free_of_iters = !uses_var(r.min, [&](const VarNode* x) {
        for (const auto& iv : block->iter_vars) {
          if (iv.var.get() == x) return true;
        }
        return false;
      });
      if (free_of_iters) continue;
      DataType t = r.min->dtype;
      PrimExpr dim_max = arith::simplify(sub(cast(t, access.buffer->shape[d]), make_int(1, t)));
      if (!solve_dim(block, r.min, is_one(arith::simplify(r.extent)), want[d], dim_max, loop_dom, needs))
        fail_not_supported(s, {block_sid},
                           "block {0} accesses " + access.buffer->name + " with an index (" + ir::script(r.min) +
                               ") whose iterator range compute_at cannot solve");
    }
  }
  std::vector<IterRange> ranges;
  for (const auto& iv : block->iter_vars) {
    arith::Interval whole = arith::interval_of(iv.dom);
    auto it = needs.find(iv.var.get());
    if (it == needs.end() || !it->second.dom) {
      ranges.push_back({whole, std::nullopt});
      continue;
    }
    arith::Interval bound = it->second.bound ? arith::interval_clamp(*it->second.bound, whole, loop_dom) : whole;
    ranges.push_back({*it->second.dom, bound});
  }
  // TVM's BlockVarDomainInfo::Simplify: no bound where the range is inside it; the bound as
  // the range where it is inside the range, or where the two meet in constants.
  for (auto& r : ranges) {
    if (!r.bound) continue;
    const arith::Interval& b = *r.bound;
    auto le = [&](const PrimExpr& x, const PrimExpr& y) {
      return arith::can_prove(make_binary(ExprKind::LE, x, y), loop_dom);
    };
    if (le(b.min, r.range.min) && le(r.range.max, b.max)) {
      r.bound.reset();
    } else if (le(r.range.min, b.min) && le(b.max, r.range.max)) {
      r.range = b;
      r.bound.reset();
    } else {
      arith::Interval meet = arith::interval_clamp(r.range, b, loop_dom);
      int64_t lo, hi;
      if (as_const_int(meet.min, &lo) && as_const_int(meet.max, &hi)) {
        r.range = meet;
        r.bound.reset();
      }
    }
  }
  return ranges;
}

// reverse_compute_at runs the block's new instances after each iteration of the loop: all they
// read of what the producers write must have been written by then (an over-wide range, as a
// `%` in an index can give, would read elements later iterations produce).
void check_reads_produced(const ScheduleState& s, BlockSid block_sid, const BlockNode* block,
                          const std::vector<IterRange>& ranges,
                          const std::unordered_map<const BufferNode*, std::vector<arith::Interval>>& produced,
                          const arith::VarDomain& loop_dom) {
  arith::VarDomain dom;
  for (size_t i = 0; i < ranges.size(); ++i) {
    dom[block->iter_vars[i].var.get()] =
        ranges[i].bound ? arith::interval_clamp(ranges[i].range, *ranges[i].bound, loop_dom) : ranges[i].range;
  }
  for (const auto& access : block->reads) {
    auto it = produced.find(access.buffer.get());
    if (it == produced.end()) continue;
    for (size_t d = 0; d < access.region.size(); ++d) {
      const Range& r = access.region[d];
      const PrimExpr& size = access.buffer->shape[d];
      arith::Interval in_buffer = arith::interval_of(Range{make_int(0, size->dtype), size});
      arith::Interval made = tidy(arith::interval_clamp(it->second[d], in_buffer, loop_dom), loop_dom);
      arith::Interval lo = read_interval(r.min, dom, loop_dom);
      arith::Interval hi = is_one(arith::simplify(r.extent))
                               ? lo
                               : read_interval(sub(add(r.min, r.extent), make_int(1, r.extent->dtype)), dom, loop_dom);
      if (!lo.min || !hi.max) {
        fail(s, kConsumerRegionNotCoveredError, {block_sid},
             fmt::format("The block {{0}} reads elements of {} in dimension {} (index {}) that cannot be bounded, so "
                         "not shown to be "
                         "produced by one iteration of the loop",
                         access.buffer->name, d, ir::script(r.min)));
      }
      PrimExpr first = arith::simplify(simplify_div_bound(lo.min, loop_dom), loop_dom);
      PrimExpr last = arith::simplify(simplify_div_bound(hi.max, loop_dom), loop_dom);
      if (!prove_bound(make_binary(ExprKind::LE, made.min, first), loop_dom) ||
          !prove_bound(make_binary(ExprKind::LE, last, made.max), loop_dom)) {
        fail(s, kConsumerRegionNotCoveredError, {block_sid},
             fmt::format("The block {{0}} reads elements {}:{} of {} in dimension {}, more than one iteration of the "
                         "loop produces",
                         ir::script(first), ir::script(arith::simplify(add(last, make_int(1, last->dtype)))),
                         access.buffer->name, d));
      }
    }
  }
}

void check_instances_kept(const ScheduleState& s, BlockSid block_sid, const BlockNode* block,
                          const std::unordered_map<const BufferNode*, std::vector<arith::Interval>>& produced) {
  // Under the loop, the block runs the instances whose reads fall in what an iteration
  // produces. An instance that read outside the buffer (a padding block's border, its read
  // guarded by T.if_then_else) is in no iteration's region: it would no longer run.
  auto le = [](const PrimExpr& a, const PrimExpr& b) { return arith::can_prove(make_binary(ExprKind::LE, a, b), {}); };
  // The reads over the iterators' domains, or over the loops' (either bounds every instance).
  arith::VarDomain iter_dom;
  for (const auto& iv : block->iter_vars) iter_dom[iv.var.get()] = arith::interval_of(iv.dom);
  auto in_buffer = [&](const arith::Interval& r, const PrimExpr& size) {
    return r.min && r.max && le(make_int(0, r.min->dtype), r.min) && le(r.max, sub(size, make_int(1, size->dtype)));
  };
  for (const auto& access : block->reads) {
    if (!produced.count(access.buffer.get())) continue;
    std::vector<arith::Interval> region = relaxed_region(s, block_sid, /*every loop*/ LoopSid(), access);
    for (size_t d = 0; d < region.size(); ++d) {
      const PrimExpr& size = access.buffer->shape[d];
      const Range& r = access.region[d];
      arith::Interval by_domain{relax_bounds(r.min, iter_dom).min,
                                relax_bounds(sub(add(r.min, r.extent), make_int(1, r.extent->dtype)), iter_dom).max};
      bool inside = in_buffer(region[d], size) || in_buffer(by_domain, size);
      if (!inside) {
        fail_not_supported(
            s, {block_sid},
            fmt::format("moving block {{0}} would drop instances: they read {} in dimension {} at {}..{}, outside "
                        "the buffer (a guarded read, as a padding block's border), which no iteration produces",
                        access.buffer->name, d, region[d].min ? ir::script(region[d].min) : "?",
                        region[d].max ? ir::script(region[d].max) : "?"));
      }
    }
  }
}

}  // namespace tsch::schedule::compute_at_detail
