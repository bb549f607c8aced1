// relax_vm: what the Relax VM adds to a call. A 3-layer MLP on tiny tensors (1x16) is built
// with relax.build; vm["main"] is timed against calling the same compiled prim_funcs directly
// (outputs preallocated) in the same run, and the difference is divided by the number of VM
// instructions main executes. Goals: under 1 us per instruction, under 5 us per call of main.
// Then the storage a 10-layer MLP allocates with and without StaticPlanBlockMemory.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bindings/builtin_modules.h"
#include "relax/build.h"
#include "runtime/call.h"
#include "runtime/vm/vm.h"
#include "script/interpreter.h"
#include "target/target.h"
#include "transform/pass.h"
#include "values/ir_values.h"

namespace {

using namespace tsch;

// `layers` dense+relu layers of width `width`; sizes fixed (mlp) or symbolic (mlp_dyn).
std::string mlp_source(int layers, const std::string& width) {
  std::string params = "x: R.Tensor((1, " + width + "), \"float32\")";
  for (int i = 0; i < layers; ++i)
    params += ", w" + std::to_string(i) + ": R.Tensor((" + width + ", " + width + "), \"float32\")";
  std::string dim = width.front() == '"' ? width.substr(1, width.size() - 2) : width;
  std::string body;
  std::string prev = "x";
  for (int i = 0; i < layers; ++i) {
    body += "            lv" + std::to_string(i) + " = R.call_tir(cls.dense_relu, (" + prev + ", w" +
            std::to_string(i) + "), out_sinfo=R.Tensor((1, " + dim + "), \"float32\"))\n";
    prev = "lv" + std::to_string(i);
  }
  return R"(
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class MLP:
    @T.prim_func
    def dense_relu(x: T.handle, w: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (1, n), "float32")
        W = T.match_buffer(w, (n, n), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        Z = T.alloc_buffer((1, n), "float32")
        for i, j, k in T.grid(1, n, n):
            with T.block("Z"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Z[vi, vj] = T.float32(0)
                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, n):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(Z[vi, vj], T.float32(0))

    @R.function
    def main()" +
         params + R"():
        cls = MLP
)" + (dim == width ? std::string() : "        " + dim + " = T.int64()\n") +
         "        with R.dataflow():\n" + body + "            R.output(" + prev + ")\n        return " + prev + "\n";
}

ir::IRModule parse(script::Interpreter& interp, const std::string& text) {
  auto globals = interp.make_main_globals("relax_vm");
  interp.exec_source(SourceFile::make("relax_vm", text), globals);
  return globals->find(intern("MLP"))->as<bindings::IRModuleValue>()->module;
}

std::vector<runtime::Any> arguments(int layers, int64_t width) {
  std::vector<runtime::Any> args{
      runtime::Any::of_ndarray(std::make_shared<runtime::NDArray>(ir::DataType::float32(), runtime::Shape{1, width}))};
  for (int i = 0; i < layers; ++i) {
    args.push_back(runtime::Any::of_ndarray(
        std::make_shared<runtime::NDArray>(ir::DataType::float32(), runtime::Shape{width, width})));
  }
  return args;
}

template <typename F>
double best_us_per_call(F&& f, int calls) {
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    auto t = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    double us = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 1e6 / calls;
    best = std::min(best, us);
  }
  return best;
}

runtime::vm::MemoryStats run_once(const relax::Executable& ex, const std::vector<runtime::Any>& args) {
  auto vm = std::make_shared<runtime::vm::VirtualMachine>(ex.bytecode, ex.library);
  vm->invoke("main", args);
  return vm->memory_stats();
}

}  // namespace

int main() {
  script::register_builtin_modules();
  script::Interpreter interp;
  target::Target llvm = target::parse_target("llvm");

  // ---- per-call overhead
  const int layers = 3;
  const int64_t width = 16;
  relax::Executable ex = relax::build(parse(interp, mlp_source(layers, std::to_string(width))), llvm);
  auto vm = std::make_shared<runtime::vm::VirtualMachine>(ex.bytecode, ex.library);
  runtime::PackedFunc main_fn = vm->get_function("main");
  std::vector<runtime::Any> args = arguments(layers, width);
  const auto& info = ex.bytecode->func_table[ex.bytecode->func_map.at("main")];
  int64_t instructions = info.end_instr - info.start_instr;

  runtime::PackedFunc dense = runtime::get_function(ex.library, "dense_relu", false);
  std::vector<runtime::Any> outs;
  for (int i = 0; i < layers; ++i)
    outs.push_back(runtime::Any::of_ndarray(
        std::make_shared<runtime::NDArray>(ir::DataType::float32(), runtime::Shape{1, width})));
  auto direct = [&] {
    runtime::Any in = args[0];
    for (int i = 0; i < layers; ++i) {
      (*dense)({in, args[1 + i], outs[i]});
      in = outs[i];
    }
  };
  const int calls = 20000;
  direct();
  (*main_fn)(args);
  double vm_us = best_us_per_call([&] { (*main_fn)(args); }, calls);
  double direct_us = best_us_per_call(direct, calls);
  double overhead = vm_us - direct_us;
  std::printf("relax_vm: %d-layer MLP, 1x%lld tensors, %lld VM instructions in main, best of 7 x %d calls\n", layers,
              static_cast<long long>(width), static_cast<long long>(instructions), calls);
  std::printf("  vm[\"main\"]                 %8.3f us/call\n", vm_us);
  std::printf("  prim_funcs called directly  %8.3f us/call (the peer: same kernels, outputs preallocated)\n",
              direct_us);
  std::printf(
      "  VM overhead                 %8.3f us/call, %.3f us/instruction  (goals: < 5 us/call, < 1 us/instruction)\n",
      overhead, overhead / static_cast<double>(instructions));
  std::printf("  ratio vm/direct             %8.2fx\n", vm_us / direct_us);

  // ---- storage of a 10-layer MLP with symbolic width, with and without memory planning
  const int deep = 10;
  ir::IRModule dyn = parse(interp, mlp_source(deep, "\"n\""));
  std::vector<runtime::Any> dyn_args = arguments(deep, 256);
  runtime::vm::MemoryStats planned = run_once(relax::build(dyn, llvm), dyn_args);
  auto ctx = std::make_shared<transform::PassContext>();
  ctx->disabled_pass = {"StaticPlanBlockMemory"};
  transform::PassContext::enter(ctx);
  relax::Executable unplanned_ex = relax::build(dyn, llvm);
  transform::PassContext::exit();
  runtime::vm::MemoryStats unplanned = run_once(unplanned_ex, dyn_args);
  std::printf("storage of a %d-layer MLP, width n = 256 (symbolic), one call:\n", deep);
  std::printf("  with StaticPlanBlockMemory     %8lld bytes allocated in %lld storages, peak %lld\n",
              static_cast<long long>(planned.total_bytes), static_cast<long long>(planned.num_allocations),
              static_cast<long long>(planned.peak_bytes));
  std::printf("  without StaticPlanBlockMemory  %8lld bytes allocated in %lld storages, peak %lld\n",
              static_cast<long long>(unplanned.total_bytes), static_cast<long long>(unplanned.num_allocations),
              static_cast<long long>(unplanned.peak_bytes));
  return 0;
}
