// Affine iteration maps (after TVM's DetectIterMap): decide whether block bindings are
// split/fused affine maps of the enclosing loops, and invert them.
//
// Each binding is decomposed into splits of loop variables: a split of loop variable v is
// floormod(floordiv(v, lower_factor), extent) * scale. A binding is affine when its splits
// form a mixed-radix number (scales 1, e0, e0*e1, ...), so it ranges over exactly
// [0, product of extents); the bindings together are a bijection when the splits of every
// loop variable tile it exactly (lower factors 1, e0, e0*e1, ... up to the loop extent).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/expr.h"

namespace tsch::arith {

struct IterSplit {
  const ir::VarNode* source = nullptr;
  int64_t lower_factor = 1;
  int64_t extent = 1;
  int64_t scale = 1;
};

struct IterSum {
  std::vector<IterSplit> splits;  // innermost (scale 1) first after detection
  int64_t base = 0;
  int64_t extent = 1;  // product of the split extents
};

struct IterMapResult {
  bool ok = false;
  std::string error;          // why the bindings are not affine (for schedule error messages)
  std::vector<IterSum> sums;  // one per binding
};

// Loop variables with constant extents (loops start at 0).
using LoopExtents = std::unordered_map<const ir::VarNode*, int64_t>;

// Detects the bindings as affine maps of the loops. With `require_bijective`, every loop
// variable must be covered exactly once (no loop left unused, no overlap).
// With `tiled`, only the loops in it must be tiled without overlap (the others are held
// fixed: their digits may repeat).
IterMapResult detect_iter_map(const std::vector<ir::PrimExpr>& bindings, const LoopExtents& loops,
                              bool require_bijective, const std::unordered_set<const ir::VarNode*>* tiled = nullptr);

// The inverse map: each loop variable as an expression of the binding values
// (`outputs[i]` stands for binding i). Requires a bijective result. Loops of extent 1 are
// not in it: they are always 0.
std::unordered_map<const ir::VarNode*, ir::PrimExpr> inverse_iter_map(const IterMapResult& map,
                                                                      const std::vector<ir::PrimExpr>& outputs);

// TVM's form of the inverse (InverseAffineIterMap): bindings that share loop variables are the
// digits of one number over those loops (`loops`: outermost first), which is rebuilt from the
// outputs, innermost first (`o1 + o0 * 128`), and each loop variable read off it
// (`(o1 + o0 * 128) // 64 % 32`); the expressions are left as built. Empty when the bindings
// are not such digits.
std::unordered_map<const ir::VarNode*, ir::PrimExpr> inverse_iter_map_fused(
    const IterMapResult& map, const std::vector<ir::PrimExpr>& outputs,
    const std::vector<std::pair<const ir::VarNode*, int64_t>>& loops);

}  // namespace tsch::arith
