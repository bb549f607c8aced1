// The `tsch` command: run a script, run -c code, or open the REPL.
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "bindings/builtin_modules.h"
#include "repl/session.h"
#include "script/error_report.h"
#include "script/interpreter.h"
#include "support/interrupt.h"
#include "syntax/parser.h"

namespace tsch::script {
std::vector<std::string>& script_argv();
}

namespace {

using tsch::script::Interpreter;

const char* kUsage =
    "usage: tsch [options] [FILE.tsch [args...]]\n"
    "\n"
    "Runs a .tsch script (a Python subset that reads TVMScript), or opens the REPL.\n"
    "\n"
    "options:\n"
    "  -c CODE        run CODE as a script\n"
    "  --steps FILE   run FILE as if typed into the REPL: echo each statement and show\n"
    "                 each schedule step's IR diff (`bash scripts/run.sh` runs the tour so)\n"
    "  --print-after-all\n"
    "                 print the IR after every lowering pass of tvm.build/tvm.lower\n"
    "  --version      print the version and exit\n"
    "  -h, --help     print this help and exit\n"
    "\n"
    "environment:\n"
    "  TSCH_PATH      extra folders searched by import (colon-separated)\n"
    "  TSCH_STDLIB    the stdlib folder (default: next to the executable)\n"
    "  TVM_NUM_THREADS  threads for parallel loops (default: the number of cores)\n"
    "  TSCH_PRINT_AFTER_ALL=1  as --print-after-all\n";

Interpreter* g_interp = nullptr;

void on_sigint(int) {
  if (g_interp) g_interp->interrupt_requested = true;
  tsch::request_interrupt();  // a running kernel stops at its next outer-loop iteration
}

struct Job {
  int argc;
  char** argv;
  int status = 0;
};

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  bool steps = false;
  while (!args.empty() && (args[0] == "--print-after-all" || args[0] == "--steps")) {
    if (args[0] == "--steps") {
      steps = true;
    } else {
      setenv("TSCH_PRINT_AFTER_ALL", "1", 1);
    }
    args.erase(args.begin());
  }
  if (steps && (args.empty() || args[0].empty() || args[0][0] == '-')) {
    std::fputs("tsch: error: argument --steps: expected a file\n", stderr);
    return 2;
  }
  if (!args.empty() && args[0] == "--version") {
    std::printf("tsch %s\n", TSCH_VERSION);
    return 0;
  }
  tsch::script::register_builtin_modules();
  Interpreter interp;
  g_interp = &interp;
  struct sigaction action{};
  action.sa_handler = on_sigint;
  sigaction(SIGINT, &action, nullptr);

  if (!args.empty() && args[0] == "-c") {
    if (args.size() < 2) {
      std::fputs("tsch: error: argument -c: expected one argument\n", stderr);
      return 2;
    }
    tsch::script::script_argv().assign({"-c"});
    for (size_t i = 2; i < args.size(); ++i) tsch::script::script_argv().push_back(args[i]);
    const tsch::SourceFile* source = tsch::SourceFile::make("<string>", args[1]);
    auto globals = interp.make_main_globals("");
    return tsch::script::run_reporting_errors(interp, [&] { interp.exec_source(source, globals); });
  }
  if (!args.empty() && !args[0].empty() && args[0][0] == '-' && args[0] != "-") {
    std::fprintf(stderr, "tsch: error: unknown option '%s'\n%s", args[0].c_str(), kUsage);
    return 2;
  }
  if (args.empty() || args[0] == "-") {
    bool interactive = isatty(STDIN_FILENO) && args.empty();
    if (interactive) {
      return tsch::repl::run_session(interp);
    }
    // Piped input runs as one script, so `tsch < file` behaves like `tsch file`.
    std::stringstream text;
    text << std::cin.rdbuf();
    tsch::script::script_argv().assign({"-"});
    const tsch::SourceFile* source = tsch::SourceFile::make("<stdin>", text.str());
    auto globals = interp.make_main_globals("");
    return tsch::script::run_reporting_errors(interp, [&] { interp.exec_source(source, globals); });
  }
  const std::string& path = args[0];
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: error: cannot open file: %s\n", path.c_str(), std::strerror(errno));
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  tsch::script::script_argv().assign(args.begin(), args.end());
  if (steps) return tsch::repl::run_steps(interp, path, text.str());
  const tsch::SourceFile* source = tsch::SourceFile::make(path, text.str());
  auto globals = interp.make_main_globals(path);
  return tsch::script::run_reporting_errors(interp, [&] { interp.exec_source(source, globals); });
}

// Memory can run out before a script runs (reading a large file under a low `ulimit -v`),
// where no script error handler is in place yet.
int run_guarded(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fputs("tsch: error: MemoryError: out of memory\n", stderr);
    return 1;
  }
}

void* thread_main(void* arg) {
  auto* job = static_cast<Job*>(arg);
  job->status = run_guarded(job->argc, job->argv);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // Deep recursion in scripts and deeply nested expressions need a large stack: run on a
  // thread with 512 MiB reserved (committed lazily). Where that much address space cannot be
  // reserved (a low `ulimit -v`), half as much is tried, down to the process's own stack;
  // the interpreter checks the stack left (support/stack_guard.h), so RecursionError, not
  // SIGSEGV, stops deep recursion on whichever stack it got.
  Job job{argc, argv};
  pthread_t thread;
  bool started = false;
  for (size_t stack = 512ul << 20; stack >= (16ul << 20) && !started; stack /= 2) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack);
    started = pthread_create(&thread, &attr, thread_main, &job) == 0;
    pthread_attr_destroy(&attr);
  }
  if (!started) return run_guarded(argc, argv);
  // Ctrl-C must reach the worker thread, so that a REPL waiting for input wakes up.
  sigset_t sigint;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigint, nullptr);
  pthread_join(thread, nullptr);
  std::fflush(stdout);
  return job.status;
}
