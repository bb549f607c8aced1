// te's reductions in scripts: te.reduce_axis (its domain kept by te/reduce_axes.h), te.sum /
// max / min with where=, te.comm_reducer (one value, or a tuple of values as TVM's argmax).
#include <fmt/format.h>

#include "bindings/tvm/te/te_values.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "te/reduce_axes.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;

TypeObject* ReduceValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Reduce");
    type->set_module("tvm.tir");
    return type;
  }();
  return t.get();
}

namespace {

ir::IterVar reduce_axis_of(Interpreter& interp, const Value& v) {
  ir::PrimExpr e = to_expr(interp, v, "te reduction axis");
  std::optional<ir::Range> dom = te::reduce_axis_domain(ir::as<ir::VarNode>(e));
  if (!dom) raise(ExcKind::TypeError, "te reduction: axis must be made by te.reduce_axis, got " + interp.repr(v));
  return ir::IterVar{std::static_pointer_cast<const ir::VarNode>(e), *dom, ir::IterType::CommReduce};
}

bool is_reduce_axis(Interpreter& interp, const Value& v) {
  if (!is_expr(v)) return false;
  return te::reduce_axis_domain(ir::as<ir::VarNode>(to_expr(interp, v, "axis"))).has_value();
}

Value make_reduce(Interpreter& interp, Args& a, te::ReduceKind kind, const char* what) {
  // As TVM's comm_reducer: with expressions instead of reduce axes, te.max(a, b) combines them.
  bool axis_list = a[1].as<script::List>() || a[1].as<script::Tuple>();
  if (!axis_list && !is_reduce_axis(interp, a[1])) {
    ir::PrimExpr acc = to_expr(interp, a[0], what);
    for (size_t i = 1; i < 3 && !a[i].is_none(); ++i) {
      ir::PrimExpr x = to_expr(interp, a[i], what);
      acc = guard_ir([&] {
        switch (kind) {
          case te::ReduceKind::Sum:
            return ir::add(acc, x);
          case te::ReduceKind::Max:
            return ir::make_binary(ir::ExprKind::Max, acc, x);
          case te::ReduceKind::Min:
            return ir::make_binary(ir::ExprKind::Min, acc, x);
          case te::ReduceKind::Custom:
            break;
        }
        return acc;
      });
    }
    return wrap(acc);
  }
  if (!a[3].is_none()) raise(ExcKind::NotImplementedError, std::string("not supported yet: ") + what + " with init=");
  te::Reduce r;
  r.kind = kind;
  r.source = to_expr(interp, a[0], what);
  std::vector<Value> axes =
      a[1].as<script::List>() || a[1].as<script::Tuple>() ? interp.to_vector(a[1]) : std::vector<Value>{a[1]};
  if (axes.empty()) raise(ExcKind::ValueError, std::string(what) + ": needs at least one reduction axis");
  for (const auto& ax : axes) r.axis.push_back(reduce_axis_of(interp, ax));
  if (!a[2].is_none()) r.condition = to_expr_as(interp, a[2], ir::DataType::bool_(), "where");
  return Value(std::make_shared<ReduceValue>(std::move(r)));
}

// te.comm_reducer(fcombine, fidentity, name=): a reducer called as te.sum is, with the
// combiner and identity the script gives (one value; TVM's tuple reducers are not there yet).
class CommReducerValue : public script::Object {
 public:
  CommReducerValue(Value combine, Value identity, std::string name)
      : fcombine(std::move(combine)), fidentity(std::move(identity)), name(std::move(name)) {}
  TypeObject* type() const override;
  Value fcombine, fidentity;
  std::string name;
};

std::vector<ir::IterVar> reduce_axes_arg(Interpreter& interp, const Value& v, const std::string& what) {
  bool axis_list = v.as<script::List>() || v.as<script::Tuple>();
  std::vector<Value> axes = axis_list ? interp.to_vector(v) : std::vector<Value>{v};
  if (axes.empty()) raise(ExcKind::ValueError, what + ": needs at least one reduction axis");
  std::vector<ir::IterVar> out;
  for (const auto& ax : axes) out.push_back(reduce_axis_of(interp, ax));
  return out;
}

// A reducer over tuples (TVM's argmax): fcombine((x0, x1), (y0, y1)) -> (z0, z1), x the
// accumulators; fidentity(dtype0, dtype1) -> the identities.
Value call_tuple_reducer(Interpreter& interp, CommReducerValue& self, const std::vector<Value>& a) {
  if (!a[3].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: " + self.name + " with init=");
  std::vector<Value> items = interp.to_vector(a[0]);
  if (items.size() < 2) raise(ExcKind::ValueError, self.name + ": a tuple reduction needs at least two values");
  te::Reduce r;
  r.kind = te::ReduceKind::Custom;
  std::vector<Value> xs, ys, dtypes;
  for (size_t i = 0; i < items.size(); ++i) {
    r.sources.push_back(to_expr(interp, items[i], self.name));
    ir::DataType t = r.sources.back()->dtype;
    r.lhs_vars.push_back(ir::make_var("x" + std::to_string(i), t));
    r.rhs_vars.push_back(ir::make_var("y" + std::to_string(i), t));
    xs.push_back(wrap(ir::PrimExpr(r.lhs_vars.back())));
    ys.push_back(wrap(ir::PrimExpr(r.rhs_vars.back())));
    dtypes.push_back(script::make_str(t.to_string()));
  }
  auto values_of = [&](const Value& result, const std::string& what) {
    std::vector<Value> out =
        result.as<script::Tuple>() || result.as<script::List>() ? interp.to_vector(result) : std::vector<Value>{result};
    if (out.size() != items.size())
      raise(ExcKind::ValueError,
            fmt::format("{}: the {} gives {} values for a reduction of {}", self.name, what, out.size(), items.size()));
    std::vector<ir::PrimExpr> exprs;
    for (size_t i = 0; i < out.size(); ++i)
      exprs.push_back(to_expr_as(interp, out[i], r.sources[i]->dtype, self.name + " " + what));
    return exprs;
  };
  r.combiners = values_of(
      interp.call(self.fcombine, std::vector<Value>{script::make_tuple(xs), script::make_tuple(ys)}), "combiner");
  r.identities = values_of(interp.call(self.fidentity, dtypes), "identity");
  r.source = r.sources[0];
  r.lhs = r.lhs_vars[0];
  r.rhs = r.rhs_vars[0];
  r.combiner = r.combiners[0];
  r.identity = r.identities[0];
  r.axis = reduce_axes_arg(interp, a[1], self.name);
  if (!a[2].is_none()) r.condition = to_expr_as(interp, a[2], ir::DataType::bool_(), "where");
  return Value(std::make_shared<ReduceValue>(std::move(r)));
}

Value call_comm_reducer(Interpreter& interp, CommReducerValue& self, const std::vector<Value>& a) {
  bool axis_list = a[1].as<script::List>() || a[1].as<script::Tuple>();
  if (a[0].as<script::Tuple>() || a[0].as<script::List>()) return call_tuple_reducer(interp, self, a);
  if (!axis_list && !is_reduce_axis(interp, a[1])) {
    // With expressions instead of reduce axes, the combiner combines them.
    Value acc = a[0];
    for (size_t i = 1; i < 3 && !a[i].is_none(); ++i) acc = interp.call(self.fcombine, std::vector<Value>{acc, a[i]});
    return acc;
  }
  if (!a[3].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: " + self.name + " with init=");
  te::Reduce r;
  r.kind = te::ReduceKind::Custom;
  r.source = to_expr(interp, a[0], self.name);
  ir::DataType t = r.source->dtype;
  r.lhs = ir::make_var("x", t);
  r.rhs = ir::make_var("y", t);
  r.combiner = to_expr_as(
      interp, interp.call(self.fcombine, std::vector<Value>{wrap(ir::PrimExpr(r.lhs)), wrap(ir::PrimExpr(r.rhs))}), t,
      self.name + " combiner");
  r.identity = to_expr_as(interp, interp.call(self.fidentity, std::vector<Value>{script::make_str(t.to_string())}), t,
                          self.name + " identity");
  if (!(r.combiner->dtype == t) || !(r.identity->dtype == t)) {
    raise(ExcKind::TypeError, fmt::format("{}: the combiner and identity must have the reduced value's dtype {}",
                                          self.name, t.to_string()));
  }
  std::vector<Value> axes = axis_list ? interp.to_vector(a[1]) : std::vector<Value>{a[1]};
  if (axes.empty()) raise(ExcKind::ValueError, self.name + ": needs at least one reduction axis");
  for (const auto& ax : axes) r.axis.push_back(reduce_axis_of(interp, ax));
  if (!a[2].is_none()) r.condition = to_expr_as(interp, a[2], ir::DataType::bool_(), "where");
  return Value(std::make_shared<ReduceValue>(std::move(r)));
}

TypeObject* CommReducerValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("CommReducer");
    type->set_module("tvm.tir");
    type->def("__call__", "self, expr, axis, where=None, init=None", [](Interpreter& interp, Args& a) {
      return call_comm_reducer(interp, *a[0].as<CommReducerValue>(), {a[1], a[2], a[3], a[4]});
    });
    return type;
  }();
  return t.get();
}

}  // namespace

