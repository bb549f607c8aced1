// The long help of the schedule primitives (`:help split` in the REPL, `__doc__` in
// scripts): what each checks before it changes anything, and a small before/after example.
#pragma once

#include <string>

namespace tsch::bindings {

// Empty when the primitive has no long help.
std::string schedule_primitive_help(const std::string& name);

}  // namespace tsch::bindings
