// IR values in scripts. PrimExpr overloads Python's operators to build IR (as TVM's Python
// API does), which is what makes TVMScript bodies and te.compute lambdas evaluate to IR.
#include "values/ir_values.h"

#include <fmt/format.h>

#include "ir/if_then_else.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/types.h"
#include "values/expr_classes.h"
#include "values/ir_type_values.h"
#include "values/schedule_rv_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

bool is_expr(const Value& v) { return v.as<ExprValue>() != nullptr; }

Value wrap(ir::PrimExpr e) { return Value(std::make_shared<ExprValue>(std::move(e))); }
Value wrap(ir::Buffer b) { return Value(std::make_shared<BufferValue>(std::move(b))); }

Value wrap_list(const std::vector<ir::PrimExpr>& exprs) {
  std::vector<Value> out;
  for (const auto& e : exprs) out.push_back(wrap(e));
  return script::make_list(std::move(out));
}

Value wrap_list(const std::vector<ir::Buffer>& buffers) {
  std::vector<Value> out;
  for (const auto& b : buffers) out.push_back(wrap(b));
  return script::make_list(std::move(out));
}

ir::PrimExpr to_expr(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* e = v.as<ExprValue>()) return e->expr;
  // A sampled ExprRV is its variable, as TVM's ExprRV is a tir.Var.
  if (const ir::Var* var = expr_rv_var(v)) return *var;
  if (v.is_bool()) return ir::make_bool(v.as_bool());
  if (v.is_int()) {
    int64_t x = v.as_int();
    bool fits32 = x >= INT32_MIN && x <= INT32_MAX;
    return ir::make_int(x, fits32 ? ir::DataType::int32() : ir::DataType::int64());
  }
  if (v.is_float()) return ir::make_float(v.as_float(), ir::DataType::float32());
  raise(ExcKind::TypeError,
        fmt::format("{}: expected a PrimExpr or a number, got {}", what, Interpreter::type_name(v)));
}

ir::PrimExpr to_expr_as(Interpreter& interp, const Value& v, ir::DataType dtype, const std::string& what) {
  if (v.is_number()) {
    if (dtype.is_float()) return ir::make_float(v.as_float(), dtype);
    if (dtype.is_bool()) return ir::make_bool(v.as_float() != 0);
    if (v.is_float()) {
      raise(ExcKind::TypeError,
            fmt::format("{}: cannot use the float {} where {} is expected", what, interp.repr(v), dtype.to_string()));
    }
    return ir::make_int(v.as_int(), dtype);
  }
  return to_expr(interp, v, what);
}

