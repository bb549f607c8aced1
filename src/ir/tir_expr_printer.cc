// TensorIR expressions as TVMScript (TVM's src/script/printer/tir/expr.cc): typed literals,
// precedence-aware operators, two literals as a call so that re-parsing does not fold them.
#include "ir/tir_expr_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::ir {

std::string TIRExprPrinter::wrap(const Text& t, int min_prec) { return t.prec < min_prec ? "(" + t.s + ")" : t.s; }

TIRExprPrinter::Text TIRExprPrinter::literal_int(int64_t v, DataType t) {
  if (plain_ints_ && t.is_bool()) return {v ? "True" : "False"};
  if (plain_ints_) return {std::to_string(v), v < 0 ? kUnary : kAtom};
  if (t.is_bool()) return {fmt::format("T.bool({})", v ? "True" : "False")};
  if (t == DataType::int32()) return {std::to_string(v), v < 0 ? kUnary : kAtom};
  return {fmt::format("T.{}({})", t.to_string(), v)};
}

TIRExprPrinter::Text TIRExprPrinter::binary(const char* op, int prec, const PrimExpr& a, const PrimExpr& b,
                                            bool right_assoc_safe) {
  Text ta = expr(a), tb = expr(b);
  // Left-associative: the right operand needs parentheses at equal precedence.
  std::string left = wrap(ta, prec);
  std::string right = wrap(tb, right_assoc_safe ? prec : prec + 1);
  return {left + " " + op + " " + right, prec};
}

TIRExprPrinter::Text TIRExprPrinter::call(const std::string& fn, const std::vector<PrimExpr>& args) {
  std::string s = fn + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) s += ", ";
    s += expr(args[i]).s;
  }
  return {s + ")"};
}

void TIRExprPrinter::declare_free_var(const VarNode* v) {
  std::string name = c_.define_outermost(v, v->name);
  // TVM's PrintVarCreation: `T.int32()`, `T.handle("float32", "global")` for a pointer.
  free_decls_->push_back(name + " = " + var_type_script(*v) + (v->type_annotation ? "" : "()"));
}

std::string script(const PointerType& type) {
  return "T.handle(" + quote(type.element_type.to_string()) + ", " + quote(type.storage_scope) + ")";
}

std::string var_type_script(const VarNode& var) {
  if (var.type_annotation) return script(*var.type_annotation);
  return "T." + (var.dtype.is_handle() ? std::string("handle") : var.dtype.to_string());
}

