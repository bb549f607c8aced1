// tvm.arith in scripts: TVM's Analyzer (simplify, can_prove, bind, update, const_int_bound,
// modular_set, int_set, constraint_scope) over tsch's arith library, with ConstIntBound,
// ModularSet and IntervalSet as TVM prints them; and tvm.ir.Range, which Analyzer.bind takes.
//
// tsch's simplifier is not TVM's: a result can differ in form where TVM's rewrite rules reach
// further, and a proof TVM finds may not be found here. What it proves holds: a constraint the
// analysis cannot use (a half-open bound, a condition other than a variable against a
// constant) is dropped, which only loses proofs and bounds.
#include "bindings/tvm/arith/arith_module.h"

#include <fmt/format.h>

#include <limits>
#include <numeric>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

using arith::const_bounds;
using arith::kNegInf;
using arith::kPosInf;
using arith::modular_set_of;
using arith::narrow_by;

// ---- tvm.ir.Range

class RangeValue : public script::Object {
 public:
  explicit RangeValue(ir::Range r) : range(std::move(r)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    return "I.Range(" + ir::script(range.min) + ", " + ir::script(arith::simplify(ir::add(range.extent, range.min))) +
           ")";
  }
  ir::Range range;
};

// ---- ConstIntBound, ModularSet, IntervalSet: results, printed as TVM prints them

std::string bound_text(int64_t v) { return v == kPosInf ? "pos_inf" : v == kNegInf ? "neg_inf" : std::to_string(v); }

class ConstIntBoundValue : public script::Object {
 public:
  ConstIntBoundValue(int64_t lo, int64_t hi) : min_value(lo), max_value(hi) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    return "ConstIntBound[" + bound_text(min_value) + "," + bound_text(max_value) + "]";
  }
  int64_t min_value, max_value;
};

class ModularSetValue : public script::Object {
 public:
  ModularSetValue(int64_t c, int64_t b) : coeff(c), base(b) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return fmt::format("ModularSet(coeff={}, base={})", coeff, base); }
  int64_t coeff, base;
};

class IntervalSetValue : public script::Object {
 public:
  explicit IntervalSetValue(arith::Interval i) : interval(std::move(i)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    auto text = [](const ir::PrimExpr& e, const char* inf) { return e ? ir::script(e) : std::string(inf); };
    return "IntervalSet[" + text(interval.min, "neg_inf") + ", " + text(interval.max, "pos_inf") + "]";
  }
  arith::Interval interval;
};

// ---- Analyzer

// The state and queries are arith::Analyzer's.
class AnalyzerValue : public script::Object, public arith::Analyzer {
 public:
  script::TypeObject* type() const override;
};

AnalyzerValue& self(Args& a) { return *a[0].as<AnalyzerValue>(); }

ir::PrimExpr expr_arg(Interpreter& interp, Args& a, size_t i) { return to_expr(interp, a[i], "Analyzer argument"); }

ir::Var var_arg(Interpreter& interp, Args& a, size_t i) {
  auto* ev = a[i].as<ExprValue>();
  auto* var = ev ? ir::as<ir::VarNode>(ev->expr) : nullptr;
  if (!var) a.type_error(i, "a tir.Var");
  return std::static_pointer_cast<const ir::VarNode>(ev->expr);
}

// `with analyzer.constraint_scope(cond):` narrows the ranges inside and restores them after.
class ConstraintScopeValue : public script::Object {
 public:
  ConstraintScopeValue(std::shared_ptr<AnalyzerValue> a, ir::PrimExpr c) : analyzer(std::move(a)), cond(std::move(c)) {}
  script::TypeObject* type() const override;
  std::shared_ptr<AnalyzerValue> analyzer;
  ir::PrimExpr cond;
  std::vector<arith::VarDomain> saved;
};