namespace {

using K = ir::ExprKind;

Value binop(Interpreter& interp, Args& a, K kind, bool reflected) {
  ir::PrimExpr self = a[0].as<ExprValue>()->expr;
  if (!a[1].is_number() && !is_expr(a[1]) && !expr_rv_var(a[1])) return script::not_implemented_value();
  ir::PrimExpr other = to_expr(interp, a[1], "operand");
  ir::PrimExpr lhs = reflected ? other : self, rhs = reflected ? self : other;
  return wrap(guard_ir([&] {
    if (kind == K::Div) return ir::div(lhs, rhs);
    return ir::make_binary(kind, lhs, rhs);
  }));
}

void def_binop(TypeObject& t, const char* name, K kind, bool reflected) {
  t.def(name, "self, other",
        [kind, reflected](Interpreter& interp, Args& a) { return binop(interp, a, kind, reflected); });
}

TypeRef make_expr_type() {
  auto t = std::make_shared<TypeObject>("PrimExpr");
  t->set_module("tvm.tir");
  // Keys of dicts by node (func.buffer_map[func.params[0]]), as TVM's objects hash.
  t->hashes_by_value = true;
  // TVM's Object.same_as: the same node (== builds an EQ expression instead).
  t->def("same_as", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<ExprValue>();
    return Value::boolean(other && other->expr == a[0].as<ExprValue>()->expr);
  });
  def_binop(*t, "__add__", K::Add, false);
  def_binop(*t, "__radd__", K::Add, true);
  def_binop(*t, "__sub__", K::Sub, false);
  def_binop(*t, "__rsub__", K::Sub, true);
  def_binop(*t, "__mul__", K::Mul, false);
  def_binop(*t, "__rmul__", K::Mul, true);
  def_binop(*t, "__truediv__", K::Div, false);
  def_binop(*t, "__rtruediv__", K::Div, true);
  def_binop(*t, "__floordiv__", K::FloorDiv, false);
  def_binop(*t, "__rfloordiv__", K::FloorDiv, true);
  def_binop(*t, "__mod__", K::FloorMod, false);
  def_binop(*t, "__rmod__", K::FloorMod, true);
  def_binop(*t, "__lt__", K::LT, false);
  def_binop(*t, "__le__", K::LE, false);
  def_binop(*t, "__gt__", K::GT, false);
  def_binop(*t, "__ge__", K::GE, false);
  // == on handles (a PrimFunc's parameters) means the same variable, as TVM's EqualOp
  // decides it when there is no comparison to build.
  t->def("__eq__", "self, other", [](Interpreter& interp, Args& a) {
    auto* other = a[1].as<ExprValue>();
    if (other && (other->expr->dtype.is_handle() || a[0].as<ExprValue>()->expr->dtype.is_handle()))
      return Value::boolean(other->expr == a[0].as<ExprValue>()->expr);
    return binop(interp, a, K::EQ, false);
  });
  def_binop(*t, "__ne__", K::NE, false);
  // `2 <= j` in TVMScript (script::Evaluator::tvmscript): the comparison as written.
  t->def("__tsch_rcompare__", "self, other, op", [](Interpreter& interp, Args& a) {
    static const std::pair<const char*, K> ops[] = {{"<", K::LT},  {"<=", K::LE}, {">", K::GT},
                                                    {">=", K::GE}, {"==", K::EQ}, {"!=", K::NE}};
    for (const auto& [symbol, kind] : ops)
      if (a.get_str(2) == symbol) return binop(interp, a, kind, true);
    return script::not_implemented_value();
  });
  // & | ^ << >> ~ on integers are TVM's bitwise calls; & and | on booleans are And / Or.
  struct Bitwise {
    const char* name;
    const char* op;
    K logical;
    bool reflected;
  };
  for (Bitwise b : {Bitwise{"__and__", "bitwise_and", K::And, false},
                    {"__rand__", "bitwise_and", K::And, true},
                    {"__or__", "bitwise_or", K::Or, false},
                    {"__ror__", "bitwise_or", K::Or, true},
                    {"__xor__", "bitwise_xor", K::Add, false},
                    {"__rxor__", "bitwise_xor", K::Add, true},
                    {"__lshift__", "shift_left", K::Add, false},
                    {"__rlshift__", "shift_left", K::Add, true},
                    {"__rshift__", "shift_right", K::Add, false},
                    {"__rrshift__", "shift_right", K::Add, true}}) {
    t->def(b.name, "self, other", [b](Interpreter& interp, Args& a) {
      ir::PrimExpr self = a[0].as<ExprValue>()->expr;
      // A Python int takes the expression's type, as TVM's bit operators make_const it
      // (`const(1, "int8x2") >> 1` stays int8x2).
      ir::PrimExpr other = a[1].is_int() && !self->dtype.is_handle()
                               ? to_expr_as(interp, a[1], self->dtype.element_of(), b.name)
                               : to_expr(interp, a[1], b.name);
      bool logical = b.logical != K::Add && self->dtype.is_bool() && (other->dtype.is_bool() || a[1].is_bool());
      if (logical) return binop(interp, a, b.logical, b.reflected);
      if (b.reflected) std::swap(self, other);
      return wrap(guard_ir([&] { return ir::bitwise(b.op, self, other); }));
    });
  }
  t->def("__invert__", "self", [](Interpreter&, Args& a) {
    return wrap(guard_ir([&] { return ir::bitwise_not(a[0].as<ExprValue>()->expr); }));
  });
  def_binop(*t, "__tsch_and__", K::And, false);
  def_binop(*t, "__tsch_or__", K::Or, false);
  t->def("__neg__", "self",
         [](Interpreter&, Args& a) { return wrap(guard_ir([&] { return ir::neg(a[0].as<ExprValue>()->expr); })); });
  t->def("__tsch_not__", "self", [](Interpreter&, Args& a) {
    return wrap(guard_ir([&] { return ir::logical_not(a[0].as<ExprValue>()->expr); }));
  });
  // `t if cond else f` in TVMScript: T.if_then_else, as TVM's parser evaluates it.
  t->def("__tsch_select__", "self, true_value, false_value", [](Interpreter& interp, Args& a) {
    const ir::PrimExpr& cond = a[0].as<ExprValue>()->expr;
    if (!cond->dtype.is_bool())
      raise(ExcKind::TypeError, "Expected Python bool or TIR bool, but got " + cond->dtype.to_string());
    ir::PrimExpr t = to_expr(interp, a[1], "true value"), f = to_expr(interp, a[2], "false value");
    return wrap(guard_ir([&] { return ir::if_then_else(cond, t, f); }));
  });
  t->def("__bool__", "self", [](Interpreter&, Args& a) {
    const ir::PrimExpr& e = a[0].as<ExprValue>()->expr;
    int64_t v;
    if (ir::as_const_int(e, &v)) return Value::boolean(v != 0);
    // As in TVM: `a == b` on expressions is true when they are the same object.
    if (e->kind == K::EQ) return Value::boolean(ir::binary_a(e) == ir::binary_b(e));
    if (e->kind == K::NE) return Value::boolean(ir::binary_a(e) != ir::binary_b(e));
    raise(ExcKind::ValueError,
          "Cannot use and / or / not operator to Expr, hint: use tvm.tir.all / tvm.tir.any instead");
  });
  // TVM's ExprOp.equal: the expression `self == other` (== itself is kept for identity tests).
  t->def("equal", "self, other, span=None", [](Interpreter& interp, Args& a) {
    ir::PrimExpr other = to_expr(interp, a[1], "equal");
    return wrap(guard_ir([&] { return ir::make_binary(ir::ExprKind::EQ, a[0].as<ExprValue>()->expr, other); }));
  });
  t->def("astype", "self, dtype, span=None", [](Interpreter& interp, Args& a) {
    ir::DataType t = to_dtype(interp, a[1], "astype dtype");
    return wrap(guard_ir([&] { return ir::cast(t, a[0].as<ExprValue>()->expr); }));
  });
  // int(IntImm) / float(FloatImm), as TVM's constants convert (int(C.shape[0])).
  t->def("__int__", "self", [](Interpreter&, Args& a) {
    const ir::PrimExpr& e = a[0].as<ExprValue>()->expr;
    if (auto* i = ir::as<ir::IntImmNode>(e)) return Value::integer(i->value);
    if (auto* f = ir::as<ir::FloatImmNode>(e)) return Value::integer(static_cast<int64_t>(f->value));
    raise(ExcKind::TypeError, "int() argument must be a constant expression, not the symbolic " + ir::script(e));
  });
  t->def("__float__", "self", [](Interpreter&, Args& a) {
    const ir::PrimExpr& e = a[0].as<ExprValue>()->expr;
    if (auto* i = ir::as<ir::IntImmNode>(e)) return Value::real(static_cast<double>(i->value));
    if (auto* f = ir::as<ir::FloatImmNode>(e)) return Value::real(f->value);
    raise(ExcKind::TypeError, "float() argument must be a constant expression, not the symbolic " + ir::script(e));
  });
  t->def("__hash__", "self", [](Interpreter&, Args& a) {
    // TVM's IntImm hashes as its value, so equal constants are one dict key (the decisions of
    // a trace counted in a dict); other expressions hash by node.
    if (auto* i = ir::as<ir::IntImmNode>(a[0].as<ExprValue>()->expr)) return Value::integer(i->value);
    return Value::integer(static_cast<int64_t>(reinterpret_cast<uintptr_t>(a[0].as<ExprValue>()->expr.get())));
  });
  t->def_property("dtype", [](Interpreter&, const Value& v) {
    return script::make_str(v.as<ExprValue>()->expr->dtype.to_string());
  });
  // The fields of TVM's node classes (value, a, b, args, ...) are in expr_classes.cc.
  t->def_property("name", [](Interpreter&, const Value& v) -> Value {
    if (auto* var = ir::as<ir::VarNode>(v.as<ExprValue>()->expr)) return script::make_str(var->name);
    raise(ExcKind::AttributeError, "only variables have a name");
  });
  return t;
}

}  // namespace

TypeRef expr_type() {
  static TypeRef t = make_expr_type();
  return t;
}
TypeRef var_type() {
  static TypeRef t = [] {
    auto v = std::make_shared<TypeObject>("Var", std::vector<TypeRef>{expr_type()});
    v->set_module("tvm.tir.expr");
    v->hashes_by_value = true;
    v->def_property("type_annotation", [](Interpreter&, const Value& self) {
      return type_annotation_value(*ir::as<ir::VarNode>(self.as<ExprValue>()->expr));
    });
    return v;
  }();
  return t;
}
TypeObject* ExprValue::type() const { return expr_kind_type(expr->kind).get(); }

std::string ExprValue::repr_hook(Interpreter&) { return ir::script(expr); }

}  // namespace tsch::bindings
