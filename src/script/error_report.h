// Renders uncaught errors the way every tsch error looks: `file:line:col: error: message`,
// the source line, a caret, and for errors inside calls a short traceback (innermost last).
#pragma once

#include <string>

#include "script/interpreter.h"
#include "support/diagnostics.h"

namespace tsch::script {

std::string render_script_error(Interpreter& interp, const ScriptError& error, bool color = false);
std::string render_syntax_error(const SyntaxError& error, bool color = false);

// Runs `body`, printing any error to stderr; returns the process exit status (0 ok, 1 error,
// or the SystemExit code).
int run_reporting_errors(Interpreter& interp, const std::function<void()>& body, bool color = false);

}  // namespace tsch::script
