// Diagnostics: the user-error channel (`file:line:col: error: message` + source line + caret)
// and the internal-bug channel (internal_check), kept apart as Halide's Error.h does.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "support/source.h"

namespace tsch {

// Renders `file:line:col: <severity>: message`, then the source line and a caret under the
// located token. Without a valid location only the first line is produced.
std::string render_diagnostic(const SourceLoc& loc, const std::string& severity, const std::string& message,
                              bool color = false);

// A syntax error found while lexing or parsing: not catchable by scripts.
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(SourceLoc loc, std::string message, bool at_end_of_input = false)
      : std::runtime_error(message), loc(loc), at_end_of_input(at_end_of_input) {}
  SourceLoc loc;
  // True when more input could complete the statement (open bracket, missing block):
  // the REPL uses it to ask for a continuation line.
  bool at_end_of_input;
};

// A bug in tsch itself. Never caught by scripts; main reports it as an internal error.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

[[noreturn]] void internal_fail(const char* file, int line, const std::string& message);

#define TSCH_INTERNAL_CHECK(cond, msg)                             \
  do {                                                             \
    if (!(cond)) ::tsch::internal_fail(__FILE__, __LINE__, (msg)); \
  } while (0)

}  // namespace tsch
