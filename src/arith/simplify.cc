// A small canonical simplifier, after TVM's CanonicalSimplifier: expressions become
// sum(coeff * term) + constant; floordiv/floormod by a positive constant split the sum into
// the part divisible by the divisor and a remainder whose range decides the result.
#include "arith/simplify.h"

#include <optional>
#include <vector>

#include "arith/int_set.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::arith {

using namespace ir;

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// sum(coeff_i * term_i) + constant; terms in order of first appearance.
struct Linear {
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t constant = 0;

  void add_term(const PrimExpr& t, int64_t c) {
    for (auto& [term, coeff] : terms) {
      if (expr_deep_equal(term, t)) {
        coeff += c;
        return;
      }
    }
    terms.emplace_back(t, c);
  }
  void add(const Linear& o, int64_t scale) {
    for (const auto& [t, c] : o.terms) add_term(t, c * scale);
    constant += o.constant * scale;
  }
  bool is_const() const {
    for (const auto& [t, c] : terms) {
      if (c != 0) return false;
    }
    return true;
  }
};

class Simplifier {
 public:
  explicit Simplifier(const VarDomain* dom) : dom_(dom) {}

  PrimExpr run(const PrimExpr& e) {
    if (!e || !e->dtype.is_integer() || !e->dtype.is_scalar()) return e;
    Linear l = to_linear(e);
    fold_div_mod(l);
    return build(l, e->dtype);
  }

 private:
  // k*c * (x // c) + k * (x % c) is k * x: what flattening a fused or split loop's indices
  // leaves (`i // 128 * 128 + i % 128`), and what would otherwise vectorize as a gather.
  void fold_div_mod(Linear& l) {
    for (auto& [div, dcoeff] : l.terms) {
      if (dcoeff == 0 || div->kind != ExprKind::FloorDiv) continue;
      int64_t c;
      if (!as_const_int(binary_b(div), &c) || c <= 0 || dcoeff % c != 0) continue;
      for (auto& [mod, mcoeff] : l.terms) {
        if (mcoeff == 0 || mod->kind != ExprKind::FloorMod || mcoeff * c != dcoeff) continue;
        int64_t m;
        if (!as_const_int(binary_b(mod), &m) || m != c || !expr_deep_equal(binary_a(div), binary_a(mod))) continue;
        int64_t k = mcoeff;
        PrimExpr x = binary_a(div);
        dcoeff = 0;
        mcoeff = 0;
        l.add(to_linear(x), k);
        fold_div_mod(l);  // the terms may have moved; start over on what is left
        return;
      }
    }
    // The same over a symbolic divisor d, where `x // d * d` is one product term: what the
    // inverse of a fusion over a symbolic extent leaves (`v0 // n * n + v0 % n`).
    for (auto& [prod, pcoeff] : l.terms) {
      if (pcoeff == 0 || prod->kind != ExprKind::Mul) continue;
      for (int side = 0; side < 2; ++side) {
        const PrimExpr& div = side == 0 ? binary_a(prod) : binary_b(prod);
        const PrimExpr& d = side == 0 ? binary_b(prod) : binary_a(prod);
        if (div->kind != ExprKind::FloorDiv || !expr_deep_equal(binary_b(div), d)) continue;
        for (auto& [mod, mcoeff] : l.terms) {
          if (mcoeff != pcoeff || mod->kind != ExprKind::FloorMod || !expr_deep_equal(binary_b(mod), d) ||
              !expr_deep_equal(binary_a(mod), binary_a(div))) {
            continue;
          }
          // x takes the product's place among the terms, where TVM's simplifier leaves it
          // (`x // d * d + x % d + y` is `x + y`, not `y + x`).
          int64_t k = mcoeff;
          PrimExpr x = binary_a(div);
          Linear merged;
          merged.constant = l.constant;
          for (const auto& term : l.terms) {
            if (&term.first == &prod)
              merged.add(to_linear(x), k);
            else if (&term.first != &mod)
              merged.add_term(term.first, term.second);
          }
          l = std::move(merged);
          fold_div_mod(l);
          return;
        }
      }
    }
  }