TypeRef constraint_scope_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("ConstraintScope");
    t->set_module("tvm.arith.analyzer");
    t->def("__enter__", "self", [](Interpreter&, Args& a) {
      auto* scope = a[0].as<ConstraintScopeValue>();
      scope->saved.push_back(scope->analyzer->dom);
      narrow_by(*scope->analyzer, scope->analyzer->prepare(scope->cond));
      return Value();
    });
    t->def("__exit__", "self, *args", [](Interpreter&, Args& a) {
      auto* scope = a[0].as<ConstraintScopeValue>();
      if (!scope->saved.empty()) {
        scope->analyzer->dom = scope->saved.back();
        scope->saved.pop_back();
      }
      return Value::boolean(false);
    });
    return t;
  }();
  return t;
}

TypeRef range_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Range");
    t->set_module("tvm.ir");
    // Range(begin, end=None): [begin, end), or [0, begin) alone.
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("begin, end=None, span=None");
      Args a(interp, "Range", sig, std::move(call));
      ir::PrimExpr begin = to_expr(interp, a[0], "Range begin");
      if (a[1].is_none()) return Value(std::make_shared<RangeValue>(ir::Range{ir::make_int(0, begin->dtype), begin}));
      ir::PrimExpr end = to_expr(interp, a[1], "Range end");
      return Value(std::make_shared<RangeValue>(ir::Range{begin, arith::extent_between(begin, end)}));
    };
    t->def("from_min_extent", "min_value, extent, span=None", [](Interpreter& interp, Args& a) {
      return Value(
          std::make_shared<RangeValue>(ir::Range{to_expr(interp, a[0], "min_value"), to_expr(interp, a[1], "extent")}));
    });
    t->def_property("min", [](Interpreter&, const Value& v) { return wrap(v.as<RangeValue>()->range.min); });
    t->def_property("extent", [](Interpreter&, const Value& v) { return wrap(v.as<RangeValue>()->range.extent); });
    return t;
  }();
  return t;
}

TypeRef const_int_bound_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("ConstIntBound");
    t->set_module("tvm.arith");
    t->dict().set(intern("POS_INF"), Value::integer(kPosInf));
    t->dict().set(intern("NEG_INF"), Value::integer(kNegInf));
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("min_value, max_value");
      Args a(interp, "ConstIntBound", sig, std::move(call));
      return Value(std::make_shared<ConstIntBoundValue>(a.get_int(0), a.get_int(1)));
    };
    t->def_property("min_value",
                    [](Interpreter&, const Value& v) { return Value::integer(v.as<ConstIntBoundValue>()->min_value); });
    t->def_property("max_value",
                    [](Interpreter&, const Value& v) { return Value::integer(v.as<ConstIntBoundValue>()->max_value); });
    return t;
  }();
  return t;
}

TypeRef modular_set_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("ModularSet");
    t->set_module("tvm.arith");
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("coeff, base");
      Args a(interp, "ModularSet", sig, std::move(call));
      return Value(std::make_shared<ModularSetValue>(a.get_int(0), a.get_int(1)));
    };
    t->def_property("coeff",
                    [](Interpreter&, const Value& v) { return Value::integer(v.as<ModularSetValue>()->coeff); });
    t->def_property("base", [](Interpreter&, const Value& v) { return Value::integer(v.as<ModularSetValue>()->base); });
    return t;
  }();
  return t;
}

TypeRef interval_set_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("IntervalSet");
    t->set_module("tvm.arith");
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("min_value, max_value");
      Args a(interp, "IntervalSet", sig, std::move(call));
      return Value(std::make_shared<IntervalSetValue>(
          arith::Interval{to_expr(interp, a[0], "min_value"), to_expr(interp, a[1], "max_value")}));
    };
    auto end = [](bool max) {
      return [max](Interpreter&, const Value& v) {
        const arith::Interval& i = v.as<IntervalSetValue>()->interval;
        const ir::PrimExpr& e = max ? i.max : i.min;
        return e ? wrap(e) : Value();
      };
    };
    t->def_property("min_value", end(false));
    t->def_property("max_value", end(true));
    t->def("is_empty", "self", [](Interpreter&, Args& a) {
      const arith::Interval& i = a[0].as<IntervalSetValue>()->interval;
      int64_t lo = 0, hi = 0;
      return Value::boolean(i.min && i.max && ir::as_const_int(i.min, &lo) && ir::as_const_int(i.max, &hi) && lo > hi);
    });
    return t;
  }();
  return t;
}