TIRExprPrinter::Text TIRExprPrinter::expr(const PrimExpr& e) {
  switch (e->kind) {
    case ExprKind::IntImm:
      return literal_int(as<IntImmNode>(e)->value, e->dtype);
    case ExprKind::FloatImm: {
      // Infinities and NaN as TVM prints them: the value as a string, T.float32("inf").
      double v = as<FloatImmNode>(e)->value;
      if (std::isinf(v) || std::isnan(v))
        return {fmt::format("T.{}(\"{}\")", e->dtype.to_string(), std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf")};
      return {fmt::format("T.{}({})", e->dtype.to_string(), float_text(v))};
    }
    case ExprKind::StringImm:
      return {quote(as<StringImmNode>(e)->value)};
    case ExprKind::Var: {
      // A buffer's data pointer is spelled through its buffer (`A.data`), as TVM prints it.
      auto* v = as<VarNode>(e);
      auto owner = data_owner_.find(v);
      if (owner != data_owner_.end() && !c_.is_defined(v)) return {name_of(owner->second) + ".data"};
      auto field = field_owner_.find(v);
      if (field != field_owner_.end() && !c_.is_defined(v))
        return {name_of(field->second.first) + field->second.second};
      return {name_of(v)};
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
      const PrimExpr& a = binary_a(e);
      const PrimExpr& b = binary_b(e);
      bool both_literal = a->kind == ExprKind::IntImm && b->kind == ExprKind::IntImm;
      static const std::unordered_map<int, std::pair<const char*, const char*>> names = {
          {static_cast<int>(ExprKind::Add), {"+", "T.Add"}},
          {static_cast<int>(ExprKind::Sub), {"-", "T.Sub"}},
          {static_cast<int>(ExprKind::Mul), {"*", "T.Mul"}},
          {static_cast<int>(ExprKind::FloorDiv), {"//", "T.FloorDiv"}},
          {static_cast<int>(ExprKind::FloorMod), {"%", "T.FloorMod"}}};
      auto [op, fn] = names.at(static_cast<int>(e->kind));
      // Two literals print as a call so that re-parsing does not fold them.
      if (both_literal) return call(fn, {a, b});
      int prec = (e->kind == ExprKind::Add || e->kind == ExprKind::Sub) ? kAdd : kMul;
      return binary(op, prec, a, b);
    }
    case ExprKind::Div:
      if (e->dtype.is_float()) return binary("/", kMul, binary_a(e), binary_b(e));
      return call("T.Div", {binary_a(e), binary_b(e)});
    case ExprKind::Mod:
      return call("T.truncmod", {binary_a(e), binary_b(e)});
    case ExprKind::Min:
      return call("T.min", {binary_a(e), binary_b(e)});
    case ExprKind::Max:
      return call("T.max", {binary_a(e), binary_b(e)});
    case ExprKind::EQ:
      return binary("==", kCompare, binary_a(e), binary_b(e));
    case ExprKind::NE:
      return binary("!=", kCompare, binary_a(e), binary_b(e));
    case ExprKind::LT:
      return binary("<", kCompare, binary_a(e), binary_b(e));
    case ExprKind::LE:
      return binary("<=", kCompare, binary_a(e), binary_b(e));
    case ExprKind::GT:
      return binary(">", kCompare, binary_a(e), binary_b(e));
    case ExprKind::GE:
      return binary(">=", kCompare, binary_a(e), binary_b(e));
    case ExprKind::And:
      return binary("and", kAnd, binary_a(e), binary_b(e), true);
    case ExprKind::Or:
      return binary("or", kOr, binary_a(e), binary_b(e), true);
    case ExprKind::Not:
      return {"not " + wrap(expr(as<NotNode>(e)->a), kNot), kNot};
    case ExprKind::Select: {
      auto* n = as<SelectNode>(e);
      return call("T.Select", {n->condition, n->true_value, n->false_value});
    }
    case ExprKind::Cast: {
      auto* n = as<CastNode>(e);
      return {fmt::format("T.Cast({}, {})", quote(n->dtype.to_string()), expr(n->value).s)};
    }
    case ExprKind::BufferLoad: {
      auto* n = as<BufferLoadNode>(e);
      // Buffer first, then indices: free names are declared in the order TVM prints them.
      std::string buffer = name_of(n->buffer.get());
      return {buffer + "[" + indices(n->indices) + "]"};
    }
    case ExprKind::Call: {
      auto* n = as<CallNode>(e);
      if (n->op == "call_packed") {
        // Buffers passed whole print as the buffer, as TVM writes them.
        std::string s = "T.call_packed(";
        for (size_t i = 0; i < n->args.size(); ++i) {
          const BufferNode* b = buffer_of_stack_array(n->args[i], [&](const VarNode* v) {
            auto it = data_owner_.find(v);
            return it == data_owner_.end() ? nullptr : it->second;
          });
          s += (i ? ", " : "") + (b ? name_of(b) : expr(n->args[i]).s);
        }
        return {s + ")"};
      }
      if (n->op == "type_annotation") return {"T.type_annotation(" + quote(n->dtype.to_string()) + ")"};
      // TVM spells the element type of these first (`T.ptx_cp_async("float32", ...)`).
      if (n->op == "call_extern" || n->op == "call_pure_extern" || n->op == "ptx_cp_async" || n->op == "reinterpret" ||
          n->op == "ptx_ldmatrix" || n->op == "ptx_mma" || n->op == "mma_store" || n->op == "mma_fill" ||
          n->op == "call_llvm_pure_intrin" || n->op == "call_llvm_intrin" || n->op == "vectorlow" ||
          n->op == "vectorhigh" || n->op == "ptx_mma_sp" || n->op == "ptx_cp_async_bulk" || n->op == "vectorcombine" ||
          n->op == "dp4a" || n->op == "get_active_lane_mask") {
        std::string s = "T." + n->op + "(" + quote(n->dtype.to_string());
        for (const auto& a : n->args) s += ", " + expr(a).s;
        return {s + ")"};
      }
      // ... and last for these (TVM's TScriptDtypePrintLocation kLast).
      if (n->op == "tvm_struct_get") {
        std::string s = "T." + n->op + "(";
        for (const auto& a : n->args) s += expr(a).s + ", ";
        return {s + quote(n->dtype.to_string()) + ")"};
      }
      return call("T." + n->op, n->args);
    }
    case ExprKind::Ramp: {
      auto* n = as<RampNode>(e);
      std::string base = expr(n->base).s;
      std::string stride = expr(n->stride).s;
      return {fmt::format("T.Ramp({}, {}, {})", base, stride, n->lanes)};
    }
    case ExprKind::Broadcast: {
      auto* n = as<BroadcastNode>(e);
      return {fmt::format("T.Broadcast({}, {})", expr(n->value).s, n->lanes)};
    }
    case ExprKind::Let: {
      auto* n = as<LetNode>(e);
      std::string body = expr(n->body).s;
      std::string var = name_of(n->var.get());
      std::string value = expr(n->value).s;
      return {fmt::format("T.Let({}, where={{{}: {}}})", body, var, value)};
    }
  }
  return {"<?>"};
}

std::string TIRExprPrinter::indices(const std::vector<PrimExpr>& idx) {
  if (idx.empty()) return "()";
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i) s += ", ";
    s += expr(idx[i]).s;
  }
  return s;
}

