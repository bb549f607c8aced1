// A compact line diff of two printings of a module, for the REPL to show what a schedule
// primitive changed: the new text with changed/added lines marked `+`, removed lines `-`,
// and long unchanged stretches folded to `...`.
#pragma once

#include <string>

namespace tsch::repl {

struct DiffStyle {
  bool fold = true;    // fold unchanged runs longer than 2 * context + 1 lines
  int context = 2;     // unchanged lines kept around each change when folding
  bool color = false;  // ANSI colours for + and - lines
};

// Empty when the texts are equal.
std::string render_diff(const std::string& before, const std::string& after, const DiffStyle& style);

}  // namespace tsch::repl
