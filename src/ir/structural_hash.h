// tvm.ir.structural_hash: a hash consistent with structural equality (structural_equal.h):
// IRs equal up to variable, buffer and block renaming hash alike. It hashes what equality
// compares but never a name: node kinds, dtypes, constants, intrinsic names, loop kinds and
// thread tags, buffer shapes and scopes, in traversal order.
#pragma once

#include <cstdint>

#include "ir/module.h"

namespace tsch::ir {

uint64_t structural_hash(const IRModule& m);
uint64_t structural_hash(const PrimFunc& f);
uint64_t structural_hash(const Stmt& s);
uint64_t structural_hash(const PrimExpr& e);

}  // namespace tsch::ir
