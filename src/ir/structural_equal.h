// Structural equality of IR modulo variable and buffer renaming (tvm.ir.structural_equal).
// Variables are matched bijectively at first occurrence; on a mismatch the result names the
// first differing node path and both sides.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/module.h"

namespace tsch::ir {

struct StructuralDiff {
  bool equal = true;
  std::string path;  // e.g. "functions[\"main\"].body.block.body[1].extent"
  std::string lhs, rhs;
};

// TVM's tvm.ir.structural_equal does not compare block names (name_hint); tsch's own checks
// (schedule replays, round trips) keep them, so a wrong name is still caught there.
struct StructuralOptions {
  bool block_names = true;
};

StructuralDiff structural_diff(const IRModule& a, const IRModule& b, StructuralOptions options = {});
StructuralDiff structural_diff(const PrimFunc& a, const PrimFunc& b, StructuralOptions options = {});
StructuralDiff structural_diff(const PrimExpr& a, const PrimExpr& b);
// TVM's Array equality over expressions: the same length, equal element by element, with one
// variable mapping over all of them; the path is TVM's, from the array (`[1].a`).
StructuralDiff structural_diff(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b);
StructuralDiff structural_diff(const Stmt& a, const Stmt& b, StructuralOptions options = {});

// Comparers of the other function kinds (Relax functions), registered by their dialect.
using FunctionDiff = std::function<StructuralDiff(const BaseFunc&, const BaseFunc&)>;
std::map<FuncKind, FunctionDiff>& function_diff_table();

inline bool structural_equal(const IRModule& a, const IRModule& b) { return structural_diff(a, b).equal; }
inline bool structural_equal(const PrimFunc& a, const PrimFunc& b) { return structural_diff(a, b).equal; }

}  // namespace tsch::ir