  PrimExpr build(const Linear& l, DataType t) {
    PrimExpr result;
    for (const auto& [term, coeff] : l.terms) {
      if (coeff == 0) continue;
      if (!result) {
        result = coeff == 1 ? term : mul(term, make_int(coeff, t));
      } else if (coeff > 0) {
        result = add(result, coeff == 1 ? term : mul(term, make_int(coeff, t)));
      } else {
        result = sub(result, coeff == -1 ? term : mul(term, make_int(-coeff, t)));
      }
    }
    if (!result) return make_int(l.constant, t);
    if (l.constant > 0) return add(result, make_int(l.constant, t));
    if (l.constant < 0) return sub(result, make_int(-l.constant, t));
    return result;
  }

  // Constant bounds of a linear form under the domain, if known.
  bool const_bounds(const Linear& l, DataType t, int64_t& lo, int64_t& hi) {
    if (l.is_const()) {
      lo = hi = l.constant;
      return true;
    }
    if (!dom_) return false;
    Interval iv = eval_interval(build(l, t), *dom_);
    return iv.min && as_const_int(iv.min, &lo) && as_const_int(iv.max, &hi);
  }

  Linear div_mod(const PrimExpr& e, bool is_div) {
    const PrimExpr& a = binary_a(e);
    int64_t c;
    Linear out;
    if (!as_const_int(binary_b(e), &c) || c <= 0) {
      PrimExpr dividend = run(a);
      if (is_zero(dividend)) return out;  // 0 // d and 0 % d are 0, as TVM's constant folding
      out.add_term(make_binary(e->kind, dividend, run(binary_b(e))), 1);
      return out;
    }
    Linear la = to_linear(a);
    Linear quotient, remainder;
    for (const auto& [term, coeff] : la.terms) {
      if (coeff % c == 0)
        quotient.add_term(term, coeff / c);
      else
        remainder.add_term(term, coeff);
    }
    int64_t k = floor_div(la.constant, c);
    quotient.constant = k;
    remainder.constant = la.constant - k * c;
    int64_t lo, hi;
    if (const_bounds(remainder, e->dtype, lo, hi) && floor_div(lo, c) == floor_div(hi, c)) {
      int64_t shift = floor_div(lo, c);
      if (is_div) {
        quotient.constant += shift;
        return quotient;
      }
      remainder.constant -= shift * c;
      return remainder;
    }
    PrimExpr rebuilt = build(la, e->dtype);
    // TVM's canonical form of a split: `x // c1 % c` is `x % (c1 * c) // c1`.
    int64_t c1, product;
    if (!is_div && rebuilt->kind == ExprKind::FloorDiv && as_const_int(binary_b(rebuilt), &c1) && c1 > 0 &&
        !__builtin_mul_overflow(c1, c, &product) &&
        (e->dtype.bits >= 64 || product < (int64_t{1} << (e->dtype.bits - 1)))) {
      PrimExpr inner = run(make_binary(ExprKind::FloorMod, binary_a(rebuilt), make_int(product, e->dtype)));
      out.add_term(make_binary(ExprKind::FloorDiv, inner, binary_b(rebuilt)), 1);
      return out;
    }
    out.add_term(make_binary(e->kind, rebuilt, make_int(c, e->dtype)), 1);
    return out;
  }

  Linear min_max(const PrimExpr& e) {
    PrimExpr a = run(binary_a(e)), b = run(binary_b(e));
    Linear diff = to_linear(sub(a, b));
    int64_t lo, hi;
    Linear out;
    if (const_bounds(diff, e->dtype, lo, hi)) {
      bool a_smaller = hi <= 0, b_smaller = lo >= 0;
      bool is_min = e->kind == ExprKind::Min;
      if (a_smaller || b_smaller) return to_linear((is_min == a_smaller) ? a : b);
    }
    out.add_term(make_binary(e->kind, a, b), 1);
    return out;
  }

