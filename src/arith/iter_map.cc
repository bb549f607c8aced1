#include "arith/iter_map.h"

#include <algorithm>
#include <functional>

#include "arith/simplify.h"
#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::arith {

using namespace ir;

namespace {

struct Failure {
  std::string message;
};

class Detector {
 public:
  explicit Detector(const LoopExtents& loops) : loops_(loops) {}

  IterSum sum_of(const PrimExpr& e) {
    int64_t c;
    if (as_const_int(e, &c)) {
      IterSum s;
      s.base = c;
      return s;
    }
    switch (e->kind) {
      case ExprKind::Var: {
        auto* v = as<VarNode>(e);
        auto it = loops_.find(v);
        if (it == loops_.end())
          throw Failure{"uses " + v->name + ", which is not a loop variable with a constant extent"};
        IterSum s;
        // A loop of extent 1 is the constant 0 (it would otherwise be a second digit of scale 1).
        if (it->second != 1) s.splits.push_back(IterSplit{v, 1, it->second, 1});
        return s;
      }
      case ExprKind::Add:
      case ExprKind::Sub: {
        IterSum a = sum_of(binary_a(e)), b = sum_of(binary_b(e));
        int64_t sign = e->kind == ExprKind::Add ? 1 : -1;
        for (auto s : b.splits) {
          s.scale *= sign;
          a.splits.push_back(s);
        }
        a.base += sign * b.base;
        return a;
      }
      case ExprKind::Mul: {
        int64_t k;
        const PrimExpr* other = nullptr;
        if (as_const_int(binary_b(e), &k))
          other = &binary_a(e);
        else if (as_const_int(binary_a(e), &k))
          other = &binary_b(e);
        if (!other) throw Failure{"multiplies two loop-dependent values: " + script(e)};
        IterSum s = sum_of(*other);
        for (auto& split : s.splits) split.scale *= k;
        s.base *= k;
        return s;
      }
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod: {
        int64_t k;
        if (!as_const_int(binary_b(e), &k) || k <= 0) throw Failure{"divides by a non-constant: " + script(e)};
        IterSum s = sum_of(binary_a(e));
        if (s.base != 0) throw Failure{"divides an offset sum: " + script(e)};
        if (!normalize(s)) throw Failure{"divides a sum that is not a fused loop: " + script(e)};
        return e->kind == ExprKind::FloorDiv ? divide(s, k, e) : modulo(s, k, e);
      }
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
      case ExprKind::Div:
      case ExprKind::Mod:
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
    throw Failure{"is not affine: " + script(e)};
  }

  // Orders splits by scale and checks they form a mixed-radix number starting at scale 1.
  static bool normalize(IterSum& s) {
    std::sort(s.splits.begin(), s.splits.end(),
              [](const IterSplit& a, const IterSplit& b) { return a.scale < b.scale; });
    int64_t expected = 1;
    for (const auto& split : s.splits) {
      if (split.scale != expected) return false;
      expected *= split.extent;
    }
    s.extent = expected;
    return true;
  }

 private:
  // floordiv of a fused mixed-radix sum by k: drop the splits below k (k must align with them).
  IterSum divide(const IterSum& s, int64_t k, const PrimExpr& e) {
    IterSum out;
    int64_t remaining = k;
    for (const auto& split : s.splits) {
      if (remaining == 1) {
        IterSplit moved = split;
        moved.scale /= k;
        out.splits.push_back(moved);
      } else if (split.extent <= remaining) {
        if (remaining % split.extent != 0) throw Failure{"splits a loop unevenly: " + script(e)};
        remaining /= split.extent;
      } else {
        if (split.extent % remaining != 0) throw Failure{"splits a loop unevenly: " + script(e)};
        out.splits.push_back(IterSplit{split.source, split.lower_factor * remaining, split.extent / remaining, 1});
        remaining = 1;
      }
    }
    if (remaining != 1) {
      // Dividing by more than the whole range leaves zero.
      return IterSum{};
    }
    normalize(out);
    return out;
  }

  // floormod of a fused mixed-radix sum by k: keep the splits below k.
  IterSum modulo(const IterSum& s, int64_t k, const PrimExpr& e) {
    IterSum out;
    int64_t remaining = k;
    for (const auto& split : s.splits) {
      if (remaining == 1) break;
      if (split.extent <= remaining) {
        if (remaining % split.extent != 0) throw Failure{"splits a loop unevenly: " + script(e)};
        out.splits.push_back(split);
        remaining /= split.extent;
      } else {
        if (split.extent % remaining != 0) throw Failure{"splits a loop unevenly: " + script(e)};
        out.splits.push_back(IterSplit{split.source, split.lower_factor, remaining, split.scale});
        remaining = 1;
      }
    }
    normalize(out);
    return out;
  }

  const LoopExtents& loops_;
};

}  // namespace

IterMapResult detect_iter_map(const std::vector<PrimExpr>& bindings, const LoopExtents& loops, bool require_bijective,
                              const std::unordered_set<const VarNode*>* tiled) {
  IterMapResult result;
  Detector detector(loops);
  try {
    for (const auto& b : bindings) {
      IterSum s = detector.sum_of(b);
      if (!Detector::normalize(s)) throw Failure{"is not a fused or split loop: " + script(b)};
      result.sums.push_back(s);
    }
    // Every loop's splits must tile it: lower factors 1, e0, e0*e1, ... without overlap.
    std::unordered_map<const VarNode*, std::vector<IterSplit>> by_source;
    for (const auto& s : result.sums) {
      for (const auto& split : s.splits) by_source[split.source].push_back(split);
    }
    for (auto& [source, splits] : by_source) {
      if (tiled && !tiled->count(source)) continue;
      std::sort(splits.begin(), splits.end(),
                [](const IterSplit& a, const IterSplit& b) { return a.lower_factor < b.lower_factor; });
      int64_t expected = 1;
      for (const auto& split : splits) {
        if (split.lower_factor != expected) throw Failure{"uses loop " + source->name + " more than once or with gaps"};
        expected *= split.extent;
      }
      if (require_bijective && expected != loops.at(source)) {
        throw Failure{"covers only part of loop " + source->name};
      }
    }
    if (require_bijective) {
      for (const auto& [var, extent] : loops) {
        if (extent != 1 && !by_source.count(var)) throw Failure{"does not use loop " + var->name};
      }
    }
    result.ok = true;
  } catch (const Failure& f) {
    result.ok = false;
    result.error = f.message;
    result.sums.clear();
  }
  return result;
}

std::unordered_map<const VarNode*, PrimExpr> inverse_iter_map(const IterMapResult& map,
                                                              const std::vector<PrimExpr>& outputs) {
  std::unordered_map<const VarNode*, PrimExpr> inverse;
  for (size_t i = 0; i < map.sums.size(); ++i) {
    const IterSum& s = map.sums[i];
    PrimExpr out = outputs[i];
    DataType t = out->dtype;
    PrimExpr value = s.base == 0 ? out : sub(out, make_int(s.base, t));
    for (const auto& split : s.splits) {
      // The split's digit within the binding, placed at its position in the loop variable.
      PrimExpr digit = floormod(floordiv(value, make_int(split.scale, t)), make_int(split.extent, t));
      if (s.splits.size() == 1) digit = value;
      PrimExpr term = mul(digit, make_int(split.lower_factor, t));
      auto it = inverse.find(split.source);
      inverse[split.source] = it == inverse.end() ? term : add(it->second, term);
    }
  }
  for (auto& [v, e] : inverse) e = simplify(e);
  return inverse;
}

std::unordered_map<const VarNode*, PrimExpr> inverse_iter_map_fused(
    const IterMapResult& map, const std::vector<PrimExpr>& outputs,
    const std::vector<std::pair<const VarNode*, int64_t>>& loops) {
  // Bindings that share a loop variable are digits of one number (TVM's IterMark): group them.
  size_t n = map.sums.size();
  std::vector<size_t> group(n);
  for (size_t i = 0; i < n; ++i) group[i] = i;
  std::function<size_t(size_t)> find = [&](size_t i) { return group[i] == i ? i : group[i] = find(group[i]); };
  std::unordered_map<const VarNode*, size_t> binding_of;
  for (size_t i = 0; i < n; ++i) {
    for (const IterSplit& sp : map.sums[i].splits) {
      auto [it, fresh] = binding_of.emplace(sp.source, i);
      if (!fresh) group[find(i)] = find(it->second);
    }
  }
  std::unordered_map<const VarNode*, PrimExpr> inverse;
  for (size_t g = 0; g < n; ++g) {
    if (find(g) != g) continue;
    // The group's loop variables (outermost first) and their weights in its number.
    std::vector<std::pair<const VarNode*, int64_t>> vars;
    for (const auto& l : loops) {
      auto it = binding_of.find(l.first);
      if (it != binding_of.end() && find(it->second) == g) vars.push_back(l);
    }
    std::unordered_map<const VarNode*, int64_t> weight;
    int64_t total = 1;
    for (size_t k = vars.size(); k-- > 0;) {
      weight[vars[k].first] = total;
      total *= vars[k].second;
    }
    // Each binding's weight: every one of its splits must sit where its variable's digits do.
    std::vector<std::pair<int64_t, size_t>> order;
    for (size_t i = 0; i < n; ++i) {
      if (find(i) != g) continue;
      int64_t w = -1;
      for (const IterSplit& sp : map.sums[i].splits) {
        int64_t at = weight.at(sp.source) * sp.lower_factor;
        if (at % sp.scale != 0 || (w >= 0 && at / sp.scale != w)) return {};
        w = at / sp.scale;
      }
      if (w < 0) return {};
      order.emplace_back(w, i);
    }
    std::sort(order.begin(), order.end());
    int64_t expect = 1;  // the bindings tile the number: weights 1, e0, e0 * e1, ...
    for (const auto& [w, i] : order) {
      if (w != expect) return {};
      expect *= map.sums[i].extent;
    }
    if (expect != total) return {};
    DataType t = outputs[order[0].second]->dtype;
    PrimExpr fused;
    for (const auto& [w, i] : order) {
      PrimExpr out = map.sums[i].base == 0 ? outputs[i] : sub(outputs[i], make_int(map.sums[i].base, t));
      PrimExpr term = w == 1 ? out : mul(out, make_int(w, t));
      fused = fused ? add(fused, term) : term;
    }
    for (const auto& [v, extent] : vars) {
      int64_t w = weight.at(v);
      PrimExpr e = w == 1 ? fused : floordiv(fused, make_int(w, t));
      if (w * extent < total) e = floormod(e, make_int(extent, t));
      inverse[v] = e;
    }
  }
  return inverse;
}

}  // namespace tsch::arith
