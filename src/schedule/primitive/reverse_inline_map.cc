#include "schedule/primitive/reverse_inline_map.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// One digit of an iterator: (v // lower) % extent; extent 0 when unbounded (`v // lower`).
struct Digit {
  const VarNode* var = nullptr;
  int64_t lower = 1, extent = 0;
  size_t output = 0;
};

std::optional<Digit> parse_digit(const PrimExpr& e) {
  int64_t c;
  if (auto* v = as<VarNode>(e)) return Digit{v, 1, 0, 0};
  if (e->kind == ExprKind::FloorDiv && as_const_int(binary_b(e), &c) && c > 0) {
    if (auto* v = as<VarNode>(binary_a(e))) return Digit{v, c, 0, 0};
  }
  if (e->kind == ExprKind::FloorMod && as_const_int(binary_b(e), &c) && c > 0) {
    std::optional<Digit> inner = parse_digit(binary_a(e));
    if (inner && inner->extent == 0) return Digit{inner->var, inner->lower, c, 0};
  }
  return std::nullopt;
}

}  // namespace

std::unordered_map<const VarNode*, PrimExpr> digits_inverse(const std::vector<PrimExpr>& loads,
                                                            const std::vector<IterVar>& iters,
                                                            const std::vector<PrimExpr>& outputs) {
  std::unordered_map<const VarNode*, std::vector<Digit>> digits;
  for (size_t d = 0; d < loads.size(); ++d) {
    int64_t unused;
    if (as_const_int(loads[d], &unused)) continue;  // a fixed index: the proof decides
    std::optional<Digit> digit = parse_digit(loads[d]);
    if (!digit) return {};
    digit->output = d;
    digits[digit->var].push_back(*digit);
  }
  std::unordered_map<const VarNode*, PrimExpr> inverse;
  for (const IterVar& iv : iters) {
    auto it = digits.find(iv.var.get());
    if (it == digits.end()) {
      if (!is_const_int(iv.dom.extent, 1)) return {};
      inverse[iv.var.get()] = iv.dom.min;
      continue;
    }
    std::vector<Digit>& ds = it->second;
    std::stable_sort(ds.begin(), ds.end(), [](const Digit& a, const Digit& b) { return a.lower < b.lower; });
    // The digits tile the iterator from the innermost: lower factors 1, e0, e0 * e1, ...
    int64_t expected = 1;
    PrimExpr value;
    for (size_t k = 0; k < ds.size(); ++k) {
      if (ds[k].lower != expected || (ds[k].extent == 0 && k + 1 != ds.size())) return {};
      const PrimExpr& out = outputs[ds[k].output];
      value = !value ? out : add(value, mul(out, make_int(ds[k].lower, out->dtype)));
      expected = ds[k].lower * ds[k].extent;
    }
    // v == sum of its digits times their lower factors for every v >= 0 when the outermost
    // digit is unbounded, and for v < its lower factor times its extent when it is bounded: the
    // inverse of the load is then the identity over the consumer's domain.
    int64_t lo, extent;
    if (!as_const_int(iv.dom.min, &lo) || !as_const_int(iv.dom.extent, &extent) || lo < 0) return {};
    if (ds.back().extent != 0 && lo + extent > expected) return {};
    inverse[iv.var.get()] = value;
  }
  return inverse;
}

bool digits_invert_load(const std::unordered_map<const VarNode*, PrimExpr>& inverse, const std::vector<PrimExpr>& loads,
                        const std::vector<PrimExpr>& stores, const std::vector<IterVar>& iters,
                        const arith::VarDomain& producer_dom, const arith::VarDomain& consumer_dom) {
  // The inverse of the load is the identity by digits_inverse's construction; what is left
  // to prove is the other direction and that the producer writes all the consumer reads.
  // The producer stores at distinct iterators, each of its iterators among them: it writes
  // the box of their domains, each element once.
  if (loads.size() != stores.size()) return false;
  std::unordered_set<const VarNode*> stored;
  for (const PrimExpr& index : stores) {
    auto* v = as<VarNode>(index);
    if (!v || !producer_dom.count(v) || !stored.insert(v).second) return false;
  }
  for (const auto& [v, range] : producer_dom) {
    int64_t lo, hi;
    bool point = range.min && as_const_int(range.min, &lo) && as_const_int(range.max, &hi) && lo == hi;
    if (!stored.count(v) && !point) return false;
  }
  auto is_zero_under = [](const PrimExpr& e, const arith::VarDomain& dom) { return is_zero(arith::simplify(e, dom)); };
  for (size_t d = 0; d < loads.size(); ++d) {
    // The load at the inverse of what the producer writes is that element ...
    if (!is_zero_under(sub(substitute(loads[d], inverse), stores[d]), producer_dom)) return false;
    // ... and every element the consumer loads is one the producer writes.
    arith::Interval read = arith::eval_interval(loads[d], consumer_dom);
    const arith::Interval& written = producer_dom.at(as<VarNode>(stores[d]));
    if (!read.min || !arith::can_prove(make_binary(ExprKind::LE, written.min, read.min), {}) ||
        !arith::can_prove(make_binary(ExprKind::LE, read.max, written.max), {}))
      return false;
  }
  for (const IterVar& iv : iters) {
    if (!inverse.count(iv.var.get())) return false;
  }
  return true;
}