  Linear to_linear(const PrimExpr& e) {
    Linear l;
    if (auto* imm = as<IntImmNode>(e)) {
      l.constant = imm->value;
      return l;
    }
    switch (e->kind) {
      case ExprKind::Add:
        l = to_linear(binary_a(e));
        l.add(to_linear(binary_b(e)), 1);
        return l;
      case ExprKind::Sub:
        l = to_linear(binary_a(e));
        l.add(to_linear(binary_b(e)), -1);
        return l;
      case ExprKind::Mul: {
        Linear a = to_linear(binary_a(e)), b = to_linear(binary_b(e));
        if (b.is_const()) {
          l.add(a, b.constant);
          return l;
        }
        if (a.is_const()) {
          l.add(b, a.constant);
          return l;
        }
        l.add_term(mul(build(a, e->dtype), build(b, e->dtype)), 1);
        return l;
      }
      case ExprKind::FloorDiv:
        return div_mod(e, true);
      case ExprKind::FloorMod:
        return div_mod(e, false);
      case ExprKind::Min:
      case ExprKind::Max:
        return min_max(e);
      case ExprKind::Call: {
        // A call is one term, its arguments simplified first (as TVM's simplifier visits
        // them), so `f(v + 1) - f(1 + v)` cancels.
        auto* call = as<CallNode>(e);
        std::vector<PrimExpr> args;
        bool changed = false;
        for (const PrimExpr& arg : call->args) {
          args.push_back(run(arg));
          changed = changed || args.back() != arg;
        }
        l.add_term(changed ? std::make_shared<CallNode>(call->dtype, call->op, std::move(args)) : e, 1);
        return l;
      }
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
      case ExprKind::Var:
      case ExprKind::Div:
      case ExprKind::Mod:
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
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
      case ExprKind::Let:
        break;
    }
    l.add_term(e, 1);
    return l;
  }

  const VarDomain* dom_;
};

}  // namespace

PrimExpr simplify(const PrimExpr& e) { return Simplifier(nullptr).run(e); }

PrimExpr simplify(const PrimExpr& e, const VarDomain& dom) { return Simplifier(&dom).run(e); }

PrimExpr simplify_folding_points(const PrimExpr& e, const VarDomain& dom) {
  std::unordered_map<const VarNode*, PrimExpr> points;
  for (const auto& [var, range] : dom) {
    int64_t lo, hi;
    if (range.min && range.max && as_const_int(range.min, &lo) && as_const_int(range.max, &hi) && lo == hi)
      points[var] = make_int(lo, var->dtype);
  }
  if (points.empty() || !uses_var(e, [&](const VarNode* v) { return points.count(v) > 0; })) return simplify(e, dom);
  return simplify(substitute(e, points), dom);
}

PrimExpr extent_between(const PrimExpr& lo, const PrimExpr& hi) {
  if (hi->kind == ExprKind::Add && binary_b(hi)->dtype == hi->dtype && expr_deep_equal(binary_a(hi), lo))
    return binary_b(hi);
  return simplify(sub(hi, lo));
}

bool can_prove(const PrimExpr& e, const VarDomain& dom) {
  int64_t c;
  if (as_const_int(e, &c)) return c != 0;
  // One side of the difference's interval may be symbolic: `i_0 * 32 + i_1 >= 0` needs only
  // the lower bound.
  std::optional<int64_t> lo, hi;
  auto bound_diff = [&] {
    Interval iv = eval_interval(simplify(sub(binary_a(e), binary_b(e)), dom), dom);
    int64_t v;
    if (iv.min && as_const_int(iv.min, &v)) lo = v;
    if (iv.max && as_const_int(iv.max, &v)) hi = v;
  };
  switch (e->kind) {
    case ExprKind::LT:
      bound_diff();
      return hi && *hi < 0;
    case ExprKind::LE:
      bound_diff();
      return hi && *hi <= 0;
    case ExprKind::GT:
      bound_diff();
      return lo && *lo > 0;
    case ExprKind::GE:
      bound_diff();
      return lo && *lo >= 0;
    case ExprKind::EQ:
      bound_diff();
      return lo && hi && *lo == 0 && *hi == 0;
    case ExprKind::NE:
      bound_diff();
      return (lo && *lo > 0) || (hi && *hi < 0);
    case ExprKind::And:
      return can_prove(binary_a(e), dom) && can_prove(binary_b(e), dom);
    case ExprKind::Or:
      return can_prove(binary_a(e), dom) || can_prove(binary_b(e), dom);
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
  return false;
}

}  // namespace tsch::arith
