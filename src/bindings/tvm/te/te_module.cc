// `tvm.te` in scripts: tensors (te.placeholder, te.compute with a lambda whose parameter
// names name the axes, indexing), reductions (te.reduce_axis, te.sum / max / min with
// where=, te.comm_reducer), te.var / size_var / const, and te.create_prim_func. The stage
// schedule is in te_schedule_values.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <unordered_map>

#include "bindings/tvm/te/te_values.h"
#include "bindings/tvm/tir/index_map_values.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "numpy/numpy_scalar.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "te/index_dtype.h"
#include "te/operation.h"
#include "values/attr_values.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// te.sum(...): only a compute's value may be one.
class ReduceValue : public script::Object {
 public:
  explicit ReduceValue(te::Reduce r) : reduce(std::move(r)) {}
  TypeObject* type() const override;
  te::Reduce reduce;
};

// Reduce axes are variables (they index tensors like any other); their domains are kept here.
std::mutex& axes_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<const ir::VarNode*, std::pair<std::weak_ptr<const ir::VarNode>, ir::Range>>& reduce_axes() {
  static std::unordered_map<const ir::VarNode*, std::pair<std::weak_ptr<const ir::VarNode>, ir::Range>> m;
  return m;
}

ir::IterVar reduce_axis_of(Interpreter& interp, const Value& v) {
  ir::PrimExpr e = to_expr(interp, v, "te reduction axis");
  auto* var = ir::as<ir::VarNode>(e);
  std::lock_guard<std::mutex> lock(axes_mutex());
  auto it = var ? reduce_axes().find(var) : reduce_axes().end();
  if (it == reduce_axes().end() || it->second.first.expired()) {
    raise(ExcKind::TypeError, "te reduction: axis must be made by te.reduce_axis, got " + interp.repr(v));
  }
  return ir::IterVar{std::static_pointer_cast<const ir::VarNode>(e), it->second.second, ir::IterType::CommReduce};
}

std::vector<ir::PrimExpr> shape_arg(Interpreter& interp, const Value& v, const std::string& what) {
  std::vector<Value> dims = v.as<script::Tuple>() || v.as<script::List>() ? interp.to_vector(v) : std::vector<Value>{v};
  std::vector<ir::PrimExpr> shape;
  for (const auto& d : dims) {
    // TVM's tutorials write `N / bn` (a float in Python 3) for a dimension; a whole float is
    // taken as the integer it is.
    if (d.is_float() && d.as_float() == std::floor(d.as_float()) && std::fabs(d.as_float()) < 9.0e15) {
      shape.push_back(ir::make_int(static_cast<int64_t>(d.as_float())));
      continue;
    }
    ir::PrimExpr e = to_expr(interp, d, what);
    if (!e->dtype.is_integer())
      raise(ExcKind::TypeError, fmt::format("{}: dimensions must be integers, got {}", what, e->dtype.to_string()));
    shape.push_back(e);
  }
  return shape;
}

