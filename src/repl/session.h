// The interactive REPL session: reads statements (continuing blocks and open brackets),
// runs them in one namespace, echoes expression values, shows what each statement changed
// in any schedule as an IR diff, and serves the `:` commands (help, undo/redo, trace, show,
// save, load, time, diff, reset, quit). Errors never end the session.
#pragma once

#include <string>

#include "script/interpreter.h"

namespace tsch::repl {

// Runs until Ctrl-D or :quit; returns the process exit status.
int run_session(script::Interpreter& interp);

// Runs the script `text` (read from `path`) as a session would if it were typed in: each
// top-level statement is echoed after `>>> ` / `... `, expression values are echoed, and each
// schedule step shows the IR it changed. Comment lines at column 0 between statements are
// printed as they are (a tour's narration). Stops at the first error; returns the exit status.
int run_steps(script::Interpreter& interp, const std::string& path, const std::string& text);

}  // namespace tsch::repl
