#include "arith/simplify.h"

#include <vector>

#include "ir/expr_equal.h"
#include "ir/op.h"

namespace tsch::arith {

using namespace ir;

namespace {

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

Linear to_linear(const PrimExpr& e);

PrimExpr simplify_atom(const PrimExpr& e) {
  switch (e->kind) {
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max: {
      PrimExpr a = simplify(binary_a(e)), b = simplify(binary_b(e));
      return make_binary(e->kind, a, b);
    }
    default:
      return e;
  }
}

Linear to_linear(const PrimExpr& e) {
  Linear l;
  if (auto* imm = as<IntImmNode>(e)) {
    l.constant = imm->value;
    return l;
  }
  switch (e->kind) {
    case ExprKind::Add: {
      l = to_linear(binary_a(e));
      l.add(to_linear(binary_b(e)), 1);
      return l;
    }
    case ExprKind::Sub: {
      l = to_linear(binary_a(e));
      l.add(to_linear(binary_b(e)), -1);
      return l;
    }
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
      break;
    }
    default:
      break;
  }
  l.add_term(simplify_atom(e), 1);
  return l;
}

}  // namespace

PrimExpr simplify(const PrimExpr& e) {
  if (!e || !e->dtype.is_integer() || !e->dtype.is_scalar()) return e;
  Linear l = to_linear(e);
  DataType t = e->dtype;
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

}  // namespace tsch::arith
