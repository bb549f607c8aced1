// What tvm.build (bindings/tvm_build.cc) and relax.build (bindings/tvm/relax/) share:
// --print-after-all (TSCH_PRINT_AFTER_ALL), the TIR build options that print after each pass and
// collect notes, the notes printed in order with the script's output, and the target (as
// given, else `with target:`, else llvm).
#pragma once

#include <string>
#include <vector>

#include "driver/build.h"
#include "script/interpreter.h"
#include "script/object.h"
#include "target/target.h"

namespace tsch::bindings {

bool print_after_all();
driver::BuildOptions build_options(script::Interpreter& interp, std::vector<std::string>* notes);
void print_notes(const std::vector<std::string>& notes);
target::Target build_target(script::Interpreter& interp, const script::Value& v);

}  // namespace tsch::bindings
