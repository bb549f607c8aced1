// libFuzzer target: TVMScript front end -> printer -> parser. Every prim_func an input defines
// is printed, parsed back, printed again and compared (text and structure); a difference is a
// finding. Seeded from the TVMScript golden cases.
#include "run_script.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tsch::fuzz::initialize(/*check_roundtrip=*/true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsch::fuzz::run_script(data, size);
  return 0;
}