bool is_reduce_axis(Interpreter& interp, const Value& v) {
  if (!is_expr(v)) return false;
  auto* var = ir::as<ir::VarNode>(to_expr(interp, v, "axis"));
  std::lock_guard<std::mutex> lock(axes_mutex());
  auto it = var ? reduce_axes().find(var) : reduce_axes().end();
  return it != reduce_axes().end() && !it->second.first.expired();
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

// `index_prefix` non-empty: the axes are <prefix>0, <prefix>1, ... whatever fcompute's
// parameters are called (TVM's C++ compute names them ax0, ax1, ...; TOPI's operators
// written in C++ in TVM have those names).
Value te_compute(Interpreter& interp, Args& a, const std::string& index_prefix = "") {
  std::vector<ir::PrimExpr> shape = shape_arg(interp, a[0], "te.compute shape");
  const Value& fcompute = a[1];
  // The axes are named after the lambda's parameters (TVM reads fcompute.__code__).
  std::vector<std::string> names;
  bool varargs = false;
  if (!index_prefix.empty()) {
    for (size_t i = 0; i < shape.size(); ++i) names.push_back(index_prefix + std::to_string(i));
  } else if (auto* f = fcompute.as<script::Function>(); f && f->params) {
    for (const auto& p : *f->params) {
      if (p.kind == ast::Param::Kind::Normal) names.push_back(symbol_name(p.name));
      if (p.kind == ast::Param::Kind::VarArgs) varargs = true;
    }
    // `lambda *i: ...` takes any number of indices, named i0, i1, ... as TVM names them.
    if (varargs && names.empty()) {
      for (size_t i = 0; i < shape.size(); ++i) names.push_back("i" + std::to_string(i));
    }
    if (names.size() != shape.size()) {
      raise(ExcKind::ValueError, fmt::format("fcompute do not match dimension, ndim={} (the function takes {} index{})",
                                             shape.size(), names.size(), names.size() == 1 ? "" : "es"));
    }
  } else {
    for (size_t i = 0; i < shape.size(); ++i) names.push_back("i" + std::to_string(i));
  }
  std::vector<ir::Var> axis;
  std::vector<Value> indices;
  for (size_t i = 0; i < shape.size(); ++i) {
    axis.push_back(ir::make_var(names[i], shape[i]->dtype));
    indices.push_back(wrap(ir::PrimExpr(axis.back())));
  }
  Value result = interp.call(fcompute, indices);
  std::optional<te::Reduce> reduce;
  ir::PrimExpr value;
  std::vector<ir::PrimExpr> values;  // several outputs
  if (auto* r = result.as<ReduceValue>()) {
    reduce = r->reduce;
  } else if (result.as<script::Tuple>() || result.as<script::List>()) {
    for (const Value& v : interp.to_vector(result)) {
      if (v.as<ReduceValue>())
        raise(
            ExcKind::NotImplementedError,
            "not supported yet: te.compute returning several reductions (a tuple reducer makes one of several values)");
      values.push_back(to_expr(interp, v, "a value fcompute returns"));
    }
    if (values.size() == 1) value = values[0], values.clear();
    if (values.empty() && !value) raise(ExcKind::ValueError, "te.compute: fcompute returned no value");
  } else {
    value = to_expr(interp, result, "the value fcompute returns");
  }
  // A reduce axis read outside a reduction over it would be an unbound variable.
  {
    std::vector<const ir::VarNode*> reduced;
    if (reduce) {
      for (const auto& ax : reduce->axis) reduced.push_back(ax.var.get());
    }
    auto check = [&](const ir::PrimExpr& e) {
      if (!e) return;
      ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
        auto* var = ir::as<ir::VarNode>(x);
        if (!var || std::find(reduced.begin(), reduced.end(), var) != reduced.end()) return;
        std::lock_guard<std::mutex> lock(axes_mutex());
        auto it = reduce_axes().find(var);
        if (it != reduce_axes().end() && !it->second.first.expired()) {
          raise(ExcKind::ValueError,
                fmt::format("te.compute: the reduce axis {} is used outside a reduction over it (te.sum(..., axis={}))",
                            var->name, var->name));
        }
      });
    };
    check(value);
    for (const auto& v : values) check(v);
    if (reduce) {
      check(reduce->source);
      for (const auto& s : reduce->sources) check(s);
      check(reduce->condition);
    }
  }
  // attrs become the block's annotations, as TVM's create_prim_func carries them.
  ir::AttrMap attrs;
  if (!a[4].is_none()) attrs = to_attr_map(interp, a[4], "te.compute attrs");
  bool several = !values.empty() || (reduce && !reduce->sources.empty());
  te::Operation op = guard_core([&] {
    if (several)
      return te::compute_outputs(std::move(shape), std::move(axis), std::move(values), std::move(reduce), a.get_str(2),
                                 a.get_str(3), std::move(attrs));
    return te::compute(std::move(shape), std::move(axis), value, std::move(reduce), a.get_str(2), a.get_str(3),
                       std::move(attrs));
  });
  if (!several) return Value(std::make_shared<TensorValue>(op));
  // Several outputs: a list of tensors, as TVM returns them.
  std::vector<Value> tensors;
  for (size_t i = 0; i < op->outputs.size(); ++i) tensors.push_back(Value(std::make_shared<TensorValue>(op, i)));
  return script::make_list(std::move(tensors));
}

TypeObject* ReduceValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Reduce");
    type->set_module("tvm.tir");
    return type;
  }();
  return t.get();
}

