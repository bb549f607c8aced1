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
#include "te/reduce_axes.h"
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
      if (const ir::VarNode* var = te::unreduced_axis(e, reduced)) {
        raise(ExcKind::ValueError,
              fmt::format("te.compute: the reduce axis {} is used outside a reduction over it (te.sum(..., axis={}))",
                          var->name, var->name));
      }
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
  def_reduce_functions(ns);  // reduce_axis, comm_reducer, sum, max, min
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
