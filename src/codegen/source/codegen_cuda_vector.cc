// Vectorized loops in CUDA C. VectorizeLoop leaves Ramp indices, Broadcasts and vector
// loads / stores; CUDA C has vector types of 2 and 4 lanes (float4, int2, ...) but no vector
// arithmetic, so TVM's form is kept where it matters — an aligned contiguous access is one
// `*(float4*)(A + i)` load or store — and the arithmetic is written lane by lane (`v_1.x + v_2.x`).
// An access that is not contiguous, or whose start is not a multiple of its lanes, reads and
// writes element by element: a float4 access there would be misaligned.
#include <fmt/format.h>

#include "arith/known_divisor.h"
#include "arith/simplify.h"
#include "codegen/source/codegen_cuda.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::codegen {

using namespace ir;

namespace {

const char* kComponent[] = {"x", "y", "z", "w"};

}  // namespace

std::string CodeGenCUDA::vector_type(DataType t) {
  if (t.lanes != 2 && t.lanes != 4) return "";
  std::string lanes = std::to_string(t.lanes);
  if (t.is_float() && t.bits == 32) return "float" + lanes;
  if (t.is_float() && t.bits == 64 && t.lanes == 2) return "double2";
  if (t.is_int() && t.bits == 32) return "int" + lanes;
  if (t.is_uint() && t.bits == 32) return "uint" + lanes;
  // cuda_fp16.h's pair of halves (make_half2); four halves have no CUDA type.
  if (t.is_float() && t.bits == 16 && t.lanes == 2) return "half2";
  return "";
}

std::string CodeGenCUDA::copy_type(DataType t) {
  switch (t.bits * t.lanes) {
    case 32:
      return "uint";
    case 64:
      return "uint2";
    case 128:
      return "uint4";
    default:
      return "";
  }
}

PrimExpr CodeGenCUDA::aligned_start(const PrimExpr& index, DataType value_type) {
  auto* ramp = as<RampNode>(index);
  if (!ramp || !is_one(ramp->stride) || vector_type(value_type).empty() || ramp->lanes != value_type.lanes)
    return nullptr;
  return arith::known_multiple_of(arith::simplify(ramp->base), ramp->lanes) ? ramp->base : nullptr;
}

