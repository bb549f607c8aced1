// tvm.tir.IndexMap: an index mapping `lambda i, j: (j, i)` as TVM has it — from_func (index
// variables named after the function's parameters, int64 by default), initial_indices /
// final_indices, map_indices, map_shape, inverse (TVM's bijective inverse: `axis0, ...` as an
// affine map of the new indices), is_equivalent_to, printed `T.index_map(lambda ...)`; and
// accepted by sch.transform_layout.
#include "bindings/tvm/tir/index_map_values.h"

#include <fmt/format.h>

#include "arith/index_map.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "support/symbol.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

std::shared_ptr<IndexMapValue> make_map(std::vector<ir::Var> params, std::vector<ir::PrimExpr> outputs) {
  auto m = std::make_shared<IndexMapValue>();
  m->params = std::move(params);
  m->outputs = std::move(outputs);
  return m;
}

const IndexMapValue& self_map(Args& a) { return *a[0].as<IndexMapValue>(); }

std::vector<ir::PrimExpr> exprs_arg(Interpreter& interp, const Value& v, const char* what) {
  std::vector<ir::PrimExpr> out;
  for (const Value& x : interp.to_vector(v)) out.push_back(to_expr(interp, x, what));
  return out;
}

// Builds the map from a function (`*args` counted from ndim).
std::shared_ptr<IndexMapValue> from_function(Interpreter& interp, const Value& fn, const Value& ndim_value,
                                             ir::DataType dtype) {
  int64_t arity = index_function_arity(fn);
  if (ndim_value.is_none() && arity < 0)
    raise(ExcKind::ValueError, "IndexMap.from_func: ndim must be specified when *args is used");
  int64_t ndim = ndim_value.is_none() ? arity : ndim_value.as_int();
  IndexFunctionCall call = call_index_function(interp, fn, std::vector<ir::DataType>(static_cast<size_t>(ndim), dtype));
  if (!call.axis_separators.empty()) {
    raise(ExcKind::ValueError,
          "IndexMap.from_func: the function returns IndexMap.AXIS_SEPARATOR, which only sch.transform_layout "
          "takes (as TVM's from_func_with_separators)");
  }
  auto m = make_map(std::move(call.params), std::move(call.outputs));
  m->function = fn;
  return m;
}

std::shared_ptr<IndexMapValue> map_arg(Interpreter& interp, const Value& v, ir::DataType dtype, const char* what) {
  if (auto* m = v.as<IndexMapValue>()) return std::make_shared<IndexMapValue>(*m);
  if (Interpreter::is_callable(v)) return from_function(interp, v, Value(), dtype);
  raise(ExcKind::TypeError,
        std::string(what) + ": expected an IndexMap or a function, got " + Interpreter::type_name(v));
}

std::shared_ptr<IndexMapValue> inverse_of(const IndexMapValue& m, const std::vector<ir::PrimExpr>& shape) {
  if (m.inverse) return m.inverse;
  arith::IndexMap inverse = guard_core([&] { return arith::inverse_index_map(m, shape); });
  return make_map(std::move(inverse.params), std::move(inverse.outputs));
}

