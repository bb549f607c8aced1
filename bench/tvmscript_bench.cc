// tvmscript_bench: parse + print of a generated prim_func with about 2,000 statements
// (issue target: under 50 ms), and CPython's ast.parse of the same text as a peer for the
// syntax part when python3 is on PATH.
//
// usage: tvmscript_bench [BLOCKS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "bindings/builtin_modules.h"
#include "script/interpreter.h"
#include "support/files.h"
#include "syntax/parser.h"

namespace {

std::string generate(int blocks) {
  std::string out =
      "from tvm.script import tir as T\n\n@T.prim_func\ndef big(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, "
      "64), \"float32\")):\n";
  for (int k = 0; k < blocks; ++k) {
    out += "    for i, j in T.grid(64, 64):\n";
    out += "        with T.block(\"b" + std::to_string(k) + "\"):\n";
    out += "            vi, vj = T.axis.remap(\"SS\", [i, j])\n";
    out += "            A[vi, vj] = A[vi, vj] + B[vj, vi] * T.float32(" + std::to_string(k % 7) + ")\n";
  }
  out += "text = big.script()\n";
  return out;
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  int blocks = argc > 1 ? std::atoi(argv[1]) : 500;
  std::string text = generate(blocks);
  std::string path = "/tmp/tsch_tvmscript_bench.tsch";
  std::ofstream(path) << text;
  tsch::script::register_builtin_modules();
  double best_syntax = 1e9, best_total = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    auto module = tsch::parse_module(tsch::SourceFile::make(path, text));
    best_syntax = std::min(best_syntax, since(t0));
    tsch::script::Interpreter interp;
    auto globals = interp.make_main_globals(path);
    auto t1 = std::chrono::steady_clock::now();
    interp.exec_source(tsch::SourceFile::make(path, text), globals);
    best_total = std::min(best_total, since(t1));
  }
  std::printf("tvmscript_bench: prim_func with %d blocks (%d statements)\n", blocks, blocks * 4);
  std::printf("  syntax only (tokens + AST)     %8.1f ms\n", best_syntax);
  std::printf("  parse to IR + print, end to end %7.1f ms   (target: under 50 ms)\n", best_total);
  // The peer: python3's ast.parse of the same file, best of 5, run from an argv (no shell).
  std::string program =
      "import ast,time,sys\ns=open(sys.argv[1]).read()\nb=1e9\nfor _ in range(5):\n"
      " t=time.perf_counter(); ast.parse(s); b=min(b,time.perf_counter()-t)\nprint(b*1e3)\n";
  tsch::ProcessResult peer = tsch::run_process({"python3", "-c", program, path});
  double py = -1;
  if (peer.exit_code == 0 && std::sscanf(peer.output.c_str(), "%lf", &py) == 1) {
    std::printf("  python3 ast.parse (peer)       %8.1f ms   ratio tsch-syntax/peer %.2fx\n", py, best_syntax / py);
  } else {
    std::printf("  python3 not found: no peer measured\n");
  }
  return 0;
}