TypeRef analyzer_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Analyzer");
    t->set_module("tvm.arith");
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("");
      Args a(interp, "Analyzer", sig, std::move(call));
      return Value(std::make_shared<AnalyzerValue>());
    };
    auto simplifier = [](Interpreter& interp, Args& a) { return wrap(self(a).simplify(expr_arg(interp, a, 1))); };
    t->def("simplify", "self, expr, steps=2", simplifier,
           "simplify(expr, steps=2): the expression simplified under what is bound.");
    t->def("rewrite_simplify", "self, expr", simplifier,
           "rewrite_simplify(expr): as simplify (tsch has one simplifier).");
    t->def("canonical_simplify", "self, expr", simplifier,
           "canonical_simplify(expr): as simplify (tsch has one simplifier).");
    t->def(
        "can_prove", "self, expr, strength=None",
        [](Interpreter& interp, Args& a) {
          AnalyzerValue& an = self(a);
          ir::PrimExpr cond = an.prepare(expr_arg(interp, a, 1));
          if (!cond->dtype.is_bool()) a.type_error(1, "a boolean expression");
          return Value::boolean(arith::can_prove(cond, an.dom));
        },
        "can_prove(cond): True when cond holds for every value of the bound ranges (False: not proven).");
    t->def(
        "can_prove_equal", "self, lhs, rhs",
        [](Interpreter& interp, Args& a) {
          AnalyzerValue& an = self(a);
          ir::PrimExpr diff = an.simplify(ir::sub(expr_arg(interp, a, 1), expr_arg(interp, a, 2)));
          return Value::boolean(ir::is_zero(diff));
        },
        "can_prove_equal(lhs, rhs): True when lhs - rhs simplifies to 0.");
    t->def(
        "bind", "self, var, expr, allow_override=False",
        [](Interpreter& interp, Args& a) {
          AnalyzerValue& an = self(a);
          ir::Var var = var_arg(interp, a, 1);
          bool known = an.dom.count(var.get()) || an.values.count(var.get());
          if (known && !interp.truthy(a[3])) {
            a.value_error(1, "variable " + var->name + " is already bound (pass allow_override=True to rebind it)");
          }
          an.vars.push_back(var);
          an.dom.erase(var.get());
          an.values.erase(var.get());
          if (auto* r = a[2].as<RangeValue>()) {
            an.dom[var.get()] = arith::interval_of(r->range);
          } else {
            an.values[var.get()] = an.prepare(expr_arg(interp, a, 2));
          }
          return Value();
        },
        "bind(var, expr_or_range, allow_override=False): var is expr, or ranges over the Range.");
    t->def(
        "update", "self, var, info, override=False",
        [](Interpreter& interp, Args& a) {
          AnalyzerValue& an = self(a);
          ir::Var var = var_arg(interp, a, 1);
          auto* bound = a[2].as<ConstIntBoundValue>();
          if (!bound) a.type_error(2, "a tvm.arith.ConstIntBound");
          if (an.dom.count(var.get()) && !interp.truthy(a[3])) {
            auto [lo, hi] = const_bounds(an, var);
            if (lo != bound->min_value || hi != bound->max_value) {
              a.value_error(1,
                            "variable " + var->name + " already has another bound (pass override=True to replace it)");
            }
          }
          an.vars.push_back(var);
          // tsch's intervals are bounded at both ends or unknown: a half-open bound is dropped.
          if (bound->min_value == kNegInf || bound->max_value == kPosInf) {
            an.dom.erase(var.get());
          } else {
            an.dom[var.get()] =
                arith::Interval{ir::make_int(bound->min_value, var->dtype), ir::make_int(bound->max_value, var->dtype)};
          }
          return Value();
        },
        "update(var, info, override=False): var's bounds are the ConstIntBound info.");
    t->def(
        "const_int_bound", "self, expr",
        [](Interpreter& interp, Args& a) {
          auto [lo, hi] = const_bounds(self(a), expr_arg(interp, a, 1));
          return Value(std::make_shared<ConstIntBoundValue>(lo, hi));
        },
        "const_int_bound(expr) -> ConstIntBound: constant bounds of expr (pos_inf / neg_inf where unknown).");
    t->def(
        "modular_set", "self, expr",
        [](Interpreter& interp, Args& a) {
          auto [coeff, base] = modular_set_of(self(a).simplify(expr_arg(interp, a, 1)));
          return Value(std::make_shared<ModularSetValue>(coeff, base));
        },
        "modular_set(expr) -> ModularSet: expr is coeff * x + base for some integer x.");
    t->def(
        "int_set", "self, expr, dom_map=None",
        [](Interpreter& interp, Args& a) {
          AnalyzerValue& an = self(a);
          arith::VarDomain dom = an.dom;
          if (!a[2].is_none()) {
            auto* d = a[2].as<script::Dict>();
            if (!d) a.type_error(2, "a dict of tir.Var to tvm.ir.Range or IntervalSet");
            for (const auto& [key, value] : d->items()) {
              auto* kv = key.as<ExprValue>();
              auto* var = kv ? ir::as<ir::VarNode>(kv->expr) : nullptr;
              if (!var) a.type_error(2, "a dict keyed by tir.Var");
              if (auto* r = value.as<RangeValue>())
                dom[var] = arith::interval_of(r->range);
              else if (auto* s = value.as<IntervalSetValue>())
                dom[var] = s->interval;
              else
                a.type_error(2, "a dict of tir.Var to tvm.ir.Range or IntervalSet");
            }
          }
          arith::Interval iv = arith::eval_interval(an.prepare(expr_arg(interp, a, 1)), dom);
          if (iv.min) iv.min = arith::simplify(iv.min, an.dom);
          if (iv.max) iv.max = arith::simplify(iv.max, an.dom);
          return Value(std::make_shared<IntervalSetValue>(iv));
        },
        "int_set(expr, dom_map=None) -> IntervalSet: the interval expr covers when the variables range over dom_map.");
    t->def(
        "constraint_scope", "self, constraint",
        [](Interpreter& interp, Args& a) {
          return Value(std::make_shared<ConstraintScopeValue>(a[0].as_ref<AnalyzerValue>(), expr_arg(interp, a, 1)));
        },
        "constraint_scope(cond): `with` it, the analysis may assume cond (bounds of a variable against a constant are "
        "used).");
    return t;
  }();
  return t;
}

script::TypeObject* RangeValue::type() const { return range_type().get(); }
script::TypeObject* ConstIntBoundValue::type() const { return const_int_bound_type().get(); }
script::TypeObject* ModularSetValue::type() const { return modular_set_type().get(); }
script::TypeObject* IntervalSetValue::type() const { return interval_set_type().get(); }
script::TypeObject* AnalyzerValue::type() const { return analyzer_type().get(); }
script::TypeObject* ConstraintScopeValue::type() const { return constraint_scope_type().get(); }

}  // namespace

Value range_type_value() { return Value(range_type()); }

void register_arith_module() {
  script::ModuleLoader::register_builtin("tvm.arith", [](Interpreter&, script::Module& m) {
    script::Namespace& ns = *m.globals;
    ns.set(intern("Analyzer"), Value(analyzer_type()));
    ns.set(intern("ConstIntBound"), Value(const_int_bound_type()));
    ns.set(intern("ModularSet"), Value(modular_set_type()));
    ns.set(intern("IntervalSet"), Value(interval_set_type()));
  });
}

}  // namespace tsch::bindings
