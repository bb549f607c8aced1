// Analyzer state and its queries (analyzer.h).
#include "arith/analyzer.h"

#include <algorithm>

#include "arith/int_set.h"
#include "arith/known_divisor.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::arith {

ir::PrimExpr Analyzer::prepare(const ir::PrimExpr& e) const { return values.empty() ? e : ir::substitute(e, values); }

ir::PrimExpr Analyzer::simplify(const ir::PrimExpr& e) const { return arith::simplify(prepare(e), dom); }

int64_t dtype_min(ir::DataType t) {
  if (t.is_uint()) return 0;
  return t.bits >= 64 ? kNegInf : -(int64_t{1} << (t.bits - 1));
}

int64_t dtype_max(ir::DataType t) {
  if (t.bits >= 64 || (t.is_uint() && t.bits >= 63)) return kPosInf;
  return t.is_uint() ? (int64_t{1} << t.bits) - 1 : (int64_t{1} << (t.bits - 1)) - 1;
}

std::pair<int64_t, int64_t> const_bounds(const Analyzer& an, const ir::PrimExpr& expr) {
  ir::PrimExpr e = an.prepare(expr);
  if (!e->dtype.is_integer() && !e->dtype.is_bool()) return {kNegInf, kPosInf};
  if (e->dtype.is_bool()) return {0, 1};
  Interval iv = eval_interval(e, an.dom);
  int64_t lo = kNegInf, hi = kPosInf;
  if (!iv.min || !ir::as_const_int(arith::simplify(iv.min, an.dom), &lo))
    lo = ir::as<ir::VarNode>(e) ? dtype_min(e->dtype) : kNegInf;
  if (!iv.max || !ir::as_const_int(arith::simplify(iv.max, an.dom), &hi))
    hi = ir::as<ir::VarNode>(e) ? dtype_max(e->dtype) : kPosInf;
  return {lo, hi};
}

void narrow_by(Analyzer& an, const ir::PrimExpr& cond) {
  if (auto* both = ir::as<ir::AndNode>(cond)) {
    narrow_by(an, both->a);
    narrow_by(an, both->b);
    return;
  }
  auto narrow = [&](const ir::PrimExpr& var_side, const ir::PrimExpr& const_side, int64_t lo_shift, int64_t hi_shift,
                    bool lower, bool upper) {
    auto* var = ir::as<ir::VarNode>(var_side);
    int64_t c = 0;
    if (!var || !ir::as_const_int(const_side, &c)) return;
    auto [lo, hi] = const_bounds(an, var_side);
    if (lower) lo = std::max(lo, c + lo_shift);
    if (upper) hi = std::min(hi, c + hi_shift);
    an.dom[var] = Interval{ir::make_int(lo, var->dtype), ir::make_int(hi, var->dtype)};
    an.vars.push_back(std::static_pointer_cast<const ir::VarNode>(var_side));
  };
  if (auto* lt = ir::as<ir::LTNode>(cond)) {
    narrow(lt->a, lt->b, 0, -1, false, true);
    narrow(lt->b, lt->a, 1, 0, true, false);
  } else if (auto* le = ir::as<ir::LENode>(cond)) {
    narrow(le->a, le->b, 0, 0, false, true);
    narrow(le->b, le->a, 0, 0, true, false);
  } else if (auto* gt = ir::as<ir::GTNode>(cond)) {
    narrow(gt->a, gt->b, 1, 0, true, false);
    narrow(gt->b, gt->a, 0, -1, false, true);
  } else if (auto* ge = ir::as<ir::GENode>(cond)) {
    narrow(ge->a, ge->b, 0, 0, true, false);
    narrow(ge->b, ge->a, 0, 0, false, true);
  } else if (auto* eq = ir::as<ir::EQNode>(cond)) {
    narrow(eq->a, eq->b, 0, 0, true, true);
    narrow(eq->b, eq->a, 0, 0, true, true);
  }
}

bool can_prove_equal(const ir::PrimExpr& lhs, const ir::PrimExpr& rhs) {
  int64_t x = 0, y = 0;
  if (ir::as<ir::IntImmNode>(lhs) && ir::as<ir::IntImmNode>(rhs) && ir::as_const_int(lhs, &x) &&
      ir::as_const_int(rhs, &y))
    return x == y;
  if (lhs->dtype.is_handle() || rhs->dtype.is_handle()) return lhs == rhs;
  return ir::is_zero(arith::simplify(ir::sub(lhs, rhs)));
}

std::pair<int64_t, int64_t> modular_set_of(const ir::PrimExpr& e) {
  int64_t c = 0;
  if (ir::as_const_int(e, &c)) return {0, c};
  ir::PrimExpr rest = e;
  int64_t base = 0;
  if (auto* add = ir::as<ir::AddNode>(e); add && ir::as_const_int(add->b, &base))
    rest = add->a;
  else if (auto* sub = ir::as<ir::SubNode>(e); sub && ir::as_const_int(sub->b, &base))
    rest = sub->a, base = -base;
  int64_t coeff = std::max<int64_t>(known_divisor(rest), 1);
  return {coeff, ((base % coeff) + coeff) % coeff};
}

}  // namespace tsch::arith
