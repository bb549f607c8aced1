#include "arith/int_set.h"

#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::arith {

using namespace ir;

namespace {

Interval point(const PrimExpr& e) { return {e, e}; }

bool const_value(const PrimExpr& e, int64_t* v) { return as_const_int(simplify(e), v); }

// min/max of two bounds: exact when they are equal or differ by a known constant.
PrimExpr bound_min(const PrimExpr& a, const PrimExpr& b) {
  if (expr_deep_equal(a, b)) return a;
  int64_t d;
  if (const_value(sub(a, b), &d)) return d <= 0 ? a : b;
  return make_binary(ExprKind::Min, a, b);
}

PrimExpr bound_max(const PrimExpr& a, const PrimExpr& b) {
  if (expr_deep_equal(a, b)) return a;
  int64_t d;
  if (const_value(sub(a, b), &d)) return d >= 0 ? a : b;
  return make_binary(ExprKind::Max, a, b);
}

}  // namespace

Interval interval_union(const Interval& a, const Interval& b) {
  return {simplify(bound_min(a.min, b.min)), simplify(bound_max(a.max, b.max))};
}

Interval interval_clamp(const Interval& a, const Interval& b, const VarDomain& dom) {
  Interval out = a;
  if (!can_prove(make_binary(ExprKind::GE, a.min, b.min), dom)) out.min = simplify(bound_max(a.min, b.min), dom);
  if (!can_prove(make_binary(ExprKind::LE, a.max, b.max), dom)) out.max = simplify(bound_min(a.max, b.max), dom);
  return out;
}

Interval interval_of(const Range& r) {
  return {r.min, simplify(sub(add(r.min, r.extent), make_int(1, r.extent->dtype)))};
}

Range range_of(const Interval& i) { return {i.min, simplify(add(sub(i.max, i.min), make_int(1, i.min->dtype)))}; }

Interval eval_interval(const PrimExpr& e, const VarDomain& dom) {
  if (auto* v = as<VarNode>(e)) {
    auto it = dom.find(v);
    return it == dom.end() ? point(e) : it->second;
  }
  switch (e->kind) {
    case ExprKind::IntImm:
      return point(e);
    case ExprKind::Add: {
      Interval a = eval_interval(binary_a(e), dom), b = eval_interval(binary_b(e), dom);
      if (!a.min || !b.min) return Interval{};
      return {simplify(add(a.min, b.min)), simplify(add(a.max, b.max))};
    }
    case ExprKind::Sub: {
      Interval a = eval_interval(binary_a(e), dom), b = eval_interval(binary_b(e), dom);
      if (!a.min || !b.min) return Interval{};
      return {simplify(sub(a.min, b.max)), simplify(sub(a.max, b.min))};
    }
    case ExprKind::Mul: {
      int64_t c;
      const PrimExpr* other = nullptr;
      if (const_value(binary_b(e), &c))
        other = &binary_a(e);
      else if (const_value(binary_a(e), &c))
        other = &binary_b(e);
      if (other) {
        Interval a = eval_interval(*other, dom);
        if (!a.min) return Interval{};
        PrimExpr k = make_int(c, e->dtype);
        if (c >= 0) return {simplify(mul(a.min, k)), simplify(mul(a.max, k))};
        return {simplify(mul(a.max, k)), simplify(mul(a.min, k))};
      }
      break;
    }
    case ExprKind::FloorDiv: {
      int64_t c;
      if (const_value(binary_b(e), &c) && c > 0) {
        Interval a = eval_interval(binary_a(e), dom);
        if (!a.min) return Interval{};
        PrimExpr k = make_int(c, e->dtype);
        return {floordiv(a.min, k), floordiv(a.max, k)};
      }
      break;
    }
    case ExprKind::FloorMod: {
      int64_t c;
      if (const_value(binary_b(e), &c) && c > 0) {
        Interval a = eval_interval(binary_a(e), dom);
        if (!a.min) return Interval{};
        if (expr_deep_equal(a.min, a.max)) return point(floormod(a.min, make_int(c, e->dtype)));
        int64_t lo, hi;
        if (const_value(a.min, &lo) && const_value(a.max, &hi) && lo >= 0 && hi < c) return a;
        return {make_int(0, e->dtype), make_int(c - 1, e->dtype)};
      }
      break;
    }
    case ExprKind::Min: {
      Interval a = eval_interval(binary_a(e), dom), b = eval_interval(binary_b(e), dom);
      if (!a.min || !b.min) return Interval{};
      return {bound_min(a.min, b.min), bound_min(a.max, b.max)};
    }
    case ExprKind::Max: {
      Interval a = eval_interval(binary_a(e), dom), b = eval_interval(binary_b(e), dom);
      if (!a.min || !b.min) return Interval{};
      return {bound_max(a.min, b.min), bound_max(a.max, b.max)};
    }
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
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  // Anything else is exact when it uses no relaxed variable, and unknown otherwise.
  if (uses_var(e, [&](const VarNode* v) { return dom.count(v) > 0; })) return Interval{};
  return point(e);
}

}  // namespace tsch::arith
