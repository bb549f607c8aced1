#include "schedule/primitive/reducer.h"

#include <functional>
#include <string>
#include <unordered_map>

#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::schedule {

using namespace ir;

std::vector<PrimExpr> CommReducer::combine(const std::vector<PrimExpr>& x, const std::vector<PrimExpr>& y) const {
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (size_t i = 0; i < lhs.size(); ++i) {
    vmap[lhs[i].get()] = x[i];
    vmap[rhs[i].get()] = y[i];
  }
  std::vector<PrimExpr> out;
  for (const auto& r : results) out.push_back(substitute(r, vmap));
  return out;
}

namespace {

using Combiner = std::function<std::vector<PrimExpr>(const std::vector<Var>& x, const std::vector<Var>& y)>;
using Identity = std::function<std::vector<PrimExpr>(const std::vector<DataType>& t)>;

struct ReducerGetter {
  size_t n;
  Combiner combiner;
  Identity identity;
  bool commutative = true;
};

PrimExpr bin(ExprKind k, const PrimExpr& a, const PrimExpr& b) { return make_binary(k, a, b); }
PrimExpr make_select(const PrimExpr& c, const PrimExpr& t, const PrimExpr& f) {
  return std::make_shared<SelectNode>(c, t, f);
}

const std::vector<ReducerGetter>& registry() {
  static const std::vector<ReducerGetter> getters = [] {
    std::vector<ReducerGetter> g;
    auto one = [&](ExprKind k, Identity id) {
      g.push_back({1,
                   [k](const std::vector<Var>& x, const std::vector<Var>& y) {
                     return std::vector<PrimExpr>{bin(k, x[0], y[0])};
                   },
                   std::move(id)});
    };
    one(ExprKind::Add, [](const std::vector<DataType>& t) { return std::vector<PrimExpr>{make_const(t[0], 0)}; });
    one(ExprKind::Mul, [](const std::vector<DataType>& t) { return std::vector<PrimExpr>{make_const(t[0], 1)}; });
    one(ExprKind::Min, [](const std::vector<DataType>& t) { return std::vector<PrimExpr>{max_value(t[0])}; });
    one(ExprKind::Max, [](const std::vector<DataType>& t) { return std::vector<PrimExpr>{min_value(t[0])}; });
    g.push_back({2,
                 [](const std::vector<Var>& x, const std::vector<Var>& y) {
                   return std::vector<PrimExpr>{bin(ExprKind::Add, x[0], y[0]), bin(ExprKind::Add, x[1], y[1])};
                 },
                 [](const std::vector<DataType>& t) {
                   return std::vector<PrimExpr>{make_const(t[0], 0), make_const(t[1], 0)};
                 }});
    // argmax / argmin: the index of the first best value, as TVM registers them (with `>=` /
    // `<=`, and with a tie broken towards the smaller index).
    auto arg = [&](ExprKind keep, bool tie_break, bool is_max) {
      g.push_back({2,
                   [=](const std::vector<Var>& x, const std::vector<Var>& y) {
                     PrimExpr cond = bin(keep, x[1], y[1]);
                     PrimExpr idx_cond =
                         tie_break
                             ? bin(ExprKind::Or, cond,
                                   bin(ExprKind::And, bin(ExprKind::EQ, x[1], y[1]), bin(ExprKind::LT, x[0], y[0])))
                             : cond;
                     return std::vector<PrimExpr>{make_select(idx_cond, x[0], y[0]), make_select(cond, x[1], y[1])};
                   },
                   [=](const std::vector<DataType>& t) {
                     return std::vector<PrimExpr>{make_const(t[0], -1), is_max ? min_value(t[1]) : max_value(t[1])};
                   },
                   /*commutative=*/tie_break});
    };
    arg(ExprKind::GE, false, true);
    arg(ExprKind::GT, true, true);
    arg(ExprKind::LE, false, false);
    arg(ExprKind::LT, true, false);
    return g;
  }();
  return getters;
}

// Structural match of `pattern` (over x_i, y_i) against `e`: x_i must be `lhs_loads[i]`, and
// each y_i one expression throughout.
class Matcher {
 public:
  Matcher(const CommReducer& r, const std::vector<PrimExpr>& lhs_loads) : lhs_loads_(lhs_loads), rhs_(r.rhs.size()) {
    for (size_t i = 0; i < r.lhs.size(); ++i) {
      x_[r.lhs[i].get()] = i;
      y_[r.rhs[i].get()] = i;
    }
  }

  bool match(const PrimExpr& pattern, const PrimExpr& e) {
    if (auto* v = as<VarNode>(pattern)) {
      if (auto it = x_.find(v); it != x_.end()) return expr_deep_equal(e, lhs_loads_[it->second]);
      if (auto it = y_.find(v); it != y_.end()) {
        PrimExpr& bound = rhs_[it->second];
        if (!bound) {
          bound = e;
          return e->dtype == v->dtype;
        }
        return expr_deep_equal(bound, e);
      }
      return pattern == e;
    }
    if (pattern->kind != e->kind || pattern->dtype != e->dtype) return false;
    if (is_binary(pattern->kind)) return match(binary_a(pattern), binary_a(e)) && match(binary_b(pattern), binary_b(e));
    if (auto* s = as<SelectNode>(pattern)) {
      auto* t = as<SelectNode>(e);
      return match(s->condition, t->condition) && match(s->true_value, t->true_value) &&
             match(s->false_value, t->false_value);
    }
    if (auto* n = as<NotNode>(pattern)) return match(n->a, as<NotNode>(e)->a);
    return expr_deep_equal(pattern, e);
  }

  std::vector<PrimExpr> rhs() const { return rhs_; }

 private:
  const std::vector<PrimExpr>& lhs_loads_;
  std::unordered_map<const VarNode*, size_t> x_, y_;
  std::vector<PrimExpr> rhs_;
};

}  // namespace

std::optional<ReducerMatch> match_reducer(const std::vector<PrimExpr>& inits, const std::vector<PrimExpr>& values,
                                          const std::vector<PrimExpr>& lhs_loads) {
  std::vector<DataType> dtypes;
  for (const auto& v : values) dtypes.push_back(v->dtype);
  for (const auto& getter : registry()) {
    if (getter.n != values.size()) continue;
    CommReducer r;
    for (size_t i = 0; i < getter.n; ++i) {
      r.lhs.push_back(make_var("x" + std::to_string(i), dtypes[i]));
      r.rhs.push_back(make_var("y" + std::to_string(i), dtypes[i]));
    }
    r.results = getter.combiner(r.lhs, r.rhs);
    r.identities = getter.identity(dtypes);
    r.commutative = getter.commutative;
    bool same_identity = true;
    for (size_t i = 0; i < getter.n; ++i) same_identity &= expr_deep_equal(r.identities[i], inits[i]);
    if (!same_identity) continue;
    Matcher m(r, lhs_loads);
    bool ok = true;
    for (size_t i = 0; ok && i < getter.n; ++i) ok = m.match(r.results[i], values[i]);
    if (!ok) continue;
    std::vector<PrimExpr> rhs = m.rhs();
    bool all_bound = true;
    for (const auto& y : rhs) all_bound &= y != nullptr;
    if (all_bound) return ReducerMatch{r, rhs};
  }
  return std::nullopt;
}

}  // namespace tsch::schedule
