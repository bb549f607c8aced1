#include "schedule/suggest_index_map.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_set>

#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/op.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// One digit of a mixed-radix number: an expression ranging over [0, extent).
struct Digit {
  PrimExpr value;
  int64_t extent;
};

PrimExpr div_by(const PrimExpr& e, int64_t c, DataType t) {
  int64_t a;
  if (is_binary(e->kind) && e->kind == ExprKind::FloorDiv && as_const_int(binary_b(e), &a))
    return floordiv(binary_a(e), make_int(a * c, t));
  return floordiv(e, make_int(c, t));
}

// The number (digits innermost first) modulo `e`, its digits left as the number divided by
// `e`; the expressions come out as a simplifier with the digits' ranges writes them. Nullopt
// when a digit's extent and `e` do not divide one another.
std::optional<PrimExpr> take_low(std::vector<Digit>& digits, int64_t e, DataType t) {
  PrimExpr low;
  int64_t scale = 1;
  auto push = [&](const PrimExpr& part) {
    PrimExpr scaled = scale == 1 ? part : mul(part, make_int(scale, t));
    low = low ? add(scaled, low) : scaled;
  };
  while (e > 1 && !digits.empty()) {
    Digit& d = digits.front();
    if (d.extent == 1) {  // always 0
      digits.erase(digits.begin());
    } else if (e % d.extent == 0) {
      push(d.value);
      scale *= d.extent;
      e /= d.extent;
      digits.erase(digits.begin());
    } else if (d.extent % e == 0) {
      push(floormod(d.value, make_int(e, t)));
      d = {div_by(d.value, e, t), d.extent / e};
      e = 1;
    } else {
      return std::nullopt;
    }
  }
  return low ? low : make_int(0, t);
}

}  // namespace

std::optional<SuggestedIndexMap> suggest_index_map(const std::vector<int64_t>& shape,
                                                   const std::vector<PrimExpr>& indices,
                                                   const std::vector<std::pair<Var, int64_t>>& loops) {
  if (shape.empty() || indices.size() != shape.size()) return std::nullopt;
  DataType t = DataType::int32();
  // Step 1. The row-major flattening of an index.
  auto flatten = [&](const std::vector<PrimExpr>& index) {
    PrimExpr flat = make_int(0, t);
    int64_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      flat = add(flat, mul(make_int(stride, t), index[i]));
      stride *= shape[i];
    }
    return flat;
  };
  // Step 2. The flattened access as splits of the loops (surjective: parts of a loop may go
  // unused), outer split first.
  arith::LoopExtents extents;
  for (const auto& [v, e] : loops) extents[v.get()] = e;
  // (No loop is required to be tiled: a loop's splits may skip digits, as in TVM's surjective
  // level, and are checked below not to overlap.)
  const std::unordered_set<const VarNode*> none_tiled;
  arith::IterMapResult iter =
      arith::detect_iter_map({arith::simplify(flatten(indices))}, extents, /*require_bijective=*/false, &none_tiled);
  if (!iter.ok || iter.sums.size() != 1 || iter.sums[0].splits.empty()) return std::nullopt;
  // Neighbouring splits of one loop that stay neighbours in the index (`v % 4 + v // 4 % 2 * 4`)
  // are one split (`v % 8`), as TVM's iter map has them.
  std::vector<arith::IterSplit> merged;
  for (const arith::IterSplit& split : iter.sums[0].splits) {  // innermost first
    arith::IterSplit* last = merged.empty() ? nullptr : &merged.back();
    if (last && last->source == split.source && last->lower_factor * last->extent == split.lower_factor) {
      last->extent *= split.extent;
      continue;
    }
    merged.push_back(split);
  }
  std::vector<arith::IterSplit> splits(merged.rbegin(), merged.rend());
  std::vector<arith::IterSplit> by_loop = splits;
  std::sort(by_loop.begin(), by_loop.end(), [](const arith::IterSplit& a, const arith::IterSplit& b) {
    return a.source != b.source ? a.source < b.source : a.lower_factor < b.lower_factor;
  });
  for (size_t i = 1; i < by_loop.size(); ++i) {
    const arith::IterSplit &a = by_loop[i - 1], &b = by_loop[i];
    if (a.source == b.source &&
        (b.lower_factor < a.lower_factor * a.extent || b.lower_factor % (a.lower_factor * a.extent) != 0))
      return std::nullopt;
  }
  size_t n = splits.size();
  // Step 3. The new dimensions ordered by loop, then outer part first.
  auto loop_index = [&](const VarNode* v) {
    for (size_t i = 0; i < loops.size(); ++i) {
      if (loops[i].first.get() == v) return i;
    }
    return loops.size();
  };
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    size_t la = loop_index(splits[a].source), lb = loop_index(splits[b].source);
    if (la != lb) return la < lb;
    return splits[a].lower_factor > splits[b].lower_factor;
  });
  SuggestedIndexMap out;
  // Step 4. The map: the buffer's index, a mixed-radix number whose digits are its indices,
  // split by the splits' extents (innermost first), then permuted.
  std::vector<Digit> digits;
  for (size_t i = 0; i < shape.size(); ++i) out.params.push_back(make_var("i" + std::to_string(i), t));
  for (size_t i = shape.size(); i-- > 0;) digits.push_back({out.params[i], shape[i]});
  std::vector<PrimExpr> split(n);
  for (size_t i = n; i-- > 0;) {
    std::optional<PrimExpr> part = take_low(digits, splits[i].extent, t);
    if (!part) return std::nullopt;
    split[i] = *part;
  }
  for (size_t i = 0; i < n; ++i) out.outputs.push_back(split[order[i]]);
  // Step 5. The inverse: undo the permutation, read the splits as one number, split it by the
  // buffer's shape.
  for (size_t i = 0; i < n; ++i) out.inverse_params.push_back(make_var("i" + std::to_string(i), t));
  std::vector<PrimExpr> unpermuted(n);
  for (size_t i = 0; i < n; ++i) unpermuted[order[i]] = out.inverse_params[i];
  digits.clear();
  for (size_t i = n; i-- > 0;) digits.push_back({unpermuted[i], splits[i].extent});
  out.inverse_outputs.resize(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    std::optional<PrimExpr> part = take_low(digits, shape[i], t);
    if (!part) return std::nullopt;
    out.inverse_outputs[i] = *part;
  }
  return out;
}

}  // namespace tsch::schedule
