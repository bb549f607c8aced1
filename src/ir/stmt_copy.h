// A deep copy of a statement tree: every statement node new, expressions, variables and
// buffers shared.
#pragma once

#include "ir/stmt.h"

namespace tsch::ir {

// Copies every statement node under `s` (s included; null stays null). Loops and blocks in
// the copy have sid 0: they are new nodes no schedule has seen. Expressions, Vars and
// Buffers are shared with `s`, so the copy still refers to the variables and buffers of
// the function it came from.
Stmt deep_copy(const Stmt& s);

}  // namespace tsch::ir
