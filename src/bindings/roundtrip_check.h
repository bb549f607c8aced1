// TSCH_CHECK_ROUNDTRIP=1: every prim_func a script defines is printed, parsed back and compared
// as it is created (tvm_module.cc); the round-trip golden tests and the libFuzzer round-trip
// target run this way.
#pragma once

#include <cstdint>

namespace tsch::bindings {

// The round trips that failed so far in this process. The fuzz target watches this count,
// not the error's text, which an input could print itself.
int64_t roundtrip_failures();

}  // namespace tsch::bindings
