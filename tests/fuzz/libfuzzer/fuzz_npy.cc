// libFuzzer target: .npy bytes -> np.load's reader (runtime::load_npy_bytes). The input is the
// file after its magic string ("\x93NUMPY"): version, header length, header and data, so that
// mutations reach the header parser. A malformed file must be refused with NpyError
// (ValueError in scripts); any other exception, a crash or more data read than the file holds
// is a finding. Seeds: tests/fuzz/regressions/fuzz_npy (valid files of several dtypes, ranks
// and orders, without the magic string).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/npy_io.h"
#include "support/checked_size.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes = "\x93NUMPY" + std::string(reinterpret_cast<const char*>(data), size);
  try {
    tsch::runtime::NDArrayRef a = tsch::runtime::load_npy_bytes(bytes, "fuzz.npy");
    // What was read came from the file: never more data than it holds.
    if (static_cast<size_t>(a->nbytes()) > bytes.size()) {
      std::fprintf(stderr, "fuzz_npy: %lld bytes of data read from a %zu-byte file\n",
                   static_cast<long long>(a->nbytes()), size);
      std::abort();
    }
  } catch (const tsch::runtime::NpyError&) {
    // refused, as it should be
  }
  return 0;
}
