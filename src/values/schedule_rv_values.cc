// The handles a schedule returns (BlockRV, LoopRV, ExprRV — an ExprRV does arithmetic as its
// variable) and tvm.tir.ScheduleError: below the Schedule class and the trace values, which
// make them, and the IR values' to_expr, which takes an ExprRV.
#include "values/schedule_rv_values.h"

#include <fmt/format.h>

#include "script/exceptions.h"
#include "values/ir_values.h"
#include "values/tvm_errors.h"

namespace tsch::bindings {

using schedule::RV;
using schedule::RVNode;
using script::Args;
using script::TypeObject;
using script::TypeRef;

std::string RVValue::repr_hook(Interpreter&) {
  const char* kind = rv->kind == RVNode::Kind::Block ? "BlockRV" : rv->kind == RVNode::Kind::Loop ? "LoopRV" : "ExprRV";
  if (rv->kind == RVNode::Kind::Expr)
    return fmt::format("{}({})", kind, rv->value);  // its value (-1: a factor left to infer)
  // sample_compute_location's "stay at the root" and "inline" are no loop of the IR.
  if (rv->kind == RVNode::Kind::Loop && rv->sid == schedule::kRootLoop) return "LoopRV(compute_root)";
  if (rv->kind == RVNode::Kind::Loop && rv->sid == schedule::kInlineLoop) return "LoopRV(compute_inline)";
  return fmt::format("{}({})", kind, rv->sid.value);
}

const ir::Var* expr_rv_var(const Value& v) {
  auto* rv = v.as<RVValue>();
  return rv && rv->rv->kind == RVNode::Kind::Expr ? &rv->rv->var : nullptr;
}

namespace {

// Arithmetic on an ExprRV (TVM's ExprRV is a tir.Var): the same operator on its variable, so
// `j1 * j2` is the PrimExpr `v * v` over the two ExprRVs' variables. == and != stay identity
// tests, as for the other handles.
void def_expr_rv_operators(TypeObject& t) {
  for (const char* op :
       {"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
        "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__lt__", "__le__", "__gt__", "__ge__"}) {
    t.def(op, "self, other", [op](Interpreter& interp, Args& a) {
      Value var = wrap(ir::PrimExpr(*expr_rv_var(a[0])));
      return interp.call(interp.get_attr(var, intern(op)), std::vector<Value>{a[1]});
    });
  }
  t.def("__neg__", "self", [](Interpreter& interp, Args& a) {
    Value var = wrap(ir::PrimExpr(*expr_rv_var(a[0])));
    return interp.call(interp.get_attr(var, intern("__neg__")), std::vector<Value>{});
  });
}

}  // namespace

TypeRef rv_type(RVNode::Kind kind) {
  // BlockRV() / LoopRV(): a fresh handle naming nothing yet (TVM's tests build traces by hand).
  auto make = [](const char* name, RVNode::Kind kind) {
    auto t = std::make_shared<TypeObject>(name);
    t->set_module("tvm.tir.schedule");
    t->constructor = [kind](Interpreter&, TypeObject*, script::CallArgs&) {
      return wrap_rv(schedule::make_rv(kind, schedule::StmtSid()));
    };
    t->def("same_as", "self, other", [](Interpreter&, Args& a) {
      auto* other = a[1].as<RVValue>();
      return Value::boolean(other && other->rv == a[0].as<RVValue>()->rv);
    });
    if (kind == RVNode::Kind::Expr) def_expr_rv_operators(*t);
    return t;
  };
  static TypeRef block = make("BlockRV", RVNode::Kind::Block), loop = make("LoopRV", RVNode::Kind::Loop),
                 expr = make("ExprRV", RVNode::Kind::Expr);
  return kind == RVNode::Kind::Block ? block : kind == RVNode::Kind::Loop ? loop : expr;
}

TypeObject* RVValue::type() const { return rv_type(rv->kind).get(); }

// A null handle (sample_perfect_tile's factor left to infer) is None.
Value wrap_rv(const RV& rv) { return rv ? Value(std::make_shared<RVValue>(rv)) : Value(); }

TypeRef schedule_error_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("ScheduleError", std::vector<TypeRef>{tvm_error_type()});
    type->set_module("tvm.tir");
    return type;
  }();
  return t;
}

Value make_schedule_error(const schedule::RenderedScheduleError& e) {
  Value exc = script::make_exception(schedule_error_type().get(), {script::make_str(e.what())});
  // tsch's addition: the refused condition's name (TVM's error class), for tests and tools.
  exc.as<script::Instance>()->attrs().set(intern("kind"), script::make_str(e.kind));
  return exc;
}

}  // namespace tsch::bindings
