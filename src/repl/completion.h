// Tab completion for the REPL, independent of the line-editing library so it can be unit
// tested: names in scope, attributes of a dotted name before the cursor (`sch.`,
// `tvm.tir.`), block names inside `sch.get_block("`, and `:` commands.
#pragma once

#include <string>
#include <vector>

#include "script/interpreter.h"

namespace tsch::repl {

struct Completion {
  size_t word_start = 0;             // where the replaced word begins in the line
  std::vector<std::string> options;  // sorted, unique
};

Completion complete(script::Interpreter& interp, const script::NamespaceRef& globals, const std::string& line,
                    const std::vector<std::string>& commands);

}  // namespace tsch::repl