void build_te(Interpreter& interp, script::Module& m) {
  Namespace& ns = *m.globals;
  def_function(
      ns, "placeholder", "shape, dtype=\"float32\", name=\"placeholder\"",
      [](Interpreter& interp, Args& a) {
        std::vector<ir::PrimExpr> shape = shape_arg(interp, a[0], "te.placeholder shape");
        ir::DataType dtype = to_dtype(interp, a[1], "te.placeholder dtype");
        return Value(std::make_shared<TensorValue>(te::placeholder(std::move(shape), dtype, a.get_str(2))));
      },
      "te.placeholder(shape, dtype=\"float32\", name=\"placeholder\"): an input tensor.");
  def_function(
      ns, "_compute_indexed", "shape, fcompute, name=\"compute\", tag=\"\", attrs=None",
      [](Interpreter& interp, Args& a) { return te_compute(interp, a, "ax"); },
      "te._compute_indexed(shape, fcompute, ...) (tsch, for TOPI): te.compute with the axes named ax0, ax1, ... as "
      "TVM's C++ compute names them.");
  def_function(
      ns, "compute", "shape, fcompute, name=\"compute\", tag=\"\", attrs=None",
      [](Interpreter& interp, Args& a) { return te_compute(interp, a); },
      "te.compute(shape, lambda i, j: ..., name=\"compute\"): a tensor computed per index (or a reduction).");
  def_function(
      ns, "reduce_axis", "dom, name=\"rv\", thread_tag=\"\", span=None",
      [](Interpreter& interp, Args& a) {
        std::vector<Value> dom = interp.to_vector(a[0]);
        if (dom.size() != 2) a.value_error(0, "a reduction domain is (min, max)");
        ir::PrimExpr lo = to_expr(interp, dom[0], "reduce_axis min"), hi = to_expr(interp, dom[1], "reduce_axis max");
        ir::PrimExpr extent = guard_ir([&] { return ir::sub(hi, lo); });
        ir::Var v = ir::make_var(a.get_str(1), extent->dtype);
        {
          std::lock_guard<std::mutex> lock(axes_mutex());
          auto& axes = reduce_axes();
          for (auto it = axes.begin(); it != axes.end();)
            it = it->second.first.expired() ? axes.erase(it) : std::next(it);
          axes[v.get()] = {v, ir::Range{lo, extent}};
        }
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
  def_function(ns, "var", "name=\"tindex\", dtype=\"int32\", span=None", [](Interpreter& interp, Args& a) {
    return wrap(ir::PrimExpr(make_typed_var(a.get_str(0), to_var_type(interp, a[1], "te.var dtype"))));
  });
  def_function(ns, "size_var", "name=\"size\", dtype=\"int32\", span=None", [](Interpreter& interp, Args& a) {
    return wrap(
        ir::PrimExpr(std::make_shared<ir::VarNode>(a.get_str(0), to_dtype(interp, a[1], "te.size_var dtype"), true)));
  });
  def_function(ns, "const", "value, dtype=None, span=None", [](Interpreter& interp, Args& a) {
    double value = 0;
    bool is_float = a[0].is_float();
    if (a[0].is_integral() || a[0].is_float()) {
      value = a[0].as_float();
    } else if (is_expr(a[0])) {
      ir::PrimExpr e = to_expr(interp, a[0], "te.const value");
      if (auto* i = ir::as<ir::IntImmNode>(e))
        value = static_cast<double>(i->value);
      else if (auto* f = ir::as<ir::FloatImmNode>(e))
        value = f->value, is_float = true;
      else
        raise(ExcKind::TypeError, "const: the value must be a number, got the symbolic " + ir::script(e));
    } else {
      raise(ExcKind::TypeError, "const: the value must be a number, got " + interp.repr(a[0]));
    }
    // TVM's default dtypes: a NumPy scalar's own, bool for a bool, int32 for an int (int64 when it does not fit),
    // float32. A NumPy scalar gives its own dtype (TVM's _scalar_type_inference reads value.dtype).
    std::optional<ir::DataType> numpy_dtype = numpy_scalar_dtype(a[0]);
    ir::DataType t = !a[1].is_none()                                     ? to_dtype(interp, a[1], "te.const dtype")
                     : numpy_dtype                                       ? *numpy_dtype
                     : a[0].is_bool()                                    ? ir::DataType::bool_()
                     : is_float                                          ? ir::DataType::float32()
                     : (value >= -2147483648.0 && value <= 2147483647.0) ? ir::DataType::int32()
                                                                         : ir::DataType::int64();
    // A vector dtype broadcasts the scalar, as TVM's const does.
    if (t.lanes > 1)
      return wrap(ir::PrimExpr(std::make_shared<ir::BroadcastNode>(ir::make_const(t.element_of(), value), t.lanes)));
    return wrap(ir::make_const(t, value));
  });
  // Element-wise math, as tvm.te re-exports it from tvm.tir.
  {
    Namespace& tir = *interp.modules().import(interp, "tvm.script.tir", "")->globals;
    for (const char* f : {"exp",      "exp2",     "exp10",    "log",       "log2",         "log10", "log1p", "sqrt",
                          "rsqrt",    "tanh",     "sigmoid",  "floor",     "ceil",         "round", "trunc", "sin",
                          "cos",      "tan",      "erf",      "pow",       "if_then_else", "abs",   "isnan", "floordiv",
                          "floormod", "truncdiv", "truncmod", "min_value", "max_value"}) {
      if (Value* v = tir.find(intern(f))) ns.set(intern(f), *v);
    }
  }
  def_function(
      ns, "create_prim_func", "ops, index_dtype_override=None",
      [](Interpreter& interp, Args& a) {
        std::vector<te::FuncArg> args = te_func_args(interp, a[0], "create_prim_func");
        ir::PrimFunc f = guard_core([&] { return te::create_prim_func(args); });
        if (!a[1].is_none()) {
          ir::DataType index = to_dtype(interp, a[1], "index_dtype_override");
          f = guard_core([&] { return te::override_index_dtype(f, index); });
        }
        return Value(std::make_shared<PrimFuncValue>(f, "main"));
      },
      "te.create_prim_func([A, B, C]): the tensors' computation as a PrimFunc (blocks named after the computes).");
  ns.set(intern("Tensor"), Value(tensor_type()));
  ns.set(intern("AXIS_SEPARATOR"), script::make_str(kAxisSeparator));
  install_te_schedule(interp, ns);
}

}  // namespace

void register_tvm_te_module() { script::ModuleLoader::register_builtin("tvm.te", build_te); }

}  // namespace tsch::bindings