namespace {

void collect_terms(const PrimExpr& e, int64_t sign, std::vector<std::pair<PrimExpr, int64_t>>& terms,
                   int64_t& constant) {
  int64_t c;
  if (as_const_int(e, &c)) {
    constant += sign * c;
  } else if (e->kind == ExprKind::Add || e->kind == ExprKind::Sub) {
    collect_terms(binary_a(e), sign, terms, constant);
    collect_terms(binary_b(e), e->kind == ExprKind::Add ? sign : -sign, terms, constant);
  } else if (e->kind == ExprKind::Mul && as_const_int(binary_b(e), &c)) {
    terms.emplace_back(binary_a(e), sign * c);
  } else {
    terms.emplace_back(e, sign);
  }
}

}  // namespace

PrimExpr tvm_sum_order(const PrimExpr& e) {
  PrimExpr s = arith::simplify(e);
  if (!s->dtype.is_integer()) return s;
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t constant = 0;
  collect_terms(s, 1, terms, constant);
  if (terms.size() < 2) return s;
  std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  DataType t = s->dtype;
  PrimExpr out;
  for (const auto& [term, coeff] : terms) {
    PrimExpr scaled = (coeff == 1 || coeff == -1) ? term : mul(term, make_int(coeff < 0 ? -coeff : coeff, t));
    if (!out)
      out = coeff < 0 ? sub(make_int(0, t), scaled) : scaled;
    else
      out = coeff < 0 ? sub(out, scaled) : add(out, scaled);
  }
  if (constant > 0) out = add(out, make_int(constant, t));
  if (constant < 0) out = sub(out, make_int(-constant, t));
  return out;
}

std::vector<PrimExpr> tvm_fold_guards(std::vector<PrimExpr> guards) {
  int64_t c1, c2, c3;
  for (PrimExpr& g : guards) {
    if (g->kind != ExprKind::LT || !as_const_int(binary_b(g), &c2)) continue;
    const PrimExpr& a = binary_a(g);
    if (a->kind == ExprKind::FloorDiv && as_const_int(binary_b(a), &c1) && c1 > 0)
      g = make_binary(ExprKind::LT, binary_a(a), make_int(c1 * c2, binary_a(a)->dtype));
  }
  for (size_t i = 0; i < guards.size(); ++i) {
    PrimExpr& bound = guards[i];
    if (bound->kind != ExprKind::LT || !as_const_int(binary_b(bound), &c1)) continue;
    for (size_t j = i + 1; j < guards.size(); ++j) {
      const PrimExpr& mod_guard = guards[j];
      if (mod_guard->kind != ExprKind::LT || !as_const_int(binary_b(mod_guard), &c3)) continue;
      const PrimExpr& m = binary_a(mod_guard);
      if (m->kind != ExprKind::FloorMod || !as_const_int(binary_b(m), &c2) || c2 <= 0 || c3 < 0 || c3 > c2 ||
          !expr_deep_equal(binary_a(m), binary_a(bound)))
        continue;
      int64_t rem = ((c1 % c2) + c2) % c2;
      int64_t tightened = rem == 0 ? c1 - c2 + c3 : (rem > c3 ? c1 - rem + c3 : c1);
      if (tightened != c1)
        bound = make_binary(ExprKind::LT, binary_a(bound), make_int(tightened, binary_b(bound)->dtype));
      break;
    }
  }
  return guards;
}

}  // namespace tsch::schedule
