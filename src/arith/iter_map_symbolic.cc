#include "arith/iter_map_symbolic.h"

#include <optional>
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::arith {

using namespace ir;

namespace {

// An output as `base + sum(coeff[p] * p)` over the parameters, coefficients and base free of
// them; nothing when the output is not linear in the parameters.
struct LinearInParams {
  PrimExpr base;
  std::vector<std::pair<const VarNode*, PrimExpr>> coeffs;  // in order of first use

  void add_coeff(const VarNode* p, const PrimExpr& c) {
    for (auto& [q, k] : coeffs) {
      if (q == p) {
        k = add(k, c);
        return;
      }
    }
    coeffs.emplace_back(p, c);
  }
};

class Linearizer {
 public:
  explicit Linearizer(const std::vector<Var>& params) {
    for (const Var& p : params) params_.insert(p.get());
  }

  std::optional<LinearInParams> run(const PrimExpr& e) {
    LinearInParams out;
    if (!uses_params(e)) {
      out.base = e;
      return out;
    }
    switch (e->kind) {
      case ExprKind::Var:
        out.base = make_int(0, e->dtype);
        out.coeffs.emplace_back(as<VarNode>(e), make_int(1, e->dtype));
        return out;
      case ExprKind::Add:
      case ExprKind::Sub: {
        auto a = run(binary_a(e)), b = run(binary_b(e));
        if (!a || !b) return std::nullopt;
        bool plus = e->kind == ExprKind::Add;
        a->base = plus ? add(a->base, b->base) : sub(a->base, b->base);
        for (const auto& [p, k] : b->coeffs) a->add_coeff(p, plus ? k : sub(make_int(0, k->dtype), k));
        return a;
      }
      case ExprKind::Mul: {
        // One factor free of the parameters scales the other.
        bool a_free = !uses_params(binary_a(e)), b_free = !uses_params(binary_b(e));
        if (!a_free && !b_free) return std::nullopt;
        const PrimExpr& factor = a_free ? binary_a(e) : binary_b(e);
        auto l = run(a_free ? binary_b(e) : binary_a(e));
        if (!l) return std::nullopt;
        l->base = mul(l->base, factor);
        for (auto& [p, k] : l->coeffs) k = mul(k, factor);
        return l;
      }
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod:
      case ExprKind::Min:
      case ExprKind::Max:
      case ExprKind::EQ:
      case ExprKind::NE:
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE:
      case ExprKind::And:
      case ExprKind::Or:
      case ExprKind::Not:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::BufferLoad:
      case ExprKind::Call:
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
      case ExprKind::Let:
        break;
    }
    return std::nullopt;
  }

 private:
  bool uses_params(const PrimExpr& e) const {
    return uses_var(e, [&](const VarNode* v) { return params_.count(v) > 0; });
  }
  std::unordered_set<const VarNode*> params_;
};

bool provably_equal(const PrimExpr& a, const PrimExpr& b) { return is_zero(simplify(sub(a, b))); }

struct Failure {
  std::string message;
};

}  // namespace

SymbolicFuseResult detect_symbolic_fuse(const std::vector<PrimExpr>& outputs, const std::vector<Var>& params,
                                        const std::vector<PrimExpr>& extents) {
  SymbolicFuseResult result;
  std::unordered_map<const VarNode*, PrimExpr> extent_of;
  for (size_t i = 0; i < params.size(); ++i) extent_of[params[i].get()] = extents[i];
  std::unordered_map<const VarNode*, int> uses;
  Linearizer linearizer(params);
  try {
    for (const PrimExpr& out : outputs) {
      std::optional<LinearInParams> l = linearizer.run(out);
      if (!l) throw Failure{"is not a sum of indices times factors free of them: " + script(out)};
      if (!is_zero(simplify(l->base))) throw Failure{"adds an offset: " + script(out)};
      // The digits, innermost first: scale 1, then each the previous scale times its extent.
      std::vector<SymbolicDigit> pending;
      for (const auto& [p, k] : l->coeffs) {
        if (is_one(extent_of.at(p))) continue;  // an index of extent 1 is 0
        ++uses[p];
        pending.push_back(SymbolicDigit{p, simplify(k), extent_of.at(p)});
      }
      SymbolicSum sum;
      PrimExpr next = make_int(1, out->dtype);
      while (!pending.empty()) {
        auto it = pending.begin();
        while (it != pending.end() && !provably_equal(it->scale, next)) ++it;
        if (it == pending.end()) {
          throw Failure{"is not a mixed-radix number of its indices (no index has scale " + script(simplify(next)) +
                        "): " + script(out)};
        }
        sum.digits.push_back(*it);
        next = mul(it->scale, it->extent);
        pending.erase(it);
      }
      sum.extent = simplify(next);
      result.sums.push_back(sum);
    }
    for (const Var& p : params) {
      if (is_one(extent_of.at(p.get()))) continue;
      if (uses[p.get()] == 0) throw Failure{"does not use index " + p->name};
      if (uses[p.get()] > 1) throw Failure{"uses index " + p->name + " more than once"};
    }
    result.ok = true;
  } catch (const Failure& f) {
    result.error = f.message;
    result.sums.clear();
  }
  return result;
}

std::unordered_map<const VarNode*, PrimExpr> inverse_symbolic_fuse(const SymbolicFuseResult& map,
                                                                   const std::vector<PrimExpr>& at) {
  std::unordered_map<const VarNode*, PrimExpr> inverse;
  for (size_t k = 0; k < map.sums.size(); ++k) {
    const std::vector<SymbolicDigit>& digits = map.sums[k].digits;
    for (size_t d = 0; d < digits.size(); ++d) {
      PrimExpr e = d == 0 ? at[k] : floordiv(at[k], digits[d].scale);
      if (d + 1 < digits.size()) e = floormod(e, digits[d].extent);
      inverse[digits[d].source] = e;
    }
  }
  return inverse;
}

std::string bind_to_scope(std::vector<PrimExpr>& outputs, const std::vector<Var>& params,
                          const std::vector<PrimExpr>& scope) {
  std::vector<Var> known;
  for (const auto& e : scope) {
    for_each_expr(e, [&](const PrimExpr& x) {
      if (x->kind == ExprKind::Var) known.push_back(std::static_pointer_cast<const VarNode>(x));
    });
  }
  std::string stranger;
  std::unordered_map<const VarNode*, PrimExpr> rename;
  for (const auto& o : outputs) {
    uses_var(o, [&](const VarNode* v) {
      bool found = false;
      for (const Var& p : params) found |= p.get() == v;
      for (const Var& k : known) found |= k.get() == v;
      for (size_t i = 0; !found && i < known.size(); ++i) {
        if (known[i]->name == v->name && known[i]->dtype == v->dtype) {
          rename[v] = known[i];
          found = true;
        }
      }
      if (!found && stranger.empty()) stranger = v->name;
      return false;
    });
  }
  if (!rename.empty()) {
    for (auto& o : outputs) o = substitute(o, rename);
  }
  return stranger;
}

}  // namespace tsch::arith
