// The interactive REPL session: reads statements (continuing blocks and open brackets),
// runs them in one namespace, echoes expression values, shows what each statement changed
// in any schedule as an IR diff, and serves the `:` commands (help, undo/redo, trace, show,
// save, load, time, diff, reset, quit). Errors never end the session.
#pragma once

#include "script/interpreter.h"

namespace tsch::repl {

// Runs until Ctrl-D or :quit; returns the process exit status.
int run_session(script::Interpreter& interp);

}  // namespace tsch::repl
