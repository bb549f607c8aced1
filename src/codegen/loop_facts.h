// What the emitter asks of a loop before it emits it: IR queries with no LLVM in them.
#pragma once

#include <functional>
#include <vector>

#include "ir/stmt.h"

namespace tsch::codegen {

// Whether `body` holds a loop that runs long enough to poll Ctrl-C around: one that holds
// loops itself, or whose extent is not a small constant. The innermost loops never poll (a
// volatile load in them would stop their vectorization), nor do the loops around small
// constant ones, which LLVM may unroll into innermost loops.
bool holds_heavy_loop(const ir::Stmt& body);

// The variables (and buffer data pointers) `loop`'s range and body read from the enclosing
// scope, in first-use order: those `in_scope` accepts, other than the loop variable.
std::vector<const ir::VarNode*> free_vars(const ir::ForNode& loop,
                                          const std::function<bool(const ir::VarNode*)>& in_scope);

}  // namespace tsch::codegen