PrimExpr CodeGenCUDA::scalar_lane(const PrimExpr& e, int k) {
  if (e->dtype.lanes == 1) return e;
  DataType t = e->dtype.element_of();
  switch (e->kind) {
    case ExprKind::Ramp: {
      auto* r = as<RampNode>(e);
      return arith::simplify(add(r->base, mul(r->stride, make_int(k, r->stride->dtype))));
    }
    case ExprKind::Broadcast:
      return as<BroadcastNode>(e)->value;
    case ExprKind::BufferLoad: {
      auto* l = as<BufferLoadNode>(e);
      if (auto it = hoisted_loads_.find(l); it != hoisted_loads_.end()) return it->second.at(static_cast<size_t>(k));
      return buffer_load(l->buffer, {scalar_lane(l->indices.at(0), k)});
    }
    case ExprKind::Select: {
      auto* s = as<SelectNode>(e);
      return select(scalar_lane(s->condition, k), scalar_lane(s->true_value, k), scalar_lane(s->false_value, k));
    }
    case ExprKind::Cast:
      return std::make_shared<CastNode>(t, scalar_lane(as<CastNode>(e)->value, k));
    case ExprKind::Not:
      return std::make_shared<NotNode>(scalar_lane(as<NotNode>(e)->a, k));
    case ExprKind::Call: {
      auto* c = as<CallNode>(e);
      std::vector<PrimExpr> args;
      for (const auto& a : c->args) args.push_back(scalar_lane(a, k));
      return ir::call(t, c->op, args);
    }
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
  if (is_binary(e->kind)) return make_binary(e->kind, scalar_lane(binary_a(e), k), scalar_lane(binary_b(e), k));
  throw BuildError("not supported yet: the vector expression " + script(e) + " in CUDA C");
}

void CodeGenCUDA::hoist_vector_loads(const PrimExpr& e) {
  for_each_expr(e, [&](const PrimExpr& x) {
    auto* l = as<BufferLoadNode>(x);
    if (!l || l->dtype.lanes == 1 || hoisted_loads_.count(l)) return;
    PrimExpr start = aligned_start(l->indices.at(0), l->dtype);
    if (!start) return;
    std::string type = vector_type(l->dtype);
    std::string name = fresh("v");
    line(type + " " + name + " = *(" + type + "*)(" + data_of(l->buffer) + " + " + expr(start) + ");");
    std::vector<Var> lanes;
    for (int k = 0; k < l->dtype.lanes; ++k) {
      Var lane = make_var(name + "_" + kComponent[k], l->dtype.element_of());
      bind_text(lane.get(), name + "." + kComponent[k]);
      lanes.push_back(lane);
    }
    hoisted_loads_[l] = lanes;
  });
}

std::string CodeGenCUDA::vector_expr(const PrimExpr& e) {
  // A whole vector value (an aligned store's): its lanes gathered with make_<type>.
  std::string type = vector_type(e->dtype);
  if (type.empty())
    throw BuildError("not supported yet: the vector value " + script(e) + " of type " + e->dtype.to_string() +
                     " in CUDA C");
  std::string text = "make_" + type + "(";
  for (int k = 0; k < e->dtype.lanes; ++k) text += (k ? ", " : "") + expr(scalar_lane(e, k));
  return text + ")";
}

void CodeGenCUDA::vector_store(const BufferStoreNode& n) {
  const PrimExpr& index = n.indices.at(0);
  int lanes = std::max(index->dtype.lanes, n.value->dtype.lanes);
  PrimExpr start = n.value->dtype.lanes == lanes ? aligned_start(index, n.value->dtype) : nullptr;
  // A copy between aligned vectors: one vector load stored whole, as TVM writes it. A copy of
  // a type CUDA has no vector of (eight halves, sixteen bytes) moves as words (uint4).
  auto* copied = as<BufferLoadNode>(n.value);
  std::string words = copy_type(n.value->dtype);
  auto aligned_copy = [&](const PrimExpr& idx) -> PrimExpr {
    auto* ramp = as<RampNode>(idx);
    if (!ramp || !is_one(ramp->stride) || ramp->lanes != lanes) return nullptr;
    return arith::known_multiple_of(arith::simplify(ramp->base), ramp->lanes) ? ramp->base : nullptr;
  };
  if (copied && vector_type(n.value->dtype).empty() && !words.empty() && copied->dtype == n.value->dtype &&
      n.value->dtype.lanes == lanes) {
    PrimExpr to = aligned_copy(index), from = aligned_copy(copied->indices.at(0));
    if (to && from) {
      line("*(" + words + "*)(" + data_of(n.buffer) + " + " + expr(to) + ") = *(" + words + "*)(" +
           data_of(copied->buffer) + " + " + expr(from) + ");");
      return;
    }
  }
  if (PrimExpr from = start && copied ? aligned_start(copied->indices.at(0), copied->dtype) : nullptr) {
    std::string type = vector_type(n.value->dtype);
    line("*(" + type + "*)(" + data_of(n.buffer) + " + " + expr(start) + ") = *(" + type + "*)(" +
         data_of(copied->buffer) + " + " + expr(from) + ");");
    return;
  }
  line("{");
  ++indent_;
  hoist_vector_loads(n.value);
  if (start) {
    std::string type = vector_type(n.value->dtype);
    line("*(" + type + "*)(" + data_of(n.buffer) + " + " + expr(start) + ") = " + vector_expr(n.value) + ";");
  } else {
    for (int k = 0; k < lanes; ++k) {
      std::string value = expr(scalar_lane(n.value, k));
      if (n.value->dtype.is_bool()) value = "(uint8_t)" + value;
      line(data_of(n.buffer) + "[" + expr(scalar_lane(index, k)) + "] = " + value + ";");
    }
  }
  for (auto it = hoisted_loads_.begin(); it != hoisted_loads_.end();) {
    for (const Var& v : it->second) forget(v.get());
    it = hoisted_loads_.erase(it);
  }
  --indent_;
  line("}");
}

}  // namespace tsch::codegen