TypeRef make_index_map_type() {
  auto t = std::make_shared<TypeObject>("IndexMap");
  t->set_module("tvm.tir");
  t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
    static const script::Signature sig =
        script::Signature::parse("initial_indices, final_indices, inverse_index_map=None");
    Args a(interp, "IndexMap", sig, std::move(call));
    std::vector<ir::Var> params;
    for (const Value& v : interp.to_vector(a[0])) {
      ir::PrimExpr e = to_expr(interp, v, "IndexMap initial_indices");
      auto* var = ir::as<ir::VarNode>(e);
      if (!var) raise(ExcKind::TypeError, "IndexMap: initial_indices must be variables");
      params.push_back(std::static_pointer_cast<const ir::VarNode>(e));
    }
    auto m = make_map(std::move(params), exprs_arg(interp, a[1], "IndexMap final_indices"));
    if (!a[2].is_none()) m->inverse = map_arg(interp, a[2], ir::DataType::int64(), "inverse_index_map");
    return Value(m);
  };
  t->def(
      "from_func", "mapping_function, ndim=None, inverse_index_map=None, *, index_dtype='int64'",
      [](Interpreter& interp, Args& a) {
        ir::DataType dtype = to_dtype(interp, a[3], "index_dtype");
        auto m = from_function(interp, a[0], a[1], dtype);
        if (!a[2].is_none())
          m->inverse = map_arg(interp, a[2], m->outputs.empty() ? dtype : m->outputs[0]->dtype, "inverse_index_map");
        return Value(m);
      },
      "IndexMap.from_func(lambda i, j: (j, i)): an index map (its variables int64 unless index_dtype= says "
      "otherwise).");
  t->dict().set(intern("AXIS_SEPARATOR"), script::make_str(kAxisSeparator));
  t->def_property("initial_indices", [](Interpreter&, const Value& v) {
    std::vector<ir::PrimExpr> params(v.as<IndexMapValue>()->params.begin(), v.as<IndexMapValue>()->params.end());
    return wrap_list(params);
  });
  t->def_property("final_indices",
                  [](Interpreter&, const Value& v) { return wrap_list(v.as<IndexMapValue>()->outputs); });
  t->def_property("inverse_index_map", [](Interpreter&, const Value& v) {
    const auto& inv = v.as<IndexMapValue>()->inverse;
    return inv ? Value(inv) : Value();
  });
  t->def(
      "map_indices", "self, indices",
      [](Interpreter& interp, Args& a) {
        std::vector<ir::PrimExpr> indices = exprs_arg(interp, a[1], "map_indices");
        return wrap_list(guard_core([&] { return arith::map_indices(self_map(a), indices); }));
      },
      "map_indices(indices): the final indices for these initial ones.");
  t->def(
      "map_shape", "self, shape",
      [](Interpreter& interp, Args& a) {
        std::vector<ir::PrimExpr> shape = exprs_arg(interp, a[1], "map_shape");
        return wrap_list(guard_core([&] { return arith::map_shape(self_map(a), shape); }));
      },
      "map_shape(shape): the shape of a buffer of this shape after the mapping.");
  t->def(
      "inverse", "self, shape",
      [](Interpreter& interp, Args& a) { return Value(inverse_of(self_map(a), exprs_arg(interp, a[1], "inverse"))); },
      "inverse(shape): the inverse map of a bijective map over a buffer of this shape.");
  t->def(
      "is_equivalent_to", "self, other_map",
      [](Interpreter&, Args& a) {
        auto* other = a[1].as<IndexMapValue>();
        return Value::boolean(other && guard_core([&] { return arith::equivalent_index_maps(self_map(a), *other); }));
      },
      "is_equivalent_to(other): the two maps give the same final indices.");
  return t;
}

}  // namespace

int64_t index_function_arity(const Value& fn) {
  auto* f = fn.as<script::Function>();
  if (!f) return -1;
  int64_t named = 0;
  for (const auto& p : *f->params) {
    if (p.kind == ast::Param::Kind::VarArgs) return -1;
    if (p.kind == ast::Param::Kind::Normal) ++named;
  }
  return named;
}

