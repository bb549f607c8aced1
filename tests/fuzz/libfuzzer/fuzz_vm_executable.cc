// libFuzzer target: mutated exported Relax executables -> tvm.runtime.load_module and the
// VirtualMachine. At start-up a script builds a few Relax modules (if/else, tuples, match_cast,
// computed shapes, calls between functions) and exports them. Each input picks one (its first
// byte) and changes bytes of its bytecode and footer (then triples of offset high, offset low,
// value); the result is loaded and its main run on both branches. A corrupt file must be refused ("cannot load module
// ...") or fail as a script error; a crash, an internal error or a run past the time budget is a finding.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "run_script.h"

namespace {

// Written by LLVMFuzzerInitialize into the scratch folder run_script works in.
constexpr const char* kMakeBases = R"(
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Branches:
    @R.function
    def helper(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return x

    @R.function
    def main(x: R.Tensor(("n",), "float32"), flag: R.Tensor((), "bool")):
        n = T.int64()
        cls = Branches
        with R.dataflow():
            pair = (x, x)
            first = pair[0]
            second = pair[1]
            R.output(first, second)
        if flag:
            r = cls.helper(first)
        else:
            r = second
        m = T.int64()
        w = R.match_cast(r, R.Tensor((m,), "float32"))
        s = R.shape([m * 2, 4])
        return (w, s)

@I.ir_module
class Shapes:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), flag: R.Tensor((), "bool")):
        n = T.int64()
        t = (x, R.shape([n, n + 1]), (flag, x))
        u = t[2]
        return (u[1], t[1])

relax.build(Branches, "llvm").export_library("base0.so")
relax.build(Shapes, "llvm").export_library("base1.so")
)";

std::string run_main(const std::string& path, bool flag) {
  return std::string(R"(
import numpy as np
import tvm
from tvm import relax
ex = tvm.runtime.load_module(")") +
         path + R"(")
vm = relax.VirtualMachine(ex, tvm.cpu())
vm["main"](tvm.nd.array(np.arange(5, dtype="float32")), tvm.nd.array(np.array()" +
         (flag ? "True" : "False") + ")))\n";
}

// A base executable: the library's bytes are left alone (a library is code the loader trusts,
// as dlopen does; its function table is checked), the bytecode and footer after it mutated.
struct Base {
  std::string bytes;
  size_t bytecode_start;
};
std::vector<Base> bases;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tsch::fuzz::initialize(/*check_roundtrip=*/false);
  std::string make = kMakeBases;
  tsch::fuzz::run_script(reinterpret_cast<const uint8_t*>(make.data()), make.size());
  for (const char* name : {"base0.so", "base1.so"}) {
    std::ifstream in(name, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The footer: has_library (1 byte), the bytecode's size (8 bytes, little-endian), the tag.
    if (bytes.size() < 25) {
      std::fprintf(stderr, "fuzz_vm_executable: the base executable %s was not written\n", name);
      std::abort();
    }
    uint64_t blob = 0;
    std::memcpy(&blob, bytes.data() + bytes.size() - 16, 8);
    bases.push_back({bytes, bytes.size() - 17 - blob});
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Base& base = bases[data[0] % bases.size()];
  std::string file = base.bytes;
  size_t span = file.size() - base.bytecode_start;
  for (size_t p = 1; p + 3 <= size; p += 3) {
    size_t offset = (static_cast<size_t>(data[p] & 0x7f) << 8 | data[p + 1]) % span;
    // Offsets count from the end as often as from the start: the footer is at the end.
    if (data[p] & 0x80) offset = span - 1 - offset;
    file[base.bytecode_start + offset] = static_cast<char>(data[p + 2]);
  }
  // A new name for each input: the loader knows a library by its path, and would hand back the
  // one loaded from an earlier input.
  static int counter = 0;
  std::string path = "input" + std::to_string(counter++) + ".so";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  for (bool flag : {true, false}) {
    std::string run = run_main(path, flag);
    tsch::fuzz::run_script(reinterpret_cast<const uint8_t*>(run.data()), run.size());
  }
  std::remove(path.c_str());
  return 0;
}
