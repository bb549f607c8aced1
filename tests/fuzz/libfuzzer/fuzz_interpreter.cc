// libFuzzer target: source text -> scanner/parser -> AST -> interpreter (and whatever the
// script calls: numpy, TVMScript, schedules, builds). Seeded from tests/golden and examples.
#include "run_script.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tsch::fuzz::initialize(/*check_roundtrip=*/false);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsch::fuzz::run_script(data, size);
  return 0;
}
