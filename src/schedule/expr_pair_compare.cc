#include "schedule/expr_pair_compare.h"

#include "ir/op.h"

namespace tsch::schedule {

using namespace ir;

bool ExprPairComparator::compare_operands(const PrimExpr &lhs, const PrimExpr &rhs) {
  if (is_binary(lhs->kind)) return expr(binary_a(lhs), binary_a(rhs)) && expr(binary_b(lhs), binary_b(rhs));
  switch (lhs->kind) {
    case ExprKind::IntImm:
      return as<IntImmNode>(lhs)->value == as<IntImmNode>(rhs)->value;
    case ExprKind::FloatImm:
      return as<FloatImmNode>(lhs)->value == as<FloatImmNode>(rhs)->value;
    case ExprKind::StringImm:
      return as<StringImmNode>(lhs)->value == as<StringImmNode>(rhs)->value;
    case ExprKind::Var:
      return var(as<VarNode>(lhs), rhs);
    case ExprKind::Not:
      return expr(as<NotNode>(lhs)->a, as<NotNode>(rhs)->a);
    case ExprKind::Select: {
      auto *a = as<SelectNode>(lhs), *b = as<SelectNode>(rhs);
      return expr(a->condition, b->condition) && expr(a->true_value, b->true_value) &&
             expr(a->false_value, b->false_value);
    }
    case ExprKind::Cast:
      return expr(as<CastNode>(lhs)->value, as<CastNode>(rhs)->value);
    case ExprKind::BufferLoad: {
      auto *a = as<BufferLoadNode>(lhs), *b = as<BufferLoadNode>(rhs);
      return access(a->buffer, a->indices, b->buffer, b->indices);
    }
    case ExprKind::Call: {
      auto *a = as<CallNode>(lhs), *b = as<CallNode>(rhs);
      if (a->op != b->op || a->args.size() != b->args.size()) return false;
      for (size_t i = 0; i < a->args.size(); ++i) {
        if (!expr(a->args[i], b->args[i])) return false;
      }
      return true;
    }
    case ExprKind::Ramp: {
      auto *a = as<RampNode>(lhs), *b = as<RampNode>(rhs);
      return a->lanes == b->lanes && expr(a->base, b->base) && expr(a->stride, b->stride);
    }
    case ExprKind::Broadcast: {
      auto *a = as<BroadcastNode>(lhs), *b = as<BroadcastNode>(rhs);
      return a->lanes == b->lanes && expr(a->value, b->value);
    }
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
    case ExprKind::Let:
      break;
  }
  return false;
}

}  // namespace tsch::schedule
