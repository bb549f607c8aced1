#include "arith/known_divisor.h"

#include <numeric>

#include "ir/op.h"

namespace tsch::arith {

using namespace ir;

int64_t known_divisor(const PrimExpr& e) {
  if (!e->dtype.is_int() && !e->dtype.is_uint()) return 1;
  if (auto* i = as<IntImmNode>(e)) return i->value < 0 ? -i->value : i->value;
  int64_t c;
  switch (e->kind) {
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Min:
    case ExprKind::Max:
      return std::gcd(known_divisor(binary_a(e)), known_divisor(binary_b(e)));
    case ExprKind::Mul: {
      int64_t a = known_divisor(binary_a(e)), b = known_divisor(binary_b(e));
      // Products past 2^31 are not needed to prove an alignment: keep the smaller factor.
      if (a == 0 || b == 0) return 0;
      return (a > (int64_t{1} << 31) || b > (int64_t{1} << 31)) ? std::min(a, b) : a * b;
    }
    case ExprKind::FloorMod:
      // a mod c = a - c * (a // c): a multiple of gcd(divisor(a), c).
      if (as_const_int(binary_b(e), &c) && c > 0) return std::gcd(known_divisor(binary_a(e)), c);
      return 1;
    case ExprKind::FloorDiv: {
      int64_t a = known_divisor(binary_a(e));
      if (as_const_int(binary_b(e), &c) && c > 0 && a != 0 && a % c == 0) return a / c;
      return a == 0 ? 0 : 1;
    }
    case ExprKind::Cast:
      return known_divisor(as<CastNode>(e)->value);
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
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  return 1;
}

}  // namespace tsch::arith
