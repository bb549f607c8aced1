// Trace arguments as script values and back (schedule_trace_args.h).
#include "bindings/tvm/tir/schedule_trace_args.h"

#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using schedule::TraceArg;
using script::ExcKind;
using script::raise;

Value arg_value(Interpreter& interp, const TraceArg& a) {
  switch (a.kind) {
    case TraceArg::Kind::None:
      return Value();
    case TraceArg::Kind::Int:
      return Value::integer(a.i);
    case TraceArg::Kind::Float:
      return Value::real(a.f);
    case TraceArg::Kind::Bool:
      return Value::boolean(a.b);
    case TraceArg::Kind::Str:
      return script::make_str(a.s);
    case TraceArg::Kind::Ref:
      return wrap_rv(a.ref);
    case TraceArg::Kind::List: {
      std::vector<Value> items;
      for (const TraceArg& x : a.list) items.push_back(arg_value(interp, x));
      return script::make_list(std::move(items));
    }
    case TraceArg::Kind::IndexMap:
      return script::make_str(a.lambda_text());
    case TraceArg::Kind::Dict: {
      auto d = std::make_shared<script::Dict>();
      for (size_t i = 0; i < a.list.size(); ++i)
        d->set(interp, script::make_str(a.keys[i]), arg_value(interp, a.list[i]));
      return Value(d);
    }
    case TraceArg::Kind::Expr:
      return wrap(a.expr);
  }
  return Value();
}

Value decision_value(Interpreter& interp, const TraceArg& a) {
  if (a.kind == TraceArg::Kind::Int) return wrap(ir::make_int(a.i, ir::DataType::int32()));
  if (a.kind != TraceArg::Kind::List) return arg_value(interp, a);
  std::vector<Value> items;
  for (const TraceArg& x : a.list) items.push_back(decision_value(interp, x));
  return script::make_list(std::move(items));
}

TraceArg decision_arg(Interpreter& interp, const Value& v) {
  if (v.is_none()) return TraceArg::none();
  if (v.is_integral() && !v.is_bool()) return TraceArg::of_int(v.as_int());
  if (auto* e = v.as<ExprValue>()) {
    if (auto* imm = ir::as<ir::IntImmNode>(e->expr); imm && !e->expr->dtype.is_bool())
      return TraceArg::of_int(imm->value);
  }
  if (v.as<script::List>() || v.as<script::Tuple>()) {
    std::vector<TraceArg> items;
    for (const Value& x : interp.to_vector(v)) items.push_back(decision_arg(interp, x));
    return TraceArg::of_list(std::move(items));
  }
  raise(ExcKind::TypeError, "a decision is an int or a list of int, got " + Interpreter::type_name(v));
}

TraceArg value_arg(Interpreter& interp, const Value& v) {
  if (v.is_none()) return TraceArg::none();
  if (v.is_bool()) return TraceArg::of_bool(v.as_bool());
  if (v.is_int()) return TraceArg::of_int(v.as_int());
  if (v.is_float()) return TraceArg::of_float(v.as_float());
  if (auto* s = v.as<script::Str>()) return TraceArg::of_str(s->value);
  if (auto* rv = v.as<RVValue>()) return TraceArg::of_ref(rv->rv);
  if (v.as<script::List>() || v.as<script::Tuple>()) {
    std::vector<TraceArg> items;
    for (const Value& x : interp.to_vector(v)) items.push_back(value_arg(interp, x));
    return TraceArg::of_list(std::move(items));
  }
  if (is_expr(v)) {
    ir::PrimExpr e = to_expr(interp, v, "an instruction argument");
    int64_t n;
    if (ir::as_const_int(e, &n)) return e->dtype.is_bool() ? TraceArg::of_bool(n != 0) : TraceArg::of_int(n);
    if (auto* f = ir::as<ir::FloatImmNode>(e)) return TraceArg::of_float(f->value);
    // An ExprRV's variable, or an expression of ExprRVs.
    if (auto* var = ir::as<ir::VarNode>(e)) {
      if (schedule::RV rv = schedule::rv_of_var(var)) return TraceArg::of_ref(rv);
    }
    TraceArg x = TraceArg::of_expr(e);
    if (!x.list.empty()) return x;
  }
  raise(ExcKind::TypeError, "not an instruction argument: " + Interpreter::type_name(v));
}

}  // namespace tsch::bindings
