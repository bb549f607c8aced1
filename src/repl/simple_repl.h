// A line-reading REPL: multi-line blocks (a line ending in ':' or inside open brackets
// continues until a blank line), echo of expression values, errors that never end the session.
#pragma once

#include <istream>

#include "script/interpreter.h"

namespace tsch::repl {

// Runs the loop on `in` until end of input. Prompts are printed only when `interactive`.
int run_simple_repl(script::Interpreter& interp, std::istream& in, bool interactive);

}  // namespace tsch::repl
