#include "repl/simple_repl.h"

#include <cstdio>
#include <iostream>
#include <string>

#include "script/error_report.h"
#include "syntax/parser.h"

namespace tsch::repl {

int run_simple_repl(script::Interpreter& interp, std::istream& in, bool interactive) {
  script::NamespaceRef globals = interp.make_main_globals("");
  int next_line = 1;
  std::string buffer;
  auto prompt = [&](const char* text) {
    if (!interactive) return;
    std::fputs(text, stdout);
    std::fflush(stdout);
  };
  prompt(">>> ");
  std::string line;
  while (std::getline(in, line)) {
    buffer += line + "\n";
    bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (blank && buffer.find_first_not_of(" \t\r\n") == std::string::npos) {
      buffer.clear();
      ++next_line;
      prompt(">>> ");
      continue;
    }
    if (is_incomplete_input(buffer)) {
      prompt("... ");
      continue;
    }
    int lines = 0;
    for (char c : buffer) lines += c == '\n';
    const SourceFile* source = SourceFile::make("<stdin>", buffer, next_line);
    next_line += lines;
    buffer.clear();
    script::run_reporting_errors(interp, [&] { interp.exec_source(source, globals, true); }, false);
    interp.interrupt_requested = false;
    prompt(">>> ");
  }
  if (!buffer.empty()) {
    const SourceFile* source = SourceFile::make("<stdin>", buffer, next_line);
    script::run_reporting_errors(interp, [&] { interp.exec_source(source, globals, true); }, false);
  }
  if (interactive) std::fputs("\n", stdout);
  return 0;
}

}  // namespace tsch::repl
