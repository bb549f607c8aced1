// schedule_bench: time to apply each primitive of the seed walkthrough to mm_relu and print
// the module afterwards (the REPL's per-step work). Target: under 1 ms per primitive
// including printing. Best of 50 repetitions.
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bindings/builtin_modules.h"
#include "ir/printer.h"
#include "schedule/primitives.h"
#include "script/interpreter.h"
#include "values/ir_values.h"

namespace {

const char* kModule = R"(
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
)";

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 1e3;
}

}  // namespace

int main() {
  using namespace tsch;
  script::register_builtin_modules();
  script::Interpreter interp;
  auto globals = interp.make_main_globals("schedule_bench");
  interp.exec_source(SourceFile::make("schedule_bench", kModule), globals);
  ir::IRModule mod = globals->find(intern("MyModule"))->as<bindings::IRModuleValue>()->module;

  std::vector<std::string> names = {"get_block + get_loops", "split", "reorder", "reverse_compute_at",
                                    "decompose_reduction"};
  std::vector<double> best(names.size(), 1e9);
  size_t printed = 0;
  for (int rep = 0; rep < 50; ++rep) {
    schedule::ScheduleState s(mod);
    schedule::BlockSid y, c;
    schedule::LoopSid i, j, k, j0, j1;
    std::vector<std::function<void()>> steps = {
        [&] {
          y = schedule::get_block(s, "Y", "mm_relu");
          c = schedule::get_block(s, "C", "mm_relu");
          auto loops = schedule::get_loops(s, y);
          i = loops[0], j = loops[1], k = loops[2];
        },
        [&] {
          auto parts = schedule::split(s, j, {std::nullopt, 4}, true, false);
          j0 = parts[0], j1 = parts[1];
        },
        [&] { schedule::reorder(s, {j0, k, j1}); },
        [&] { schedule::reverse_compute_at(s, c, j0, false, -1); },
        [&] { schedule::decompose_reduction(s, y, k); },
    };
    for (size_t n = 0; n < steps.size(); ++n) {
      auto t = std::chrono::steady_clock::now();
      steps[n]();
      printed = ir::script(s.mod()).size();
      best[n] = std::min(best[n], ms_since(t));
    }
    (void)i;
  }
  std::printf("schedule_bench: mm_relu, each step = primitive + printing the module (%zu chars), best of 50\n",
              printed);
  double worst = 0;
  for (size_t n = 0; n < names.size(); ++n) {
    std::printf("  %-24s %7.3f ms\n", names[n].c_str(), best[n]);
    worst = std::max(worst, best[n]);
  }
  std::printf("  slowest step %.3f ms (target: under 1 ms)\n", worst);
  return 0;
}
