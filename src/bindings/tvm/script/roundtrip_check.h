// TSCH_CHECK_ROUNDTRIP=1: every prim_func a script defines is printed, parsed back and compared
// as it is created (the decorator hooks of tvm_module.cc and tvmscript_relax_module.cc call
// roundtrip_check.cc); the round-trip golden tests and the libFuzzer round-trip target run this way.
#pragma once

#include <cstdint>
#include <string>

#include "ir/module.h"
#include "script/interpreter.h"

namespace tsch::bindings {

// Prints `f`, parses the text back and raises RuntimeError unless printing is a fixed point
// and the result is structurally equal (only when TSCH_CHECK_ROUNDTRIP is set for modules).
void check_roundtrip(script::Interpreter& interp, const ir::BaseFunc& f, const std::string& name);
void check_module_roundtrip(script::Interpreter& interp, const ir::IRModule& mod);

// The round trips that failed so far in this process. The fuzz target watches this count,
// not the error's text, which an input could print itself.
int64_t roundtrip_failures();

}  // namespace tsch::bindings
