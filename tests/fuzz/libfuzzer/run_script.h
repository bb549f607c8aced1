// What both libFuzzer targets share: run one input as a .tsch script in a fresh interpreter,
// silently, within a time budget, and abort (a finding) on anything that is not a user error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsch::fuzz {

// Registers the built-in modules once; with `check_roundtrip` every prim_func the input
// defines is also printed, parsed back and compared (TSCH_CHECK_ROUNDTRIP).
void initialize(bool check_roundtrip);

// Runs `data` as a script. Returns normally for success and for user errors (SyntaxError,
// any script exception, running past the budget: KeyboardInterrupt); aborts with the input's
// error report for an internal error (InternalError), any other C++ exception escaping, or a
// failed round trip (bindings::roundtrip_failures()).
void run_script(const uint8_t* data, size_t size);

}  // namespace tsch::fuzz
