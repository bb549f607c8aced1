// The build options tvm.build and relax.build share (build_options.h).
#include "bindings/tvm/target/build_options.h"

#include <cstdio>
#include <cstdlib>

#include "bindings/tvm/target/target_values.h"
#include "ir/printer.h"

namespace tsch::bindings {

bool print_after_all() {
  const char* env = std::getenv("TSCH_PRINT_AFTER_ALL");
  return env && *env && std::string(env) != "0";
}

driver::BuildOptions build_options(Interpreter& interp, std::vector<std::string>* notes) {
  driver::BuildOptions options;
  options.notes = notes;
  if (print_after_all()) {
    options.after_pass = [&interp](const std::string& pass, const std::string& func, const ir::PrimFunc& f) {
      interp.write_stdout("# IR after " + pass + " (" + func + "):\n" + ir::script(f, func));
    };
  }
  return options;
}

void print_notes(const std::vector<std::string>& notes) {
  std::fflush(stdout);  // keep the notes in order with what the script printed
  for (const auto& note : notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  std::fflush(stderr);
}

// The target of tvm.build(mod, target): as given, else the `with target:` scope's, else llvm.
target::Target build_target(Interpreter& interp, const Value& v) {
  if (v.is_none())
    if (target::Target current = target::current_target()) return current;
  return target_arg(interp, v, "llvm");
}

}  // namespace tsch::bindings
