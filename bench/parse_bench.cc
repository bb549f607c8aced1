// parse_bench: time to parse and to run a generated 5,000-line script, in lines per second,
// and the same script under CPython (the peer) when python3 is on PATH.
//
// usage: parse_bench [LINES]
#include <sys/wait.h>

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

// A script that looks like real tsch code: functions, loops, arithmetic, containers, f-strings.
std::string generate(int lines) {
  std::string out = "results = []\n";
  int n = 1;
  for (int block = 0; n < lines; ++block) {
    std::string b = std::to_string(block);
    out += "def tile_" + b + "(extent, factor=4):\n";
    out += "    outer = (extent + factor - 1) // factor\n";
    out += "    total = 0\n";
    out += "    for i in range(outer):\n";
    out += "        for j in range(factor):\n";
    out += "            total += i * factor + j\n";
    out += "    names = [f\"l{k}_{" + b + "}\" for k in range(3)]\n";
    out += "    info = {\"outer\": outer, \"names\": names, \"ok\": total > 0}\n";
    out += "    return info if outer % 2 == 0 else dict(info, odd=True)\n";
    out += "results.append(tile_" + b + "(" + std::to_string(16 + block % 48) + "))\n";
    n += 10;
  }
  out += "print(len(results), results[-1]['outer'])\n";
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Wall time of a program run from an argv (no shell); -1 when it cannot run or fails.
double time_process(const std::vector<std::string>& argv) {
  auto start = std::chrono::steady_clock::now();
  tsch::ProcessResult r = tsch::run_process(argv);
  double t = seconds_since(start);
  return r.exit_code == 0 ? t : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int lines = argc > 1 ? std::atoi(argv[1]) : 5000;
  std::string text = generate(lines);
  int actual_lines = 0;
  for (char c : text) actual_lines += c == '\n';
  std::string path = "/tmp/tsch_parse_bench.tsch";
  std::ofstream(path) << text;

  tsch::script::register_builtin_modules();
  // Parse: first (cold ANTLR caches) and best of 5 warm runs.
  double cold = 0, warm = 1e9;
  for (int i = 0; i < 6; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto module = tsch::parse_module(tsch::SourceFile::make(path, text));
    double t = seconds_since(start);
    if (i == 0)
      cold = t;
    else
      warm = std::min(warm, t);
  }
  // Parse + run in process.
  tsch::script::Interpreter interp;
  interp.write_stdout = [](const std::string&) {};
  auto start = std::chrono::steady_clock::now();
  interp.exec_source(tsch::SourceFile::make(path, text), interp.make_main_globals(path));
  double run = seconds_since(start);

  std::printf("parse_bench: %d lines\n", actual_lines);
  std::printf("  parse (cold)        %8.1f ms  %10.0f lines/s\n", cold * 1e3, actual_lines / cold);
  std::printf("  parse (warm, best)  %8.1f ms  %10.0f lines/s\n", warm * 1e3, actual_lines / warm);
  std::printf("  parse + run         %8.1f ms  %10.0f lines/s\n", run * 1e3, actual_lines / run);
  double tsch_process = time_process({TSCH_BINARY, path});
  std::printf("  tsch process        %8.1f ms\n", tsch_process * 1e3);
  double python = time_process({"python3", path});
  if (python > 0) {
    std::printf("  python3 process     %8.1f ms  (peer)\n", python * 1e3);
    std::printf("  ratio tsch/python3  %8.2fx wall time (lower is better)\n", tsch_process / python);
  } else {
    std::printf("  python3 not found: no peer measured\n");
  }
  return 0;
}