std::string TIRExprPrinter::region(const BufferRegion& r) {
  std::string s = name_of(r.buffer.get());
  if (r.region.empty()) return s + "[()]";
  s += "[";
  for (size_t i = 0; i < r.region.size(); ++i) {
    if (i) s += ", ";
    const Range& range = r.region[i];
    if (is_one(range.extent)) {
      s += expr(range.min).s;
    } else {
      std::string lo = expr(range.min).s;
      s += lo + ":" + expr(add(range.min, range.extent)).s;
    }
  }
  return s + "]";
}

std::string TIRExprPrinter::shape(const std::vector<PrimExpr>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += expr(dims[i]).s;
  }
  if (dims.size() == 1) s += ",";
  return s + ")";
}

std::string TIRExprPrinter::attr_value(const AttrValue& v) {
  switch (v.kind) {
    case AttrValue::Kind::Int:
      return std::to_string(v.i);
    case AttrValue::Kind::Float:
      return float_text(v.f);
    case AttrValue::Kind::Str:
      return quote(v.s);
    case AttrValue::Kind::Bool:
      return v.b ? "True" : "False";
    case AttrValue::Kind::Expr:
      return expr(v.expr).s;
    case AttrValue::Kind::Array: {
      std::string s = "[";
      for (size_t i = 0; i < v.array.size(); ++i) s += (i ? ", " : "") + attr_value(v.array[i]);
      return s + "]";
    }
    case AttrValue::Kind::Map:
      return attr_map(v.map);
  }
  return "None";
}

std::string TIRExprPrinter::attr_map(const AttrMap& m) {
  std::vector<std::pair<std::string, AttrValue>> sorted = m;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string s = "{";
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) s += ", ";
    s += quote(sorted[i].first) + ": " + attr_value(sorted[i].second);
  }
  return s + "}";
}

std::string print_prim_expr(PrintContext& ctx, const PrimExpr& e, bool plain_ints) {
  TIRExprPrinter p(ctx);
  p.plain_ints_ = plain_ints;
  return p.expr(e).s;
}

std::string script(const PrimExpr& e) {
  PrintOptions options;
  PrintContext ctx(options);
  return TIRExprPrinter(ctx).expr(e).s;
}

std::string script(const AttrValue& value) {
  PrintOptions options;
  PrintContext ctx(options);
  return TIRExprPrinter(ctx).attr_value(value);
}

std::string script(const AttrMap& attrs) {
  PrintOptions options;
  PrintContext ctx(options);
  return TIRExprPrinter(ctx).attr_map(attrs);
}

}  // namespace tsch::ir
