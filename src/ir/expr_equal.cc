#include "ir/expr_equal.h"

#include <functional>

#include "ir/buffer.h"

namespace tsch::ir {

bool expr_deep_equal(const PrimExpr &a, const PrimExpr &b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
  switch (a->kind) {
    TSCH_IR_BINARY_KINDS(TSCH_IR_BINARY_CASE)
    return expr_deep_equal(binary_a(a), binary_a(b)) && expr_deep_equal(binary_b(a), binary_b(b));
    case ExprKind::IntImm:
      return as<IntImmNode>(a)->value == as<IntImmNode>(b)->value;
    case ExprKind::FloatImm:
      return as<FloatImmNode>(a)->value == as<FloatImmNode>(b)->value;
    case ExprKind::StringImm:
      return as<StringImmNode>(a)->value == as<StringImmNode>(b)->value;
    case ExprKind::Var:
      return false;  // identity only
    case ExprKind::Not:
      return expr_deep_equal(as<NotNode>(a)->a, as<NotNode>(b)->a);
    case ExprKind::Select: {
      auto *x = as<SelectNode>(a), *y = as<SelectNode>(b);
      return expr_deep_equal(x->condition, y->condition) && expr_deep_equal(x->true_value, y->true_value) &&
             expr_deep_equal(x->false_value, y->false_value);
    }
    case ExprKind::Cast:
      return expr_deep_equal(as<CastNode>(a)->value, as<CastNode>(b)->value);
    case ExprKind::BufferLoad: {
      auto *x = as<BufferLoadNode>(a), *y = as<BufferLoadNode>(b);
      if (x->buffer != y->buffer || x->indices.size() != y->indices.size()) return false;
      for (size_t i = 0; i < x->indices.size(); ++i) {
        if (!expr_deep_equal(x->indices[i], y->indices[i])) return false;
      }
      return true;
    }
    case ExprKind::Call: {
      auto *x = as<CallNode>(a), *y = as<CallNode>(b);
      if (x->op != y->op || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i) {
        if (!expr_deep_equal(x->args[i], y->args[i])) return false;
      }
      return true;
    }
    case ExprKind::Ramp: {
      auto *x = as<RampNode>(a), *y = as<RampNode>(b);
      return x->lanes == y->lanes && expr_deep_equal(x->base, y->base) && expr_deep_equal(x->stride, y->stride);
    }
    case ExprKind::Broadcast: {
      auto *x = as<BroadcastNode>(a), *y = as<BroadcastNode>(b);
      return x->lanes == y->lanes && expr_deep_equal(x->value, y->value);
    }
    case ExprKind::Let: {
      auto *x = as<LetNode>(a), *y = as<LetNode>(b);
      return x->var == y->var && expr_deep_equal(x->value, y->value) && expr_deep_equal(x->body, y->body);
    }
  }
  return false;  // not reached: the switch covers every kind
}

size_t expr_hash(const PrimExpr &e) {
  size_t h = static_cast<size_t>(e->kind) * 0x9e3779b97f4a7c15ULL;
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  switch (e->kind) {
    TSCH_IR_BINARY_KINDS(TSCH_IR_BINARY_CASE)
    mix(expr_hash(binary_a(e)));
    mix(expr_hash(binary_b(e)));
    break;
    case ExprKind::IntImm:
      mix(std::hash<int64_t>()(as<IntImmNode>(e)->value));
      break;
    case ExprKind::FloatImm:
      mix(std::hash<double>()(as<FloatImmNode>(e)->value));
      break;
    case ExprKind::Var:
      mix(std::hash<const void *>()(e.get()));
      break;
    case ExprKind::Cast:
      mix(expr_hash(as<CastNode>(e)->value));
      break;
    case ExprKind::BufferLoad:
      mix(std::hash<const void *>()(as<BufferLoadNode>(e)->buffer.get()));
      for (const auto &i : as<BufferLoadNode>(e)->indices) mix(expr_hash(i));
      break;
    case ExprKind::Call:
      mix(std::hash<std::string>()(as<CallNode>(e)->op));
      for (const auto &a : as<CallNode>(e)->args) mix(expr_hash(a));
      break;
    // Hashed by kind and type alone (equal nodes still hash equal; collisions only cost).
    case ExprKind::StringImm:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  return h;
}

}  // namespace tsch::ir