void def_reduce_functions(Namespace& ns) {
  def_function(
      ns, "reduce_axis", "dom, name=\"rv\", thread_tag=\"\", span=None",
      [](Interpreter& interp, Args& a) {
        std::vector<Value> dom = interp.to_vector(a[0]);
        if (dom.size() != 2) a.value_error(0, "a reduction domain is (min, max)");
        ir::PrimExpr lo = to_expr(interp, dom[0], "reduce_axis min"), hi = to_expr(interp, dom[1], "reduce_axis max");
        ir::PrimExpr extent = guard_ir([&] { return ir::sub(hi, lo); });
        ir::Var v = ir::make_var(a.get_str(1), extent->dtype);
        te::register_reduce_axis(v, ir::Range{lo, extent});
        return wrap(ir::PrimExpr(v));
      },
      "te.reduce_axis((min, max), name=\"rv\"): a reduction axis for te.sum / te.max / te.min.");
  def_function(
      ns, "comm_reducer", "fcombine, fidentity, name=\"reduce\"",
      [](Interpreter&, Args& a) { return Value(std::make_shared<CommReducerValue>(a[0], a[1], a.get_str(2))); },
      "te.comm_reducer(lambda x, y: ..., lambda dtype: ..., name=): a commutative reducer used as te.sum is.");
  def_function(ns, "sum", "expr, axis, where=None, init=None",
               [](Interpreter& interp, Args& a) { return make_reduce(interp, a, te::ReduceKind::Sum, "te.sum"); });
  def_function(ns, "max", "expr, axis, where=None, init=None",
               [](Interpreter& interp, Args& a) { return make_reduce(interp, a, te::ReduceKind::Max, "te.max"); });
  def_function(ns, "min", "expr, axis, where=None, init=None",
               [](Interpreter& interp, Args& a) { return make_reduce(interp, a, te::ReduceKind::Min, "te.min"); });
}

}  // namespace tsch::bindings