IndexFunctionCall call_index_function(Interpreter& interp, const Value& fn, const std::vector<ir::DataType>& dtypes) {
  IndexFunctionCall out;
  script::CallArgs call;
  std::vector<ir::Var> keyword_vars;
  size_t ndim = dtypes.size(), next = 0;
  auto fresh = [&](const std::string& name) {
    if (next >= ndim)
      raise(ExcKind::ValueError, fmt::format("the index map function takes more than the {} indices given", ndim));
    return ir::make_var(name, dtypes[next++]);
  };
  if (auto* f = fn.as<script::Function>()) {
    // Positional parameters, then *args, then keyword-only ones (TVM's order).
    std::string var_args;
    std::vector<std::pair<std::string, bool>> names;  // name, keyword-only
    bool keyword_only = false;
    for (const auto& p : *f->params) {
      if (p.kind == ast::Param::Kind::VarArgs) var_args = symbol_name(p.name);
      if (p.kind == ast::Param::Kind::VarArgs || p.kind == ast::Param::Kind::KwOnlyMarker) keyword_only = true;
      if (p.kind == ast::Param::Kind::Normal) names.emplace_back(symbol_name(p.name), keyword_only);
    }
    size_t keywords = 0;
    for (const auto& [name, kw] : names) keywords += kw;
    size_t positional = names.size() - keywords;
    if (var_args.empty() && names.size() != ndim)
      raise(ExcKind::ValueError, fmt::format("the index map takes {} indices but {} are given", names.size(), ndim));
    if (!var_args.empty() && names.size() > ndim)
      raise(ExcKind::ValueError,
            fmt::format("the index map takes at least {} indices but {} are given", names.size(), ndim));
    for (size_t i = 0; i < positional; ++i) out.params.push_back(fresh(names[i].first));
    for (size_t i = 0; !var_args.empty() && i < ndim - names.size(); ++i)
      out.params.push_back(fresh(fmt::format("{}_{}", var_args, i)));
    for (size_t i = positional; i < names.size(); ++i) keyword_vars.push_back(fresh(names[i].first));
    for (const auto& v : out.params) call.positional.push_back(wrap(ir::PrimExpr(v)));
    for (const auto& v : keyword_vars) call.keywords.emplace_back(intern(v->name), wrap(ir::PrimExpr(v)));
    out.params.insert(out.params.end(), keyword_vars.begin(), keyword_vars.end());
  } else {
    for (size_t i = 0; i < ndim; ++i) out.params.push_back(fresh(fmt::format("i{}", i)));
    for (const auto& v : out.params) call.positional.push_back(wrap(ir::PrimExpr(v)));
  }
  Value result = interp.call(fn, std::move(call));
  std::vector<Value> items =
      result.as<script::List>() || result.as<script::Tuple>() ? interp.to_vector(result) : std::vector<Value>{result};
  // annotate_buffer_access's ranges come as (start, end) pairs: flattened, as TVM's IndexMap
  // holds them.
  // Among pairs, a single index x is the range (x, x + 1).
  bool pairs = false;
  for (const Value& v : items) pairs |= v.as<script::Tuple>() || v.as<script::List>();
  std::vector<Value> flat;
  for (const Value& v : items) {
    if (v.as<script::Tuple>() || v.as<script::List>()) {
      for (const Value& x : interp.to_vector(v)) flat.push_back(x);
    } else if (pairs) {
      ir::PrimExpr x = to_expr(interp, v, "index map output");
      flat.push_back(v);
      flat.push_back(wrap(ir::add(x, ir::make_int(1, x->dtype))));
    } else {
      flat.push_back(v);
    }
  }
  for (const Value& v : flat) {
    if (auto* s = v.as<script::Str>(); s && s->value == kAxisSeparator) {
      out.axis_separators.push_back(static_cast<int64_t>(out.outputs.size()));
      continue;
    }
    out.outputs.push_back(to_expr(interp, v, "index map output"));
  }
  return out;
}

std::string index_map_text(const IndexMapValue& m) {
  if (m.inverse)
    return fmt::format("T.index_map({}, inverse_index_map={})", index_map_lambda(m), index_map_lambda(*m.inverse));
  return "T.index_map(" + index_map_lambda(m) + ")";
}

TypeRef index_map_type() {
  static TypeRef t = make_index_map_type();
  return t;
}

TypeObject* IndexMapValue::type() const { return index_map_type().get(); }
std::string IndexMapValue::repr_hook(Interpreter&) { return index_map_text(*this); }

}  // namespace tsch::bindings
